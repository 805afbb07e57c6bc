// The controller's reconcile semantics against the embedded API server: per-key exclusion, changes
// during a reconcile, backoff, requeueAfter, terminal errors, panics, timeouts, metrics, shutdown.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { kinds } from "../api/index.js";
import type { Environment } from "../envtest/index.js";
import { enqueueRequestForObject } from "../handler/index.js";
import { type Request, reconcilerFn, requestKey, terminalError } from "../reconcile/index.js";
import type { RESTClient } from "../rest/index.js";
import { kind } from "../source/index.js";
import { itemExponentialFailureRateLimiter, type RateLimiter } from "../workqueue/index.js";
import {
  type ControllerOptions,
  InvalidControllerNameError,
  newController,
  ReconciliationTimeoutError,
} from "./index.js";
import {
  deferred,
  type Harness,
  metricValue,
  newHarness,
  startEnv,
} from "../../../../test/support/controller-harness.js";
import { until } from "../../../../test/support/objects.js";

let env: Environment;
let rest: RESTClient;
before(async () => {
  ({ env, rest } = await startEnv());
});
after(async () => {
  await rest.close();
  await env.stop();
});

/** A ConfigMap controller in the harness's namespace, started; resolves once its sources synced. */
async function runController(h: Harness, name: string, options: ControllerOptions) {
  const c = newController(name, h.ctx, options);
  await c.watch(kind(h.cache, kinds.ConfigMap, enqueueRequestForObject()));
  const stop = new AbortController();
  const done = c.start(AbortSignal.any([h.signal, stop.signal]));
  return {
    c,
    done,
    stop: () => {
      stop.abort();
      return done;
    },
  };
}

/** Records every `when` of a per-key exponential limiter (base 1 ms) and every `forget`. */
function recordingLimiter(): RateLimiter<string> & { delays: [string, number][]; forgotten: string[] } {
  const inner = itemExponentialFailureRateLimiter<string>({ baseDelayMs: 1, maxDelayMs: 1000 });
  const delays: [string, number][] = [];
  const forgotten: string[] = [];
  return {
    delays,
    forgotten,
    when(key) {
      const d = inner.when(key);
      delays.push([key, d]);
      return d;
    },
    forget(key) {
      forgotten.push(key);
      inner.forget(key);
    },
    numRequeues: (key) => inner.numRequeues(key),
  };
}

test("a key is never reconciled by two workers at once, even with 8 workers and a storm of updates", async (t) => {
  const h = await newHarness(t, env, rest);
  const names = ["a", "b", "c", "d"];
  for (const n of names) await h.createConfigMap(n);
  const inFlight = new Set<string>();
  const violations: string[] = [];
  const lastSeen = new Map<string, bigint>();
  const run = await runController(h, "storm", {
    maxConcurrentReconciles: 8,
    reconciler: reconcilerFn(async (req: Request) => {
      const key = requestKey(req);
      if (inFlight.has(key)) violations.push(key);
      inFlight.add(key);
      try {
        const cm = await h.cache.get(kinds.ConfigMap, req);
        await new Promise((r) => setTimeout(r, Math.random() * 3));
        lastSeen.set(req.name, BigInt(cm.metadata!.resourceVersion!));
      } finally {
        inFlight.delete(key);
      }
    }),
  });
  const finals = await Promise.all(
    names.map(async (n) => {
      let last = 0n;
      for (let i = 0; i < 25; i++) last = BigInt((await h.touch(n, String(i))).metadata!.resourceVersion!);
      return [n, last] as const;
    }),
  );
  // Level-triggered: each key's last reconcile saw its last write.
  await until("every object reconciled at its last version", () =>
    finals.every(([n, rv]) => (lastSeen.get(n) ?? 0n) >= rv),
  );
  assert.deepEqual(violations, []);
  await run.stop();
});

test("a change made during a reconcile causes exactly one more reconcile", async (t) => {
  const h = await newHarness(t, env, rest);
  const counts = new Map<string, number>();
  const firstStarted = deferred();
  const release = deferred();
  const secondDone = deferred();
  const sentinelDone = deferred();
  const run = await runController(h, "during", {
    reconciler: reconcilerFn(async (req: Request) => {
      const n = (counts.get(req.name) ?? 0) + 1;
      counts.set(req.name, n);
      if (req.name === "sentinel") return sentinelDone.resolve();
      if (n === 1) {
        firstStarted.resolve();
        await release.promise;
      } else if (n === 2) secondDone.resolve();
    }),
  });
  await until("the cache synced", () => h.cache.hasSynced());
  await h.createConfigMap("a");
  await firstStarted.promise;
  let last = await h.touch("a", "1");
  last = await h.touch("a", "2");
  last = await h.touch("a", "3");
  await h.cached(kinds.ConfigMap, last); // the three events reached the queue while "a" was busy
  release.resolve();
  await secondDone.promise;
  // One worker and one priority: the sentinel comes after any further reconcile of "a".
  await h.createConfigMap("sentinel");
  await sentinelDone.promise;
  assert.equal(counts.get("a"), 2);
  await run.stop();
});

test("errors are retried with exponential backoff, then the key's backoff is forgotten on success", async (t) => {
  const h = await newHarness(t, env, rest);
  const limiter = recordingLimiter();
  let attempts = 0;
  const succeeded = deferred();
  const run = await runController(h, "backoff", {
    rateLimiter: limiter,
    reconciler: reconcilerFn(async () => {
      attempts++;
      if (attempts <= 5) throw new Error(`attempt ${attempts} failed`);
      succeeded.resolve();
    }),
  });
  await h.createConfigMap("flaky");
  await succeeded.promise;
  const key = `${h.ns}/flaky`;
  assert.deepEqual(
    limiter.delays.filter(([k]) => k === key).map(([, d]) => d),
    [1, 2, 4, 8, 16],
  );
  // The success is handled once the reconciler returned: the key's backoff is forgotten.
  await until("the key forgotten by the rate limiter", () => limiter.forgotten.includes(key));
  assert.equal(limiter.numRequeues(key), 0);
  const labels = { controller: "backoff" };
  assert.equal(await metricValue(h.registry, "controller_runtime_reconcile_errors_total", labels), 5);
  assert.equal(
    await metricValue(h.registry, "controller_runtime_reconcile_total", { ...labels, result: "error" }),
    5,
  );
  assert.equal(
    await metricValue(h.registry, "controller_runtime_reconcile_total", { ...labels, result: "success" }),
    1,
  );
  assert.equal(await metricValue(h.registry, "workqueue_retries_total", { name: "backoff" }), 5);
  assert.ok(h.lines.some((l) => l.msg === "Reconciler error" && l.error === "attempt 1 failed"));
  await run.stop();
});

test("requeueAfter reconciles again after the delay and counts as requeue_after", async (t) => {
  const h = await newHarness(t, env, rest);
  const limiter = recordingLimiter();
  let calls = 0;
  const second = deferred();
  const run = await runController(h, "requeue-after", {
    rateLimiter: limiter,
    reconciler: reconcilerFn(async () => {
      calls++;
      if (calls === 1) return { requeueAfter: 20 };
      second.resolve();
    }),
  });
  await h.createConfigMap("later");
  await second.promise;
  assert.equal(calls, 2);
  assert.deepEqual(limiter.delays, []); // a plan, not a failure: no backoff
  const labels = { controller: "requeue-after" };
  assert.equal(
    await metricValue(h.registry, "controller_runtime_reconcile_total", {
      ...labels,
      result: "requeue_after",
    }),
    1,
  );
  await run.stop();
});

test("a TerminalError is counted and logged but not retried", async (t) => {
  const h = await newHarness(t, env, rest);
  const limiter = recordingLimiter();
  let calls = 0;
  const failed = deferred();
  const run = await runController(h, "terminal", {
    rateLimiter: limiter,
    reconciler: reconcilerFn(async () => {
      calls++;
      failed.resolve();
      throw terminalError(new Error("spec.size must be positive"));
    }),
  });
  await h.createConfigMap("bad");
  await failed.promise;
  const labels = { controller: "terminal" };
  // The result is handled (and counted) before the worker takes another key.
  await until(
    "the terminal error is counted",
    async () =>
      (await metricValue(h.registry, "controller_runtime_terminal_reconcile_errors_total", labels)) === 1,
  );
  assert.equal(await metricValue(h.registry, "controller_runtime_reconcile_errors_total", labels), 1);
  assert.deepEqual(limiter.delays, []);
  assert.equal(calls, 1);
  assert.ok(h.lines.some((l) => l.msg === "Reconciler error" && String(l.error).includes("terminal error")));
  await run.stop();
});

test("a throw of a non-Error (a panic) is recovered, counted, retried, and the controller keeps running", async (t) => {
  const h = await newHarness(t, env, rest);
  let calls = 0;
  const ok = deferred();
  const run = await runController(h, "panics", {
    rateLimiter: recordingLimiter(),
    reconciler: reconcilerFn(async () => {
      calls++;
      if (calls === 1) throw "boom";
      if (calls === 2) {
        const missing = undefined as unknown as { field: string };
        return { requeueAfter: missing.field.length }; // TypeError: a bug
      }
      ok.resolve();
    }),
  });
  await h.createConfigMap("p");
  await ok.promise;
  const labels = { controller: "panics" };
  assert.equal(await metricValue(h.registry, "controller_runtime_reconcile_panics_total", labels), 2);
  assert.equal(await metricValue(h.registry, "controller_runtime_reconcile_errors_total", labels), 2);
  assert.ok(h.lines.some((l) => l.msg === "Reconciler error" && l.error === "panic: boom [recovered]"));
  await run.stop();
});

test("reconciliationTimeoutMs aborts the reconcile's signal and is counted", async (t) => {
  const h = await newHarness(t, env, rest);
  const reasons: unknown[] = [];
  const done = deferred();
  const run = await runController(h, "timeout", {
    reconciliationTimeoutMs: 30,
    reconciler: reconcilerFn(async (_req, { signal }) => {
      await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
      reasons.push(signal.reason);
      done.resolve();
    }),
  });
  await h.createConfigMap("slow");
  await done.promise;
  assert.ok(reasons[0] instanceof ReconciliationTimeoutError);
  await until(
    "the timeout is counted",
    async () =>
      (await metricValue(h.registry, "controller_runtime_reconcile_timeouts_total", {
        controller: "timeout",
      })) === 1,
  );
  await run.stop();
});

test("shutdown waits for the reconcile in flight, whose signal is aborted; the logs follow controller-runtime", async (t) => {
  const h = await newHarness(t, env, rest);
  const started = deferred<AbortSignal>();
  const release = deferred();
  let finished = false;
  const run = await runController(h, "graceful", {
    reconciler: reconcilerFn(async (_req, ctx) => {
      ctx.logger.info("reconciling in test");
      started.resolve(ctx.signal);
      await release.promise; // ignores the signal on purpose
      finished = true;
    }),
  });
  await h.createConfigMap("inflight");
  const signal = await started.promise;
  let stopped = false;
  const stopping = run.stop().then(() => {
    stopped = true;
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(signal.aborted, true);
  assert.equal(stopped, false);
  release.resolve();
  await stopping;
  assert.equal(finished, true);
  const msgs = h.lines.filter((l) => l.controller === "graceful").map((l) => l.msg);
  assert.deepEqual(
    msgs.filter((m) => m !== "reconciling in test"),
    [
      "Starting EventSource",
      "Starting Controller",
      "Starting workers",
      "Shutdown signal received, waiting for all workers to finish",
      "All workers finished",
    ],
  );
  const workers = h.lines.find((l) => l.msg === "Starting workers");
  assert.equal(workers?.["worker count"], 1);
  const inReconcile = h.lines.find((l) => l.msg === "reconciling in test")!;
  assert.equal(inReconcile.namespace, h.ns);
  assert.equal(inReconcile.name, "inflight");
  assert.match(String(inReconcile.reconcileID), /^[0-9a-f-]{36}$/);
  assert.equal(
    await metricValue(h.registry, "controller_runtime_max_concurrent_reconciles", { controller: "graceful" }),
    1,
  );
  assert.equal(
    await metricValue(h.registry, "controller_runtime_active_workers", { controller: "graceful" }),
    0,
  );
});

test("at verbosity 5 each reconcile writes its start and end with its request and reconcileID", async (t) => {
  const h = await newHarness(t, env, rest, { logLevel: 5 });
  const run = await runController(h, "chatty", { reconciler: reconcilerFn(async () => {}) });
  await h.createConfigMap("talk");
  const lines = () => h.lines.filter((l) => l.controller === "chatty" && l.name === "talk");
  await until("the reconcile's end is logged", () => lines().some((l) => l.msg === "Reconcile successful"));
  const [start, end] = [lines().find((l) => l.msg === "Reconciling")!, lines().at(-1)!];
  assert.equal(start.namespace, h.ns);
  assert.match(String(start.reconcileID), /^[0-9a-f-]{36}$/);
  assert.equal(end.msg, "Reconcile successful");
  assert.equal(end.reconcileID, start.reconcileID);
  assert.equal(end.v, 5);
  await run.stop();
});

test("controller names are unique per context unless skipNameValidation is set", async (t) => {
  const h = await newHarness(t, env, rest);
  const reconciler = reconcilerFn(async () => {});
  newController("same", h.ctx, { reconciler });
  assert.throws(() => newController("same", h.ctx, { reconciler }), InvalidControllerNameError);
  newController("same", h.ctx, { reconciler, skipNameValidation: true });
  assert.throws(() => newController("", h.ctx, { reconciler }), InvalidControllerNameError);
});
