// The profiling server of pprofBindAddress: a CPU profile for the seconds asked, V8's heap
// statistics, the start of a heap snapshot; off by default.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { request } from "undici";
import { nullLogger } from "../log/index.js";
import type { RESTConfig } from "../rest/index.js";
import { Manager } from "./index.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const env = testEnvironment();
let config: RESTConfig;
before(async () => {
  config = await env.start();
});
after(() => env.stop());

test("pprofBindAddress serves CPU profiles, heap statistics and heap snapshots", async () => {
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    pprofBindAddress: "127.0.0.1:0",
  });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  try {
    const { port } = (await mgr.getPprofServer().listening())!;
    const base = `http://127.0.0.1:${port}/debug/pprof`;
    const index = await request(`${base}/`);
    assert.match(await index.body.text(), /profile\?seconds=30/);
    const cpu = await request(`${base}/profile?seconds=0.2`);
    assert.equal(cpu.statusCode, 200);
    const profile = (await cpu.body.json()) as { nodes: unknown[]; startTime: number; endTime: number };
    assert.ok(profile.nodes.length > 0 && profile.endTime > profile.startTime, "a V8 CPU profile");
    const bad = await request(`${base}/profile?seconds=0`);
    assert.equal(bad.statusCode, 400);
    await bad.body.dump();
    const stats = (await (await request(`${base}/heapstats`)).body.json()) as {
      heap: { used_heap_size: number };
    };
    assert.ok(stats.heap.used_heap_size > 0);
    const heap = await request(`${base}/heap`);
    assert.equal(heap.statusCode, 200);
    let first = "";
    for await (const chunk of heap.body) {
      first += chunk.toString();
      if (first.length > 20) break;
    }
    assert.match(first, /^\{"snapshot":/);
  } finally {
    stop.abort();
    await running;
  }
  const off = await Manager.create(config, { logger: nullLogger(), metrics: { bindAddress: "0" } });
  assert.equal(off.getPprofServer().disabled, true, "off by default");
});
