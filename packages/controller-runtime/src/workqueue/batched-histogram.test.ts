import assert from "node:assert/strict";
import { test } from "node:test";
import { Histogram, Registry } from "prom-client";
import { BatchedHistogram } from "./batched-histogram.js";

const buckets = [0.001, 0.01, 0.1, 1];
const values = [0, 0.0005, 0.001, 0.002, 0.05, 0.1, 0.5, 1, 2, 100, 0.01];

async function text(make: (registry: Registry) => (v: number) => void, reads: number[]): Promise<string> {
  const registry = new Registry();
  const observe = make(registry);
  let out = "";
  for (const [i, v] of values.entries()) {
    observe(v);
    if (reads.includes(i)) out += await registry.metrics();
  }
  return out + (await registry.metrics()) + JSON.stringify(await registry.getMetricsAsJSON());
}

test("a batched histogram reads the same as one observed directly, across reads and a reset", async () => {
  const spec = { name: "h_seconds", help: "h", labelNames: ["controller"] as const, buckets };
  const direct = await text(
    (registry) => {
      const h = new Histogram({ ...spec, registers: [registry] });
      h.zero({ controller: "a" });
      return (v) => h.observe({ controller: "a" }, v);
    },
    [2, 6],
  );
  const batched = await text(
    (registry) => {
      const h = new BatchedHistogram({ ...spec, registers: [registry] });
      const r = h.recorder({ controller: "a" });
      return (v) => r.observe(v);
    },
    [2, 6],
  );
  assert.equal(batched, direct);
  assert.match(batched, /^h_seconds_bucket\{le="0.01",controller="a"\} 5$/m);

  const h = new BatchedHistogram({ ...spec, registers: [] });
  const r = h.recorder({ controller: "b" });
  r.observe(0.5);
  h.reset();
  r.observe(0.5);
  h.observe({ controller: "b" }, 0.005);
  const { values: after } = await h.get();
  const count = after.find((v) => v.metricName === "h_seconds_count");
  assert.equal(count?.value, 2, "reset drops what was counted before it; direct observations still add");
  assert.throws(() => r.observe(Number.NaN), TypeError);
});
