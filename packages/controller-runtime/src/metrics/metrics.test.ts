import assert from "node:assert/strict";
import { Counter } from "prom-client";
import { test } from "node:test";
import { controllerMetrics } from "./controller-metrics.js";
import { leaderElectionMetrics } from "./leader-election-metrics.js";
import { getOrCreateCounter, getOrCreateGauge, MetricConflictError, newMetricsRegistry } from "./registry.js";
import { restClientMetrics } from "./rest-client-metrics.js";
import { webhookMetrics } from "./webhook-metrics.js";

test("a new registry holds Node's process metrics", async () => {
  const text = await newMetricsRegistry().metrics();
  for (const name of [
    "process_cpu_seconds_total",
    "process_resident_memory_bytes",
    "process_start_time_seconds",
    "nodejs_eventloop_lag_seconds",
    "nodejs_heap_size_used_bytes",
  ]) {
    assert.match(text, new RegExp(`^# TYPE ${name} `, "m"), `${name} is exported`);
  }
});

test("every registry shares the process's one set of process metrics (one GC observer, one loop monitor)", () => {
  const a = newMetricsRegistry();
  const b = newMetricsRegistry();
  for (const name of [
    "nodejs_gc_duration_seconds",
    "nodejs_eventloop_lag_seconds",
    "process_cpu_seconds_total",
  ]) {
    assert.ok(a.getSingleMetric(name), `${name} is registered`);
    assert.equal(a.getSingleMetric(name), b.getSingleMetric(name), `${name} is one metric`);
  }
});

test("two registries are independent: same names, separate values, no clash", async () => {
  const a = newMetricsRegistry();
  const b = newMetricsRegistry();
  const ca = controllerMetrics(a);
  controllerMetrics(b);
  ca.reconcileTotal.inc({ controller: "only-in-a", result: "success" });
  assert.match(
    await a.metrics(),
    /controller_runtime_reconcile_total\{controller="only-in-a",result="success"\} 1/,
  );
  assert.doesNotMatch(await b.metrics(), /only-in-a/);
});

test("metric factories are get-or-create per registry", async () => {
  const registry = newMetricsRegistry();
  assert.equal(controllerMetrics(registry).reconcileTime, controllerMetrics(registry).reconcileTime);
  const spec = { name: "x_total", help: "x", labelNames: ["a"] as const };
  assert.equal(getOrCreateCounter(registry, spec), getOrCreateCounter(registry, spec));
  assert.ok(getOrCreateCounter(registry, spec) instanceof Counter);
  assert.throws(() => getOrCreateGauge(registry, spec), MetricConflictError);
  assert.throws(
    () => getOrCreateCounter(registry, { ...spec, labelNames: ["b"] }),
    /x_total is already registered as a Counter with labels \[a\]; wanted a Counter with labels \[b\]/,
  );
  // Two REST clients of one manager count into the same series.
  const info = { method: "GET", host: "h:1", code: 200, durationSeconds: 0.1 };
  restClientMetrics(registry).observe(info);
  restClientMetrics(registry).observe(info);
  assert.match(
    await registry.metrics(),
    /^rest_client_requests_total\{code="200",method="GET",host="h:1"\} 2$/m,
  );
});

test("REST client metrics: client-go's names, labels and buckets", async () => {
  const registry = newMetricsRegistry();
  const { observe } = restClientMetrics(registry);
  observe({ method: "GET", host: "10.0.0.1:6443", code: 200, durationSeconds: 0.02 });
  observe({ method: "GET", host: "10.0.0.1:6443", code: 200, durationSeconds: 3 });
  observe({ method: "PUT", host: "10.0.0.1:6443", code: "<error>", durationSeconds: 0.5 });
  const text = await registry.metrics();
  assert.match(text, /^rest_client_requests_total\{code="200",method="GET",host="10.0.0.1:6443"\} 2$/m);
  assert.match(text, /^rest_client_requests_total\{code="<error>",method="PUT",host="10.0.0.1:6443"\} 1$/m);
  assert.match(
    text,
    /^rest_client_request_duration_seconds_bucket\{le="0.025",verb="GET",host="10.0.0.1:6443"\} 1$/m,
  );
  assert.match(
    text,
    /^rest_client_request_duration_seconds_bucket\{le="4",verb="GET",host="10.0.0.1:6443"\} 2$/m,
  );
  assert.match(text, /^rest_client_request_duration_seconds_count\{verb="PUT",host="10.0.0.1:6443"\} 1$/m);
});

test("controller metrics: initialize sets every series of a controller", async () => {
  const registry = newMetricsRegistry();
  const m = controllerMetrics(registry);
  m.initialize("bucket", 3);
  m.reconcileTime.observe({ controller: "bucket" }, 0.12);
  const text = await registry.metrics();
  for (const result of ["success", "error", "requeue", "requeue_after"]) {
    assert.match(
      text,
      new RegExp(`^controller_runtime_reconcile_total\\{controller="bucket",result="${result}"\\} 0$`, "m"),
    );
  }
  for (const name of [
    "controller_runtime_reconcile_errors_total",
    "controller_runtime_terminal_reconcile_errors_total",
    "controller_runtime_reconcile_panics_total",
    "controller_runtime_reconcile_timeouts_total",
    "controller_runtime_active_workers",
  ]) {
    assert.match(text, new RegExp(`^${name}\\{controller="bucket"\\} 0$`, "m"));
  }
  assert.match(text, /^controller_runtime_max_concurrent_reconciles\{controller="bucket"\} 3$/m);
  assert.match(text, /^# TYPE controller_runtime_reconcile_time_seconds histogram$/m);
  assert.match(
    text,
    /^controller_runtime_reconcile_time_seconds_bucket\{le="0.15",controller="bucket"\} 1$/m,
  );
  assert.match(text, /^controller_runtime_reconcile_time_seconds_bucket\{le="60",controller="bucket"\} 1$/m);
});

test("leader election and webhook metrics carry controller-runtime's names", async () => {
  const registry = newMetricsRegistry();
  leaderElectionMetrics(registry).setLeader("63ffe61d.example.com", true);
  const w = webhookMetrics(registry);
  w.requestTotal.inc({ webhook: "/validate-v1-pod", code: "200" });
  w.requestLatency.observe({ webhook: "/validate-v1-pod" }, 0.003);
  w.requestsInFlight.inc({ webhook: "/validate-v1-pod" });
  w.panics.inc();
  const text = await registry.metrics();
  assert.match(text, /^leader_election_master_status\{name="63ffe61d.example.com"\} 1$/m);
  assert.match(text, /^# TYPE leader_election_slowpath_total counter$/m);
  assert.match(
    text,
    /^controller_runtime_webhook_requests_total\{webhook="\/validate-v1-pod",code="200"\} 1$/m,
  );
  assert.match(
    text,
    /^controller_runtime_webhook_latency_seconds_bucket\{le="0.005",webhook="\/validate-v1-pod"\} 1$/m,
  );
  assert.match(text, /^controller_runtime_webhook_requests_in_flight\{webhook="\/validate-v1-pod"\} 1$/m);
  assert.match(text, /^controller_runtime_webhook_panics_total 1$/m);
});

test("reconcile counts are plain numbers until the registry is read, then exact", async () => {
  const registry = newMetricsRegistry();
  const a = controllerMetrics(registry).reconcileCounts("a");
  // A second call on the same registry (another controller) shares the metrics and their flushing.
  const b = controllerMetrics(registry).reconcileCounts("b");
  for (let i = 0; i < 3; i++) a.results.success.inc();
  b.results.error.inc();
  a.activeWorkers.inc();
  a.activeWorkers.inc();
  a.activeWorkers.dec();
  const first = await registry.metrics();
  assert.match(first, /^controller_runtime_reconcile_total\{controller="a",result="success"\} 3$/m);
  assert.match(first, /^controller_runtime_reconcile_total\{controller="b",result="error"\} 1$/m);
  assert.match(first, /^controller_runtime_active_workers\{controller="a"\} 1$/m);
  // Read again: nothing counted twice; then more on top.
  a.results.success.inc();
  a.activeWorkers.dec();
  const second = await registry.metrics();
  assert.match(second, /^controller_runtime_reconcile_total\{controller="a",result="success"\} 4$/m);
  assert.match(second, /^controller_runtime_reconcile_total\{controller="b",result="error"\} 1$/m);
  assert.match(second, /^controller_runtime_active_workers\{controller="a"\} 0$/m);
  // get() (the JSON read) flushes too.
  b.results.error.inc();
  const total = await controllerMetrics(registry).reconcileTotal.get();
  const bError = total.values.find((v) => v.labels.controller === "b" && v.labels.result === "error");
  assert.equal(bError?.value, 2);
});
