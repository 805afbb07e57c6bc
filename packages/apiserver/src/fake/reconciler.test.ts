// A reconciler's unit test with the fake client, as a Go user writes one with controller-runtime's
// fake.NewClientBuilder(): objects in, reconcile called directly, the world read back. Here the
// CRD's defaults apply (the reconciler reads `spec.color` the server filled in) and a status
// write the interceptor fails once makes the reconcile fail, then succeed when retried.
import assert from "node:assert/strict";
import { test } from "node:test";
import { kinds, type DeepReadonly } from "controller-runtime/api";
import type { Client } from "controller-runtime/client";
import { createOrUpdate, setControllerReference } from "controller-runtime/controllerutil";
import { defineCRD, Type } from "controller-runtime/crd";
import { nullLogger } from "controller-runtime/log";
import type { ReconcileContext, Reconciler, Request } from "controller-runtime/reconcile";
import { ignoreNotFound, isConflict, StatusError } from "controller-runtime/rest";
import { fakeClientBuilder } from "./index.js";

const Widget = defineCRD({
  group: "fake-reconciler.example.com",
  kind: "Widget",
  versions: {
    v1: {
      spec: Type.Object({
        size: Type.Integer({ minimum: 1 }),
        color: Type.Optional(Type.String({ default: "blue" })),
      }),
      status: Type.Object({
        ready: Type.Optional(Type.Boolean()),
        observedGeneration: Type.Optional(Type.Integer()),
      }),
    },
  },
});
type Widget = NonNullable<typeof Widget.__object>;

/** The reconciler under test: a ConfigMap per Widget, owned by it, and the Widget's status. */
class WidgetReconciler implements Reconciler {
  constructor(private readonly client: Client) {}

  async reconcile(req: Request, ctx: ReconcileContext): Promise<void> {
    let widget: DeepReadonly<Widget>;
    try {
      widget = await this.client.get(Widget, req, { signal: ctx.signal });
    } catch (err) {
      return ignoreNotFound(err);
    }
    await createOrUpdate(
      this.client,
      kinds.ConfigMap,
      { namespace: req.namespace, name: `${req.name}-config` },
      (cm) => {
        cm.data = { size: String(widget.spec.size), color: widget.spec.color ?? "" };
        return setControllerReference(widget, cm);
      },
    );
    await this.client.status().update({
      ...widget,
      status: { ready: true, observedGeneration: widget.metadata?.generation },
    });
  }
}

const ctx: ReconcileContext = {
  signal: new AbortController().signal,
  logger: nullLogger(),
  reconcileID: "test",
};
const widget = (name: string, size: number): Widget => ({
  apiVersion: Widget.apiVersion,
  kind: Widget.kind,
  metadata: { name, namespace: "shop" },
  spec: { size },
});

test("reconcile makes the Widget's ConfigMap, owned by it, from its defaulted spec, and sets its status", async () => {
  const c = await fakeClientBuilder().withCRDs(Widget.crd).withObjects(widget("w", 3)).build();
  try {
    await new WidgetReconciler(c).reconcile({ namespace: "shop", name: "w" }, ctx);

    const cm = await c.get(kinds.ConfigMap, { namespace: "shop", name: "w-config" });
    assert.deepEqual(cm.data, { size: "3", color: "blue" }, "the CRD's default reached the reconciler");
    const w = await c.get(Widget, { namespace: "shop", name: "w" });
    assert.deepEqual(cm.metadata?.ownerReferences?.[0]?.uid, w.metadata?.uid);
    assert.deepEqual(w.status, { ready: true, observedGeneration: 1 });

    // Again: nothing to change, the ConfigMap keeps its resourceVersion.
    await new WidgetReconciler(c).reconcile({ namespace: "shop", name: "w" }, ctx);
    const again = await c.get(kinds.ConfigMap, { namespace: "shop", name: "w-config" });
    assert.equal(again.metadata?.resourceVersion, cm.metadata?.resourceVersion);
  } finally {
    await c.close();
  }
});

test("reconcile of a Widget that is gone does nothing and does not fail", async () => {
  const c = await fakeClientBuilder().withCRDs(Widget.crd).build();
  try {
    await new WidgetReconciler(c).reconcile({ namespace: "shop", name: "gone" }, ctx);
    assert.deepEqual((await c.list(kinds.ConfigMap, { inNamespace: "shop" })).items, []);
  } finally {
    await c.close();
  }
});

test("a status write that conflicts once fails the reconcile; the retry succeeds", async () => {
  let statusWrites = 0;
  const c = await fakeClientBuilder()
    .withCRDs(Widget.crd)
    .withObjects(widget("w", 2))
    .withInterceptorFuncs({
      subResourceUpdate: (client, sub, obj, opts) => {
        if (sub === "status" && ++statusWrites === 1) {
          return Promise.reject(
            new StatusError({
              status: "Failure",
              reason: "Conflict",
              code: 409,
              message: "injected conflict",
            }),
          );
        }
        return client.subResource(sub).update(obj, opts);
      },
    })
    .build();
  try {
    const r = new WidgetReconciler(c);
    await assert.rejects(r.reconcile({ namespace: "shop", name: "w" }, ctx), (err) => isConflict(err));
    assert.equal((await c.get(Widget, { namespace: "shop", name: "w" })).status, undefined);
    await r.reconcile({ namespace: "shop", name: "w" }, ctx);
    assert.equal((await c.get(Widget, { namespace: "shop", name: "w" })).status?.ready, true);
    assert.equal(statusWrites, 2);
  } finally {
    await c.close();
  }
});

test("the server's validation reaches the reconciler's writes: a Widget too small is refused at build()", async () => {
  await assert.rejects(
    fakeClientBuilder().withCRDs(Widget.crd).withObjects(widget("tiny", 0)).build(),
    /spec\.size: Invalid value: 0: spec\.size in body should be greater than or equal to 1/,
  );
});
