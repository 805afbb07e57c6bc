import assert from "node:assert/strict";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { newLogger } from "../log/index.js";
import { CheckTimeoutError, cacheSyncedCheck, ping, startedCheck } from "./checker.js";
import {
  CheckNameError,
  type HealthProbeServer,
  type HealthProbeServerOptions,
  newHealthProbeServer,
} from "./server.js";

function get(addr: AddressInfo, path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: addr.address, port: addr.port, path, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Starts a probe server on a free loopback port, sets it up, runs `body`, and stops it. */
async function withServer(
  setup: (s: HealthProbeServer) => void,
  body: (addr: AddressInfo, s: HealthProbeServer) => Promise<void>,
  opts: HealthProbeServerOptions = {},
) {
  const server = newHealthProbeServer({ bindAddress: "127.0.0.1:0", ...opts });
  setup(server);
  const ac = new AbortController();
  const done = server.start(ac.signal);
  const addr = (await server.listening())!;
  try {
    await body(addr, server);
  } finally {
    ac.abort();
    await done;
  }
}

const failing = (reason: string) => () => {
  throw new Error(reason);
};

test("no checks: /healthz and /readyz answer ok, and a default ping is listed", async () => {
  await withServer(
    () => {},
    async (addr) => {
      for (const path of ["/healthz", "/readyz", "/readyz/", "/healthz/ping"]) {
        const res = await get(addr, path);
        assert.equal(res.status, 200, path);
        assert.equal(res.body, "ok", path);
        assert.equal(res.type, "text/plain; charset=utf-8");
      }
      assert.equal((await get(addr, "/readyz?verbose")).body, "[+]ping ok\nhealthz check passed\n");
    },
  );
});

test("passing checks: ok, and ?verbose lists each check in name order", async () => {
  await withServer(
    (s) => {
      s.addReadyzCheck("zeta", ping);
      s.addReadyzCheck("alpha", async () => {});
    },
    async (addr) => {
      assert.deepEqual(await get(addr, "/readyz"), {
        status: 200,
        type: "text/plain; charset=utf-8",
        body: "ok",
      });
      const verbose = await get(addr, "/readyz?verbose");
      assert.equal(verbose.status, 200);
      assert.equal(verbose.body, "[+]alpha ok\n[+]zeta ok\nhealthz check passed\n");
      assert.equal((await get(addr, "/readyz?verbose=false")).body, verbose.body, "any verbose value counts");
    },
  );
});

test("a failing check: 500, always verbose, reason withheld; its own endpoint gives the reason", async () => {
  const lines: string[] = [];
  const logger = newLogger({ level: 1, destination: { write: (l: string) => void lines.push(l) } });
  await withServer(
    (s) => {
      s.addReadyzCheck("ping", ping);
      s.addReadyzCheck("informer-sync", failing("caches not synced"));
      s.addReadyzCheck("rejects", () => Promise.reject(new Error("nope")));
      s.addHealthzCheck("ping", ping);
    },
    async (addr) => {
      const res = await get(addr, "/readyz");
      assert.equal(res.status, 500);
      assert.equal(
        res.body,
        "[-]informer-sync failed: reason withheld\n[+]ping ok\n[-]rejects failed: reason withheld\nhealthz check failed\n",
      );
      const one = await get(addr, "/readyz/informer-sync");
      assert.equal(one.status, 500);
      assert.equal(one.body, "internal server error: caches not synced\n");
      assert.deepEqual(await get(addr, "/readyz/ping"), {
        status: 200,
        type: "text/plain; charset=utf-8",
        body: "ok",
      });
      assert.equal((await get(addr, "/healthz")).status, 200, "liveness has its own checks");
    },
    { logger },
  );
  const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const failure = logged.find((l) => l.msg === "healthz check failed" && l.checker === "informer-sync");
  assert.equal(failure?.error, "caches not synced");
  assert.equal(failure?.logger, "controller-runtime.healthz");
});

test("unknown check names are 404; other paths too", async () => {
  await withServer(
    (s) => s.addReadyzCheck("other", ping),
    async (addr) => {
      assert.equal((await get(addr, "/readyz/missing")).status, 404);
      assert.equal((await get(addr, "/readyz/other/extra")).status, 404);
      assert.equal((await get(addr, "/readyz/ping")).status, 404, "ping is only implicit without checks");
      assert.equal((await get(addr, "/healthz/ping")).status, 200, "liveness has no checks: implicit ping");
      assert.equal((await get(addr, "/metrics")).status, 404);
      assert.equal((await get(addr, "/readyzz")).status, 404);
    },
  );
});

test("?exclude skips checks, repeatable, and warns about names that match nothing", async () => {
  await withServer(
    (s) => {
      s.addReadyzCheck("a", failing("a is down"));
      s.addReadyzCheck("b", failing("b is down"));
      s.addReadyzCheck("c", ping);
    },
    async (addr) => {
      assert.equal((await get(addr, "/readyz?exclude=a")).status, 500);
      const both = await get(addr, "/readyz?exclude=a&exclude=b");
      assert.deepEqual([both.status, both.body], [200, "ok"]);
      const verbose = await get(addr, "/readyz?exclude=a&exclude=b&exclude=zz&verbose");
      assert.equal(
        verbose.body,
        "[+]a excluded: ok\n[+]b excluded: ok\n[+]c ok\n" +
          'warn: some health checks cannot be excluded: no matches for "zz"\nhealthz check passed\n',
      );
    },
  );
});

test("a check that hangs fails at the check timeout, and its signal is aborted", async () => {
  let aborted: unknown;
  await withServer(
    (s) => {
      s.addReadyzCheck("ok", ping);
      s.addReadyzCheck(
        "hangs",
        (_req, signal) =>
          new Promise<void>(() => {
            signal.addEventListener("abort", () => {
              aborted = signal.reason;
            });
          }),
      );
    },
    async (addr) => {
      const res = await get(addr, "/readyz");
      assert.equal(res.status, 500);
      assert.equal(res.body, "[-]hangs failed: reason withheld\n[+]ok ok\nhealthz check failed\n");
      assert.ok(aborted instanceof CheckTimeoutError);
      const one = await get(addr, "/readyz/hangs");
      assert.equal(one.body, "internal server error: check did not finish within 30ms\n");
    },
    { checkTimeoutMs: 30 },
  );
});

test("endpoint names are configurable", async () => {
  await withServer(
    (s) => s.addHealthzCheck("failing", failing("x")),
    async (addr) => {
      assert.equal((await get(addr, "/live")).status, 500);
      assert.equal((await get(addr, "/live/failing")).status, 500);
      assert.equal((await get(addr, "/ready")).status, 200);
      assert.equal((await get(addr, "/healthz")).status, 404);
    },
    { livenessEndpointName: "/live", readinessEndpointName: "/ready" },
  );
  assert.throws(() => newHealthProbeServer({ readinessEndpointName: "readyz" }), /must be a path like/);
  assert.throws(() => newHealthProbeServer({ livenessEndpointName: "/x/" }), /must be a path like/);
  assert.throws(
    () => newHealthProbeServer({ livenessEndpointName: "/a", readinessEndpointName: "/a" }),
    /must differ/,
  );
});

test("check names are unique per endpoint and contain no slash; checks can be added after start", async () => {
  await withServer(
    (s) => {
      s.addReadyzCheck("ping", ping);
      s.addHealthzCheck("ping", ping);
      assert.throws(() => s.addReadyzCheck("ping", ping), /readyz checker "ping" already exists/);
      assert.throws(() => s.addHealthzCheck("a/b", ping), CheckNameError);
      assert.throws(() => s.addHealthzCheck("", ping), CheckNameError);
    },
    async (addr, s) => {
      s.addReadyzCheck("late", failing("late"));
      assert.equal((await get(addr, "/readyz")).status, 500);
    },
  );
});

test('a disabled server ("0", "" or the default) opens no port', async () => {
  for (const bindAddress of ["0", "", undefined]) {
    const server = newHealthProbeServer({ bindAddress });
    assert.equal(server.disabled, true);
    server.addReadyzCheck("ping", ping);
    await server.start(new AbortController().signal);
    assert.equal(await server.listening(), undefined);
    assert.equal(server.address(), undefined);
    assert.equal(server.needLeaderElection(), false);
  }
});

test("cacheSyncedCheck and startedCheck", async () => {
  let synced = false;
  let started = false;
  await withServer(
    (s) => {
      s.addReadyzCheck(
        "cache-sync",
        cacheSyncedCheck(() => synced),
      );
      s.addReadyzCheck(
        "webhook",
        startedCheck("webhook server", () => started),
      );
    },
    async (addr) => {
      assert.equal(
        (await get(addr, "/readyz/cache-sync")).body,
        "internal server error: the caches have not synced yet\n",
      );
      assert.equal(
        (await get(addr, "/readyz/webhook")).body,
        "internal server error: the webhook server has not started yet\n",
      );
      synced = true;
      started = true;
      assert.equal((await get(addr, "/readyz")).status, 200);
    },
  );
  const waits = cacheSyncedCheck(async () => true);
  await waits({} as never, new AbortController().signal);
});
