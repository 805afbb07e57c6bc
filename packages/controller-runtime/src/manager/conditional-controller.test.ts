// Controllers that follow their CRD (mgr.addConditional): the manager starts without the CRD, the
// controller starts when the CRD serves its version, releases its finalizer while the CRD is
// deleted, stops once the CRD is gone, and starts afresh when it comes back. Install/delete cycles
// leave no handles or heap behind. Runs in every envtest mode (kube-apiserver itself removes a
// deleted CRD's objects).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import { defineKind, kinds } from "../api/index.js";
import { controllerManagedBy } from "../builder/index.js";
import { nullLogger } from "../log/index.js";
import type { RESTConfig } from "../rest/config.js";
import { isNotFound, newRESTClient, type RESTClient, resourceOf } from "../rest/index.js";
import { embedded, testEnvironment } from "../../../../test/support/environment.js";
import { until } from "../../../../test/support/objects.js";
import { Manager } from "./index.js";

interface Foo {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { size?: number };
}

// The embedded server shares this process's heap: its watch history is kept short so that the heap
// test measures the manager, not the server's (bounded) history of CRD events. Elsewhere it is ignored.
const env = testEnvironment({ apiServer: { historySize: 200 } });
let config: RESTConfig;
let rest: RESTClient;
before(async () => {
  config = await env.start();
  rest = newRESTClient(config);
});
after(async () => {
  await rest.close();
  await env.stop();
});

const FINALIZER = "cond.example.com/hold";

function kindIn(group: string) {
  return defineKind<Foo>({ group, version: "v1", kind: "Foo", plural: "foos", namespaced: true });
}

function crdOf(group: string): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `foos.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural: "foos", singular: "foo", kind: "Foo", listKind: "FooList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          // kubernetes-types names the field x_kubernetes_preserve_unknown_fields, which kube ignores
          schema: {
            openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } as never,
          },
        },
      ],
    },
  };
}

const crds = resourceOf(kinds.CustomResourceDefinition);

async function install(group: string): Promise<void> {
  await rest.create(crds, crdOf(group));
  await until("the CRD is established", async () => {
    const crd = await rest.get<CustomResourceDefinition>(crds, `foos.${group}`);
    return !!crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
  });
}

/**
 * Creates a Foo. kube-apiserver may answer 404 for a moment after the CRD is Established (a
 * recreated CRD's handler is swapped in asynchronously), so a NotFound is retried.
 */
async function createFoo(Foo: ReturnType<typeof kindIn>, name: string): Promise<void> {
  await until(`${name} is created`, () =>
    rest
      .create(resourceOf(Foo), {
        apiVersion: Foo.apiVersion,
        kind: "Foo",
        metadata: { name, namespace: "default" },
      })
      .then(
        () => true,
        (err: unknown) => {
          if (isNotFound(err)) return false;
          throw err;
        },
      ),
  );
}

async function uninstall(group: string): Promise<void> {
  await rest.delete(crds, `foos.${group}`);
  await until("the CRD is gone", () =>
    rest.get(crds, `foos.${group}`).then(
      () => false,
      (err: unknown) => isNotFound(err),
    ),
  );
}

function startManager(group: string) {
  const Foo = kindIn(group);
  const reconciled: string[] = [];
  const released: string[] = [];
  const mgr = Manager.create(config, { logger: nullLogger(), metrics: { bindAddress: "0" } }).then((m) => {
    const client = m.getClient();
    m.addConditional(
      controllerManagedBy(m).for(Foo),
      {
        async reconcile(req) {
          const foo = await client.get(Foo, req).catch((err: unknown) => {
            if (isNotFound(err)) return undefined;
            throw err;
          });
          if (!foo) return {};
          const finalizers = foo.metadata?.finalizers ?? [];
          if (foo.metadata?.deletionTimestamp) {
            if (finalizers.includes(FINALIZER)) {
              await client.update({
                ...foo,
                metadata: { ...foo.metadata, finalizers: finalizers.filter((f) => f !== FINALIZER) },
              });
              released.push(req.name);
            }
            return {};
          }
          if (!finalizers.includes(FINALIZER)) {
            await client.update({
              ...foo,
              metadata: { ...foo.metadata, finalizers: [...finalizers, FINALIZER] },
            });
          }
          reconciled.push(req.name);
          return {};
        },
      },
      { crd: `foos.${group}`, version: "v1" },
    );
    return m;
  });
  return { Foo, reconciled, released, mgr };
}

test("a controller follows its CRD: waits, runs, releases its finalizer while the CRD goes, runs again", async () => {
  const group = `cond${process.pid}.example.com`;
  const { Foo, reconciled, released, mgr: created } = startManager(group);
  const mgr = await created;
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  try {
    await mgr.elected(); // startup does not wait for the missing CRD
    assert.equal(mgr.conditionalControllers()[0]?.state, "waiting");

    await install(group);
    await createFoo(Foo, "a");
    await until("the object is reconciled", () => reconciled.includes("a"));
    assert.equal(mgr.conditionalControllers()[0]?.state, "running");
    await until("our finalizer holds the object", async () =>
      (
        (await rest.get<Foo>(resourceOf(Foo), "a", { namespace: "default" })).metadata?.finalizers ?? []
      ).includes(FINALIZER),
    );

    // Deleting the CRD deletes its objects; ours waits for our finalizer, which the controller releases.
    await uninstall(group);
    assert.deepEqual(released, ["a"]);
    await until("the controller waits again", () => mgr.conditionalControllers()[0]?.state === "waiting");

    // The CRD comes back: a fresh controller reconciles what exists.
    await install(group);
    await createFoo(Foo, "b");
    await until("the new run reconciles", () => reconciled.includes("b"));
    assert.equal(mgr.conditionalControllers()[0]?.runs, 2);
    await uninstall(group);
  } finally {
    stop.abort();
    await running;
  }
});

function gc(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

test("100 install/delete cycles of the CRD leave no watches, timers or heap behind", async (t) => {
  const group = `cycle${process.pid}.example.com`;
  const { Foo, reconciled, mgr: created } = startManager(group);
  const mgr = await created;
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  // A cycle takes a few ms on the embedded server and seconds on kube-apiserver (CRD deletion).
  const cycles = Number(process.env.CONDITIONAL_CYCLES ?? (embedded ? 100 : 4));
  // On the embedded server every handle counts: the connections are all this process's own, and
  // 100 cycles make any leak plain. To kube-apiserver only timers count: the REST client's
  // keep-alive connections, connects under way and immediates vary by a few between readings,
  // more than a leak shows in the 4 cycles run there.
  const counted = (type: string) => embedded || type === "Timeout";
  const handles = () => process.getActiveResourcesInfo().filter(counted).length;
  let baseline = { handles: 0, heap: 0 };
  try {
    await mgr.elected();
    for (let i = 0; i < cycles; i++) {
      await install(group);
      await createFoo(Foo, `o${i}`);
      await until(`cycle ${i} reconciles`, () => reconciled.includes(`o${i}`));
      await uninstall(group);
      await until("the controller waits", () => mgr.conditionalControllers()[0]?.state === "waiting");
      if (i === 1) {
        gc();
        baseline = { handles: handles(), heap: process.memoryUsage().heapUsed };
      }
    }
    gc();
    const grew = {
      handles: handles() - baseline.handles,
      heapMB: (process.memoryUsage().heapUsed - baseline.heap) / 2 ** 20,
    };
    t.diagnostic(
      `after ${cycles} cycles: handles ${grew.handles >= 0 ? "+" : ""}${grew.handles}, heap ${grew.heapMB.toFixed(2)} MB`,
    );
    assert.ok(grew.handles <= 2, `active handles grew by ${grew.handles}`);
    assert.ok(grew.heapMB < 8, `heap grew by ${grew.heapMB.toFixed(1)} MB`);
    assert.equal(mgr.conditionalControllers()[0]?.runs, cycles);
  } finally {
    stop.abort();
    await running;
  }
});
