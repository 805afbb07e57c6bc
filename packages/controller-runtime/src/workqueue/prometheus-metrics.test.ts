import assert from "node:assert/strict";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Registry } from "prom-client";
import { newFakeClock } from "./fake-clock.js";
import { LowPriority } from "./priority-queue.js";
import { newPriorityQueue } from "./queue.js";
import { prometheusWorkqueueMetrics } from "./prometheus-metrics.js";

/** The value of `metric` (or a histogram's `_sum`/`_count` line) with the given labels. */
async function value(
  registry: Registry,
  metric: string,
  labels: Record<string, string>,
  line = metric,
): Promise<number | undefined> {
  const m = registry.getSingleMetric(metric);
  assert.ok(m, `${metric} is registered`);
  const { values } = await m.get();
  // Histogram values carry the line they belong to (`_bucket`, `_sum`, `_count`) in metricName.
  const found = (values as { value: number; labels: object; metricName?: string }[]).find(
    (v) =>
      (v.metricName ?? metric) === line &&
      Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want),
  );
  return found?.value;
}

const ctrl = { name: "ctrl", controller: "ctrl" };

function setup() {
  const registry = new Registry();
  const clock = newFakeClock();
  const provider = prometheusWorkqueueMetrics(registry);
  const q = newPriorityQueue({ name: "ctrl", metricsProvider: provider, clock, agingThreshold: Infinity });
  return { registry, clock, provider, q };
}

test("depth by priority and adds follow adds, merges and gets", async () => {
  const { registry, q } = setup();
  q.add("a");
  q.add("b");
  q.add("a");
  q.add("c", { priority: LowPriority });
  assert.equal(await value(registry, "workqueue_adds_total", ctrl), 3, "a merged add is not counted");
  assert.equal(await value(registry, "workqueue_depth", { ...ctrl, priority: "0" }), 2);
  assert.equal(await value(registry, "workqueue_depth", { ...ctrl, priority: "-100" }), 1);
  q.add("c", { priority: 1 });
  assert.equal(
    await value(registry, "workqueue_depth", { ...ctrl, priority: "-100" }),
    0,
    "a raised key moves",
  );
  assert.equal(await value(registry, "workqueue_depth", { ...ctrl, priority: "1" }), 1);
  q.tryGet();
  assert.equal(await value(registry, "workqueue_depth", { ...ctrl, priority: "1" }), 0);
  q.tryGet();
  assert.equal(await value(registry, "workqueue_depth", { ...ctrl, priority: "0" }), 1);
  const text = await registry.metrics();
  assert.match(text, /workqueue_depth\{name="ctrl",controller="ctrl",priority="0"\} 1/);
});

test("queue duration, work duration and the unfinished-work gauges, read on scrape", async () => {
  const { registry, clock, q } = setup();
  q.add("a");
  q.add("b");
  clock.advance(2000);
  q.tryGet(); // a waited 2 s
  clock.advance(3000);
  q.tryGet(); // b waited 5 s
  const sum = "workqueue_queue_duration_seconds_sum";
  assert.equal(await value(registry, "workqueue_queue_duration_seconds", ctrl, sum), 7);
  clock.advance(1000);
  // a has run 4 s and b 1 s.
  assert.equal(await value(registry, "workqueue_unfinished_work_seconds", ctrl), 5);
  assert.equal(await value(registry, "workqueue_longest_running_processor_seconds", ctrl), 4);
  q.done("a");
  const workSum = "workqueue_work_duration_seconds_sum";
  assert.equal(await value(registry, "workqueue_work_duration_seconds", ctrl, workSum), 4);
  const le1 = await value(
    registry,
    "workqueue_work_duration_seconds",
    { ...ctrl, le: "1" },
    "workqueue_work_duration_seconds_bucket",
  );
  const le10 = await value(
    registry,
    "workqueue_work_duration_seconds",
    { ...ctrl, le: "10" },
    "workqueue_work_duration_seconds_bucket",
  );
  assert.deepEqual([le1, le10], [0, 1], "controller-runtime's buckets: ..., 1, 10, ... s");
  assert.equal(await value(registry, "workqueue_unfinished_work_seconds", ctrl), 1);
  q.done("b");
  assert.equal(await value(registry, "workqueue_unfinished_work_seconds", ctrl), 0);
  assert.equal(await value(registry, "workqueue_longest_running_processor_seconds", ctrl), 0);
});

test("retries count delayed and rate-limited adds", async () => {
  const { registry, q } = setup();
  q.add("a");
  assert.equal(await value(registry, "workqueue_retries_total", ctrl), 0);
  q.addAfter("b", 100);
  q.addRateLimited("c");
  assert.equal(await value(registry, "workqueue_retries_total", ctrl), 2);
  assert.equal(
    await value(registry, "workqueue_adds_total", ctrl),
    1,
    "delayed keys count as adds once ready",
  );
});

test("queues share one provider, each under its own name; a second provider on the same registry is refused", async () => {
  const { registry, provider, q } = setup();
  const other = newPriorityQueue({ name: "other", metricsProvider: provider, clock: newFakeClock() });
  q.add("a");
  other.add("x");
  other.add("y");
  assert.equal(await value(registry, "workqueue_adds_total", ctrl), 1);
  assert.equal(await value(registry, "workqueue_adds_total", { name: "other", controller: "other" }), 2);
  assert.throws(() => prometheusWorkqueueMetrics(registry), /one provider per registry/);
});

test("a queue without a name reports nothing", async () => {
  const registry = new Registry();
  const q = newPriorityQueue({
    metricsProvider: prometheusWorkqueueMetrics(registry),
    clock: newFakeClock(),
  });
  q.add("a");
  assert.equal(await value(registry, "workqueue_adds_total", ctrl), undefined);
});

test("queues sharing a name add up", async () => {
  const registry = new Registry();
  const provider = prometheusWorkqueueMetrics(registry);
  const clock = newFakeClock();
  const a = newPriorityQueue({ name: "ctrl", metricsProvider: provider, clock });
  const b = newPriorityQueue({ name: "ctrl", metricsProvider: provider, clock });
  a.add("x");
  b.add("x");
  b.add("y");
  assert.equal(await value(registry, "workqueue_depth", { ...ctrl, priority: "0" }), 3);
  assert.equal(await value(registry, "workqueue_adds_total", ctrl), 3);
  a.tryGet();
  b.tryGet();
  clock.advance(2000);
  assert.equal(await value(registry, "workqueue_unfinished_work_seconds", ctrl), 4);
  assert.equal(await value(registry, "workqueue_longest_running_processor_seconds", ctrl), 2);
  assert.equal(await value(registry, "workqueue_adds_total", ctrl), 3, "counts are flushed once");
});

test("a queue made again under its name shares its series; a dropped queue is no longer sampled", async () => {
  const registry = new Registry();
  const clock = newFakeClock();
  const provider = prometheusWorkqueueMetrics(registry);
  // A controller run: one key handed out and never done, then the queue is dropped.
  const run = () => {
    const q = newPriorityQueue({ name: "ctrl", metricsProvider: provider, clock, agingThreshold: Infinity });
    q.add("a");
    q.tryGet();
    q.shutDown();
  };
  run();
  clock.advance(2_000);
  assert.equal(
    await value(registry, "workqueue_unfinished_work_seconds", ctrl),
    2,
    "the live queue is sampled",
  );
  for (let i = 0; i < 99; i++) run();
  assert.equal(await value(registry, "workqueue_adds_total", ctrl), 100, "one series for every run");
  // WeakRefs made in this job stay alive until it ends: collect after a turn of the loop.
  await new Promise((resolve) => setImmediate(resolve));
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
  clock.advance(1_000);
  assert.equal(
    await value(registry, "workqueue_unfinished_work_seconds", ctrl),
    0,
    "queues that are gone are not sampled (nor kept alive by the provider)",
  );
});

test("past 25 priorities the depth is reported under exceeded_cardinality_limit, and still adds up", async () => {
  const { registry, q } = setup();
  for (let p = 0; p < 30; p++) q.add(`k${p}`, { priority: p });
  assert.equal(
    await value(registry, "workqueue_depth", { ...ctrl, priority: "exceeded_cardinality_limit" }),
    30,
  );
  assert.equal(await value(registry, "workqueue_depth", { ...ctrl, priority: "3" }), 0, "moved there");
  for (let i = 0; i < 30; i++) {
    const r = q.tryGet();
    assert.ok(r && !r.shutdown);
    q.done(r.key);
  }
  assert.equal(
    await value(registry, "workqueue_depth", { ...ctrl, priority: "exceeded_cardinality_limit" }),
    0,
  );
});
