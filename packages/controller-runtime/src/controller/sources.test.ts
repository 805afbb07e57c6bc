// Controllers with each kind of source against the embedded API server: a channel source with a
// map function (the StorageBucket ticker), owner references, predicates, a kind the server does
// not serve, sources added after the start, warm-up, and panics that are not recovered.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap, Secret } from "kubernetes-types/core/v1.js";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import { defineKind, kinds } from "../api/index.js";
import type { Environment } from "../envtest/index.js";
import type { GenericEvent } from "../event/index.js";
import {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  funcs,
} from "../handler/index.js";
import { generationChanged } from "../predicate/index.js";
import { type Request, reconcilerFn, requestKey, requestOf } from "../reconcile/index.js";
import { type RESTClient, resourceOf } from "../rest/index.js";
import { channel, KindSyncTimeoutError, kind, newChannel } from "../source/index.js";
import { newController, SourceSyncError } from "./index.js";
import { newHarness, startEnv } from "../../../../test/support/controller-harness.js";
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

/** A reconciler recording the keys it saw. */
function recording() {
  const seen: string[] = [];
  return { seen, reconciler: reconcilerFn(async (req: Request) => void seen.push(requestKey(req))) };
}

test("a ticker's object-less GenericEvents through a channel source and a map func reconcile every object (the StorageBucket pattern)", async (t) => {
  const h = await newHarness(t, env, rest);
  for (const n of ["bucket-1", "bucket-2", "bucket-3"]) await h.createConfigMap(n);
  const ticks = newChannel<GenericEvent>();
  const { seen, reconciler } = recording();
  const c = newController("buckets", h.ctx, { reconciler });
  const allBuckets = enqueueRequestsFromMapFunc(async (obj, ctx) => {
    assert.equal(obj, undefined);
    const list = await h.cache.list(kinds.ConfigMap, { inNamespace: h.ns });
    ctx.logger.info("mapped", { count: list.items.length });
    return list.items.filter((cm) => cm.metadata?.name?.startsWith("bucket-")).map((cm) => requestOf(cm));
  });
  await c.watch(channel(ticks, allBuckets));
  const done = c.start(h.signal);
  await ticks.send({}); // waits for the source to subscribe (capacity 0), as a Go channel would
  const want = ["bucket-1", "bucket-2", "bucket-3"].map((n) => `${h.ns}/${n}`);
  await until("every wanted request seen", () => want.every((k) => seen.includes(k)));
  // A second tick reconciles every bucket again.
  const before = seen.length;
  await ticks.send({});
  await until("three more requests", () => seen.length >= before + 3);
  ticks.close();
  t.after(() => done);
});

test("every channel source reading one Channel gets every event (fan-out), and a GenericEvent can carry an object", async (t) => {
  const h = await newHarness(t, env, rest);
  const events = newChannel<GenericEvent<ConfigMap>>();
  const a = recording();
  const b = recording();
  const ca = newController("fan-a", h.ctx, { reconciler: a.reconciler });
  const cb = newController("fan-b", h.ctx, { reconciler: b.reconciler });
  await ca.watch(channel(events, enqueueRequestForObject<ConfigMap>(), { bufferSize: 1 }));
  await cb.watch(channel(events, enqueueRequestForObject<ConfigMap>(), { bufferSize: 1 }));
  const done = Promise.all([ca.start(h.signal), cb.start(h.signal)]);
  t.after(() => done);
  await until("the channel takes the event", () =>
    events.trySend({ object: { metadata: { name: "x", namespace: h.ns } } }),
  );
  await until("both controllers see x", () => a.seen.includes(`${h.ns}/x`) && b.seen.includes(`${h.ns}/x`));
});

test("enqueueRequestForOwner reconciles the owner when an owned object is created or changed", async (t) => {
  const h = await newHarness(t, env, rest);
  const owner = await h.createConfigMap("owner");
  const { seen, reconciler } = recording();
  const c = newController("owners", h.ctx, { reconciler });
  await c.watch(
    kind(h.cache, kinds.Secret, enqueueRequestForOwner(kinds.ConfigMap, { onlyControllerOwner: true })),
  );
  const done = c.start(h.signal);
  t.after(() => done);
  const ref = {
    apiVersion: "v1",
    kind: "ConfigMap",
    name: "owner",
    uid: owner.metadata!.uid!,
    controller: true,
  };
  const secret = await rest.create<Secret>(
    resourceOf(kinds.Secret),
    { metadata: { name: "owned", namespace: h.ns, ownerReferences: [ref] }, stringData: { a: "1" } },
    { namespace: h.ns },
  );
  await until("the owner enqueued", () => seen.includes(`${h.ns}/owner`));
  assert.ok(!seen.includes(`${h.ns}/owned`));
  const count = seen.length;
  await rest.patch(
    resourceOf(kinds.Secret),
    secret.metadata!.name!,
    { stringData: { a: "2" } },
    {
      namespace: h.ns,
      patchType: "merge",
    },
  );
  await until("one more request", () => seen.length > count);
  assert.deepEqual(new Set(seen), new Set([`${h.ns}/owner`]));
});

test("generationChanged lets spec changes through and drops status-only updates", async (t) => {
  const h = await newHarness(t, env, rest);
  const passed: string[] = [];
  const { seen, reconciler } = recording();
  const c = newController("generations", h.ctx, { reconciler });
  const inner = enqueueRequestForObject<Deployment>();
  const handler = funcs<Deployment>({
    create(e, q, ctx) {
      passed.push("create");
      return inner.create(e, q, ctx);
    },
    update(e, q, ctx) {
      passed.push("update");
      return inner.update(e, q, ctx);
    },
  });
  await c.watch(kind(h.cache, kinds.Deployment, handler, generationChanged()));
  const done = c.start(h.signal);
  t.after(() => done);
  const res = resourceOf(kinds.Deployment);
  const labels = { app: "web" };
  let d = await rest.create<Deployment>(
    res,
    {
      metadata: { name: "web", namespace: h.ns },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "nginx" }] } },
      },
    },
    { namespace: h.ns },
  );
  await until("web enqueued", () => seen.includes(`${h.ns}/web`));
  d = await rest.update<Deployment>(
    res,
    { ...d, status: { observedGeneration: 1, replicas: 0 } },
    {
      namespace: h.ns,
      subresource: "status",
    },
  );
  assert.equal(d.metadata?.generation, 1);
  await h.cached(kinds.Deployment, d); // the informer has handled the status update
  assert.deepEqual(passed, ["create"]);
  d = await rest.update<Deployment>(res, { ...d, spec: { ...d.spec!, replicas: 2 } }, { namespace: h.ns });
  assert.equal(d.metadata?.generation, 2);
  await h.cached(kinds.Deployment, d);
  assert.deepEqual(passed, ["create", "update"]);
});

test("a kind the server does not serve fails the start with an error naming it after cacheSyncTimeoutMs", async (t) => {
  const h = await newHarness(t, env, rest);
  const Ghost = defineKind({ group: "ghosts.example.com", version: "v1", kind: "Ghost" });
  const c = newController("ghosts", h.ctx, {
    // Long enough that the list's 404, which the message names, came back first on a loaded
    // machine (300 ms failed once under a full suite run).
    cacheSyncTimeoutMs: 2_000,
    reconciler: reconcilerFn(async () => {}),
  });
  await c.watch(kind(h.cache, Ghost, enqueueRequestForObject()));
  const stop = new AbortController();
  t.after(() => stop.abort());
  const err = await c.start(AbortSignal.any([h.signal, stop.signal])).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof SourceSyncError, String(err));
  assert.ok(err.cause instanceof KindSyncTimeoutError);
  assert.match(err.message, /ghosts\.example\.com\/v1, Kind=Ghost/);
  assert.match(
    err.message,
    /no CRD serves ghosts\.example\.com\/v1 Ghost \(its list answered 404 NotFound\); install it/,
  );
  assert.ok(h.lines.some((l) => l.msg === "Could not wait for Cache to sync" && l.controller === "ghosts"));
});

test("a source added after the start starts at once", async (t) => {
  const h = await newHarness(t, env, rest);
  const { seen, reconciler } = recording();
  const c = newController("late", h.ctx, { reconciler });
  const done = c.start(h.signal);
  t.after(() => done);
  await until("the late controller's workers started", () =>
    h.lines.some((l) => l.msg === "Starting workers" && l.controller === "late"),
  );
  const ch = newChannel<GenericEvent>({ capacity: 1 });
  await c.watch(
    channel(
      ch,
      enqueueRequestsFromMapFunc(() => [{ namespace: h.ns, name: "late" }]),
    ),
  );
  await ch.send({});
  await until("late enqueued", () => seen.includes(`${h.ns}/late`));
});

test("warmup starts the sources without reconciling; start then reconciles what they queued", async (t) => {
  const h = await newHarness(t, env, rest);
  await h.createConfigMap("warm");
  const { seen, reconciler } = recording();
  const c = newController("warm", h.ctx, { reconciler, enableWarmup: true });
  await c.watch(kind(h.cache, kinds.ConfigMap, enqueueRequestForObject()));
  await c.warmup(h.signal);
  assert.ok(h.cache.hasSynced());
  assert.equal(seen.length, 0);
  const done = c.start(h.signal);
  t.after(() => done);
  await until("warm enqueued", () => seen.includes(`${h.ns}/warm`));
});

test("with recoverPanic off, a panic stops the controller and start rejects with it", async (t) => {
  const h = await newHarness(t, env, rest);
  const c = newController("fatal", h.ctx, {
    recoverPanic: false,
    reconciler: reconcilerFn(async () => {
      throw "unrecoverable";
    }),
  });
  await c.watch(kind(h.cache, kinds.ConfigMap, enqueueRequestForObject()));
  // The rejection is awaited before the create: the watch event may reach the controller before the
  // create's own answer reaches the test, and a rejection nobody awaits yet is an unhandled one.
  const rejected = assert.rejects(c.start(h.signal), (e: unknown) => e === "unrecoverable");
  await h.createConfigMap("x");
  await rejected;
});
