import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as tick } from "node:timers/promises";
import { json, startLocalServer } from "../../../../test/support/local-server.js";
import { newTokenBucket } from "./rate-limiter.js";
import { newRESTClient } from "./rest-client.js";

/** Whether the promise has settled after the pending callbacks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await tick();
  return done;
}

test("a token bucket lets a burst through at once and holds the next request", async () => {
  let now = 0;
  const limiter = newTokenBucket({ qps: 2, burst: 3, now: () => now });
  for (let i = 0; i < 3; i++) assert.equal(await settled(limiter.wait()), true, `burst request ${i}`);
  const ac = new AbortController();
  const held = limiter.wait(ac.signal);
  assert.equal(await settled(held), false);
  ac.abort(new Error("gave up"));
  await assert.rejects(held, /gave up/);
  // The aborted waiter gave its token back: a full token's worth of time later, one passes.
  now += 500;
  assert.equal(await settled(limiter.wait()), true);
});

test("tokens refill with time, up to the burst", async () => {
  let now = 0;
  const limiter = newTokenBucket({ qps: 10, burst: 2, now: () => now });
  await limiter.wait();
  await limiter.wait();
  now += 10_000; // long quiet period: refills to 2, not 100
  assert.equal(await settled(limiter.wait()), true);
  assert.equal(await settled(limiter.wait()), true);
  const third = limiter.wait();
  assert.equal(await settled(third), false);
  await third; // released by its timer
});

test("an already aborted signal rejects at once", async () => {
  const limiter = newTokenBucket({ qps: 1 });
  const ac = new AbortController();
  ac.abort(new Error("no"));
  await assert.rejects(limiter.wait(ac.signal), /no/);
});

test("invalid settings are refused with a hint", () => {
  assert.throws(() => newTokenBucket({ qps: 0 }), /leave it unset/);
  assert.throws(() => newTokenBucket({ qps: 5, burst: 0 }), /burst/);
});

test("config.qps throttles requests through the transport; unset, nothing waits", async () => {
  let served = 0;
  const server = await startLocalServer((_req, res) => {
    served++;
    json(res, 200, {});
  });
  const limited = newRESTClient(server.config({ qps: 0.001, burst: 2 }));
  const free = newRESTClient(server.config());
  try {
    await limited.request({ path: "/a" });
    await limited.request({ path: "/b" });
    const ac = new AbortController();
    const third = limited.request({ path: "/c", signal: ac.signal });
    assert.equal(await settled(third), false);
    await Promise.all(Array.from({ length: 20 }, () => free.request({ path: "/d" })));
    ac.abort(new Error("done waiting"));
    await assert.rejects(third, /done waiting/);
    assert.equal(served, 22, "the throttled request never reached the server");
  } finally {
    await limited.transport.destroy();
    await free.transport.destroy();
    await server.close();
  }
});
