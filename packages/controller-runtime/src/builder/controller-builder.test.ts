import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type KubeObject, kinds } from "../api/index.js";
import { eventually } from "../envtest/index.js";
import type { GenericEvent } from "../event/index.js";
import { enqueueRequestsFromMapFunc, funcs as handlerFuncs } from "../handler/index.js";
import { nullLogger } from "../log/index.js";
import { Manager } from "../manager/index.js";
import { funcs, newPredicateFuncs } from "../predicate/index.js";
import { asReconciler, type Request } from "../reconcile/index.js";
import type { RESTConfig } from "../rest/config.js";
import { newRESTClient, type RESTClient, resourceOf } from "../rest/index.js";
import { newChannel } from "../source/index.js";
import { BuilderError, controllerManagedBy, typedControllerManagedBy } from "./index.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const env = testEnvironment();
let config: RESTConfig;
let client: RESTClient;
before(async () => {
  config = await env.start();
  client = newRESTClient(config);
});
after(async () => {
  await client.close();
  await env.stop();
});

const cms = resourceOf(kinds.ConfigMap);
const secrets = resourceOf(kinds.Secret);

async function namespace(name: string): Promise<string> {
  await client.create(resourceOf(kinds.Namespace), { metadata: { name } });
  return name;
}

async function runManager(setup: (mgr: Manager) => void): Promise<{ stop(): Promise<void> }> {
  const mgr = await Manager.create(config, { logger: nullLogger(), metrics: { bindAddress: "0" } });
  setup(mgr);
  const ctl = new AbortController();
  const done = mgr.start(ctl.signal);
  await mgr.elected();
  return {
    async stop() {
      ctl.abort();
      await done;
    },
  };
}

test("for + owns: a change to an owned object reconciles its owner", async () => {
  const ns = await namespace("builder-owns");
  const seen: Request[] = [];
  const run = await runManager((mgr) =>
    controllerManagedBy(mgr)
      .for(kinds.ConfigMap)
      .owns(kinds.Secret)
      .complete({
        async reconcile(req) {
          seen.push(req);
        },
      }),
  );
  try {
    const owner = await client.create<KubeObject>(cms, { metadata: { name: "owner" } }, { namespace: ns });
    await eventually("the owner's own reconcile", () => seen.some((r) => r.name === "owner"));
    seen.length = 0;
    await client.create(
      secrets,
      {
        metadata: {
          name: "owned",
          ownerReferences: [
            {
              apiVersion: "v1",
              kind: "ConfigMap",
              name: "owner",
              uid: owner.metadata!.uid!,
              controller: true,
            },
          ],
        },
      },
      { namespace: ns },
    );
    await eventually("a reconcile of the owner", () =>
      seen.some((r) => r.name === "owner" && r.namespace === ns),
    );
    assert.ok(!seen.some((r) => r.name === "owned"), "the owned object itself is not reconciled");
  } finally {
    await run.stop();
  }
});

test("watches(channel, mapFunc): a GenericEvent with no object enqueues every object of a kind", async () => {
  const ns = await namespace("builder-channel");
  for (const name of ["a", "b", "c"]) await client.create(cms, { metadata: { name } }, { namespace: ns });
  const ticks = newChannel<GenericEvent<KubeObject>>();
  const seen = new Set<string>();
  const run = await runManager((mgr) => {
    controllerManagedBy(mgr)
      .named("ticker")
      .watches(
        ticks,
        enqueueRequestsFromMapFunc(async () => {
          const list = await mgr.getCache().list(kinds.ConfigMap, { inNamespace: ns });
          return list.items.map((o) => ({ namespace: ns, name: o.metadata!.name! }));
        }),
      )
      .complete({
        async reconcile(req) {
          seen.add(req.name);
        },
      });
  });
  try {
    await ticks.send({});
    await eventually("a reconcile of each ConfigMap", () => seen.size === 3);
    assert.deepEqual([...seen].sort(), ["a", "b", "c"]);
  } finally {
    ticks.close();
    await run.stop();
  }
});

test("predicates filter events, per watch and through withEventFilter", async () => {
  const ns = await namespace("builder-predicates");
  const seen: string[] = [];
  const run = await runManager((mgr) =>
    controllerManagedBy(mgr)
      .for(kinds.ConfigMap, {
        predicates: [funcs({ create: (e) => e.object.metadata?.labels?.watch === "yes" })],
      })
      .withEventFilter(funcs({ create: (e) => e.object.metadata?.namespace === ns }))
      .named("filtered")
      .complete({
        async reconcile(req) {
          seen.push(req.name);
        },
      }),
  );
  try {
    await client.create(cms, { metadata: { name: "ignored" } }, { namespace: ns });
    await client.create(
      cms,
      { metadata: { name: "elsewhere", labels: { watch: "yes" } } },
      { namespace: "default" },
    );
    await client.create(cms, { metadata: { name: "wanted", labels: { watch: "yes" } } }, { namespace: ns });
    await eventually("the matching object's reconcile", () => seen.includes("wanted"));
    assert.deepEqual(seen, ["wanted"]);
  } finally {
    await run.stop();
  }
});

test("complete() reports what is missing, with what to do", async () => {
  const mgr = await Manager.create(config, { logger: nullLogger(), metrics: { bindAddress: "0" } });
  const noop = { reconcile: async () => {} };
  assert.throws(
    () => controllerManagedBy(mgr).complete(noop),
    (err) => err instanceof BuilderError && /for\(Kind\) or named/.test(err.message),
  );
  assert.throws(
    () => controllerManagedBy(mgr).named("x").owns(kinds.Secret).complete(noop),
    (err) =>
      err instanceof BuilderError && /owns\(\) can only be used together with for\(\)/.test(err.message),
  );
  assert.throws(
    () => controllerManagedBy(mgr).for(kinds.Pod).for(kinds.Secret).complete(noop),
    /for\(\) was called twice/,
  );
  controllerManagedBy(mgr).for(kinds.Pod).complete(noop);
  assert.throws(() => controllerManagedBy(mgr).for(kinds.Pod).complete(noop), /pod/);
});

test("the manager's groupKindConcurrency sets maxConcurrentReconciles by the for kind, unless the controller does", async () => {
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    controller: { groupKindConcurrency: { ConfigMap: 3, "Deployment.apps": 2, Secret: 0 } },
  });
  const noop = { reconcile: async () => ({}) };
  controllerManagedBy(mgr).for(kinds.ConfigMap).named("gkc-configmaps").complete(noop);
  controllerManagedBy(mgr).for(kinds.Deployment).named("gkc-deployments").complete(noop);
  controllerManagedBy(mgr).for(kinds.Secret).named("gkc-secrets").complete(noop);
  controllerManagedBy(mgr)
    .for(kinds.ConfigMap)
    .named("gkc-own")
    .withOptions({ maxConcurrentReconciles: 5 })
    .complete(noop);
  const ctl = new AbortController();
  const done = mgr.start(ctl.signal);
  const workers = async () => {
    const values = (
      await mgr.getMetricsRegistry().getSingleMetric("controller_runtime_max_concurrent_reconciles")?.get()
    )?.values;
    return Object.fromEntries(
      (values ?? [])
        .filter((v) => String(v.labels.controller).startsWith("gkc-"))
        .map((v) => [v.labels.controller, v.value]),
    );
  };
  await eventually("the four controllers", async () => Object.keys(await workers()).length === 4);
  assert.deepEqual(await workers(), {
    "gkc-configmaps": 3,
    "gkc-deployments": 2,
    "gkc-secrets": 1,
    "gkc-own": 5,
  });
  ctl.abort();
  await done;
});

test("a typed controller through the builder: requests of its own kind, queued by its handlers", async () => {
  const ns = await namespace(`builder-typed-${Date.now().toString(36)}`);
  /** One reconcile per namespace, whichever of its ConfigMaps changed. */
  interface NamespaceKey {
    namespace: string;
  }
  const seen: NamespaceKey[] = [];
  const run = await runManager((mgr) =>
    typedControllerManagedBy<NamespaceKey>(mgr, {
      requestCodec: { toKey: (k) => k.namespace, fromKey: (namespace) => ({ namespace }) },
    })
      .named("per-namespace")
      .watches(
        kinds.ConfigMap,
        handlerFuncs({
          create: (e, q) => q.add({ namespace: e.object.metadata?.namespace ?? "" }),
          update: (e, q) => q.add({ namespace: e.objectNew.metadata?.namespace ?? "" }),
        }),
      )
      .complete({
        async reconcile(key) {
          if (key.namespace === ns) seen.push(key);
          return {};
        },
      }),
  );
  try {
    await client.create(cms, { metadata: { name: "a", namespace: ns } }, { namespace: ns });
    await eventually("the namespace reconciled", () => seen.length > 0);
    assert.deepEqual(seen[0], { namespace: ns });
  } finally {
    await run.stop();
  }
});

test("for() and owns() on a typed builder are refused: they queue Requests", async () => {
  const mgr = await Manager.create(config, { logger: nullLogger(), metrics: { bindAddress: "0" } });
  const codec = { toKey: (k: { id: string }) => k.id, fromKey: (id: string) => ({ id }) };
  assert.throws(
    () =>
      typedControllerManagedBy(mgr, { requestCodec: codec })
        .for(kinds.ConfigMap)
        .owns(kinds.Secret)
        .complete({ reconcile: async () => ({}) }),
    (err: unknown) =>
      err instanceof BuilderError &&
      /for\(ConfigMap\) queues Requests/.test(err.message) &&
      /owns\(Secret\)/.test(err.message),
  );
  assert.throws(() => typedControllerManagedBy(mgr, {} as never), /requestCodec/);
});

test("asReconciler hands the reconciler the object, and nothing for one that is gone", async () => {
  const ns = await namespace(`builder-object-${Date.now().toString(36)}`);
  const seen: string[] = [];
  const run = await runManager((mgr) => {
    controllerManagedBy(mgr)
      .named("object-reconciler")
      .for(kinds.ConfigMap, { predicates: [newPredicateFuncs((o) => o.metadata?.namespace === ns)] })
      .complete(
        asReconciler(mgr.getClient(), kinds.ConfigMap, {
          async reconcile(cm) {
            seen.push(`${cm.metadata?.name}=${cm.data?.v}`);
          },
        }),
      );
  });
  try {
    await client.create(cms, { metadata: { name: "a", namespace: ns }, data: { v: "1" } }, { namespace: ns });
    await eventually("the object reconciled", () => seen.includes("a=1"));
    await client.delete(cms, "a", { namespace: ns });
    // The delete queues a request; the adapter finds nothing and calls nothing.
    await client.create(cms, { metadata: { name: "b", namespace: ns }, data: { v: "2" } }, { namespace: ns });
    await eventually("the next object reconciled", () => seen.includes("b=2"));
    assert.deepEqual(
      seen.filter((s) => s.startsWith("a=")),
      ["a=1"],
    );
  } finally {
    await run.stop();
  }
});
