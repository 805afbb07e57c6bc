// kube-apiserver's bootstrap RBAC policy: at every start it makes sure the default roles and
// bindings exist (cluster-admin for system:masters, discovery and health for everyone, admin/edit/
// view built by aggregation, the system components' roles), leaving ones already there alone.
// The objects come prepared (aggregated, defaulted, in kube's field order; bootstrap-prepared.ts
// says how): preparing them at each start took ~8 ms of a cold start. A start only gives each its
// own uid and creation time.
import { randomUUID } from "node:crypto";
import type { ServerContext } from "../handlers/context.js";
import { kubeTime } from "../object/meta.js";
import type { Obj } from "../storage/index.js";
import { type PreparedObject, preparedPolicy } from "./bootstrap-prepared.generated.js";

export function seedBootstrapPolicy(server: ServerContext): void {
  const created = kubeTime(server.now());
  for (const p of preparedPolicy) seedPrepared(server, p, created);
}

/**
 * The policy, written on the storage's first use (storage.fillOnFirstUse): each object when its
 * store is listed or it is read. An anonymous /readyz reads the ClusterRoleBindings and the one
 * ClusterRole granting it, not the other 60 ClusterRoles (~5 ms of a cold start).
 */
export function deferBootstrapPolicy(server: ServerContext): void {
  const created = kubeTime(server.now());
  for (const p of preparedPolicy) {
    server.storage.fillOnFirstUse(() => seedPrepared(server, p, created), [p.store], p.key);
  }
}

function seedPrepared(server: ServerContext, p: PreparedObject, created: string): void {
  if (server.storage.get(p.store, p.key)) return;
  const obj = JSON.parse(p.json) as Obj;
  const meta = obj.metadata as Obj;
  meta.uid = randomUUID();
  meta.creationTimestamp = created;
  server.storage.put(p.store, obj);
}
