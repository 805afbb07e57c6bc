import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { kinds, type KubeObject } from "../api/index.js";
import { nullLogger } from "../log/index.js";
import type { Request } from "../reconcile/index.js";
import {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  funcs,
  type HandlerContext,
  LowPriority,
  type QueueAddOptions,
  type RequestQueue,
  withLowPriorityWhenUnchanged,
} from "./index.js";

function recorder(): RequestQueue<Request> & { adds: [Request, QueueAddOptions | undefined][] } {
  const adds: [Request, QueueAddOptions | undefined][] = [];
  return { adds, add: (req, opts) => void adds.push([req, opts]) };
}
const ctx: HandlerContext = { signal: new AbortController().signal, logger: nullLogger() };

function pod(name: string, meta: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "ns", resourceVersion: "1", ...meta },
  };
}

test("enqueueRequestForObject queues the object's key; initial list and resyncs at LowPriority", () => {
  const h = enqueueRequestForObject<Pod>();
  const q = recorder();
  h.create({ object: pod("a") }, q, ctx);
  h.create({ object: pod("b"), isInInitialList: true }, q, ctx);
  h.update({ objectOld: pod("c"), objectNew: pod("c") }, q, ctx);
  h.update({ objectOld: pod("d"), objectNew: pod("d", { resourceVersion: "2" }) }, q, ctx);
  h.delete({ object: pod("e"), deleteStateUnknown: false }, q, ctx);
  h.generic({ object: pod("f") }, q, ctx);
  h.generic({}, q, ctx); // no object: logged and dropped
  assert.deepEqual(
    q.adds.map(([r, o]) => [r.name, o?.priority]),
    [
      ["a", undefined],
      ["b", LowPriority],
      ["c", LowPriority],
      ["d", undefined],
      ["e", undefined],
      ["f", undefined],
    ],
  );
  assert.deepEqual(q.adds[0]![0], { namespace: "ns", name: "a" });
});

test("enqueueRequestForOwner matches owners by group and kind, in the object's namespace", () => {
  const owned = pod("p", {
    ownerReferences: [
      { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs1", uid: "1", controller: true },
      { apiVersion: "apps/v2", kind: "ReplicaSet", name: "rs2", uid: "2" },
      { apiVersion: "v1", kind: "ReplicaSet", name: "wrong-group", uid: "3" },
      { apiVersion: "apps/v1", kind: "Deployment", name: "wrong-kind", uid: "4" },
    ],
  });
  const q = recorder();
  enqueueRequestForOwner(kinds.ReplicaSet).create({ object: owned }, q, ctx);
  assert.deepEqual(
    q.adds.map(([r]) => r),
    [
      { namespace: "ns", name: "rs1" },
      { namespace: "ns", name: "rs2" },
    ],
  );
  const only = recorder();
  enqueueRequestForOwner(kinds.ReplicaSet, { onlyControllerOwner: true }).delete(
    { object: owned, deleteStateUnknown: false },
    only,
    ctx,
  );
  assert.deepEqual(
    only.adds.map(([r]) => r),
    [{ namespace: "ns", name: "rs1" }],
  );
});

test("enqueueRequestForOwner gives cluster-scoped owners no namespace and queues old and new owners on update", () => {
  const ref = (name: string) => ({ apiVersion: "v1", kind: "Namespace", name, uid: name });
  const q = recorder();
  enqueueRequestForOwner(kinds.Namespace).update(
    {
      objectOld: pod("p", { ownerReferences: [ref("old")] }),
      objectNew: pod("p", { ownerReferences: [ref("new")], resourceVersion: "2" }),
    },
    q,
    ctx,
  );
  assert.deepEqual(
    q.adds.map(([r, o]) => [r, o?.priority]),
    [
      [{ namespace: "", name: "old" }, undefined],
      [{ namespace: "", name: "new" }, undefined],
    ],
  );
});

test("enqueueRequestsFromMapFunc runs the function with no object for an object-less generic event", async () => {
  const seen: (string | undefined)[] = [];
  const h = enqueueRequestsFromMapFunc<KubeObject>(async (o) => {
    seen.push(o?.metadata?.name);
    return [
      { namespace: "ns", name: "x" },
      { namespace: "ns", name: "y" },
    ];
  });
  const q = recorder();
  await h.generic({}, q, ctx);
  await h.create({ object: pod("a"), isInInitialList: true }, q, ctx);
  assert.deepEqual(seen, [undefined, "a"]);
  assert.deepEqual(
    q.adds.map(([r, o]) => [r.name, o?.priority]),
    [
      ["x", undefined],
      ["y", undefined],
      ["x", LowPriority],
      ["y", LowPriority],
    ],
  );
});

test("funcs ignores what it does not define; withLowPriorityWhenUnchanged lowers initial-list adds", async () => {
  const plain = funcs<Pod>({ create: (e, q) => q.add({ namespace: "", name: e.object.metadata!.name! }) });
  const q = recorder();
  await plain.update({ objectOld: pod("a"), objectNew: pod("a") }, q, ctx);
  assert.equal(q.adds.length, 0);
  await withLowPriorityWhenUnchanged(plain).create({ object: pod("a"), isInInitialList: true }, q, ctx);
  await withLowPriorityWhenUnchanged(plain).create({ object: pod("b") }, q, ctx);
  assert.deepEqual(
    q.adds.map(([r, o]) => [r.name, o?.priority]),
    [
      ["a", LowPriority],
      ["b", undefined],
    ],
  );
});
