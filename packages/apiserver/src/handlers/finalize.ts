// Deletion: preconditions, finalizers and deletionTimestamp, a bound Pod's grace period, and the
// final removal once nothing holds an object any more. Shared by DELETE, deletecollection, the
// namespace cleanup and GC.
import { kindBehaviour } from "../kinds/index.js";
import { kubeTime } from "../object/meta.js";
import type { ResourceDefinition } from "../registry/index.js";
import { storeNameOf } from "../registry/index.js";
import { preconditionFailed } from "../status.js";
import type { Obj, StoredObject } from "../storage/index.js";
import { type ServerContext, refOf } from "./context.js";

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

export interface DeleteOutcome {
  /** True when the object left storage; false when it waits for finalizers. */
  removed: boolean;
  /** The removed object (stamped with the deletion's version) or the one now being deleted. */
  stored: StoredObject;
}

function hasFinalizers(def: ResourceDefinition, obj: Readonly<Obj>): boolean {
  const f = (obj.metadata as Obj).finalizers as unknown[] | undefined;
  return (Array.isArray(f) && f.length > 0) || (kindBehaviour(def).held?.(obj) ?? false);
}

/**
 * The grace period of a delete (kube's CheckGracefulDelete): only a Pod bound to a node and not
 * finished is deleted gracefully, by the request's gracePeriodSeconds or else its own
 * terminationGracePeriodSeconds; every other object, at once (0).
 */
function gracePeriodOf(def: ResourceDefinition, obj: Readonly<Obj>, opts: DeleteOptions): number {
  if (def.group !== "" || def.plural !== "pods") return 0;
  const spec = (obj.spec ?? {}) as Obj;
  const phase = (obj.status as Obj | undefined)?.phase;
  if (!spec.nodeName || phase === "Failed" || phase === "Succeeded") return 0;
  const grace = opts.gracePeriodSeconds ?? Number(spec.terminationGracePeriodSeconds ?? 30);
  // A negative grace period is taken as the shortest graceful one.
  return grace < 0 ? 1 : grace;
}

/** Deletes or starts deleting one stored object. */
export function deleteStored(
  server: ServerContext,
  def: ResourceDefinition,
  current: StoredObject,
  opts: DeleteOptions,
): DeleteOutcome {
  const meta = current.obj.metadata as Obj;
  const pre = opts.preconditions;
  // A precondition stated is checked, an empty one too (Go's *UID set to ""); null is none.
  if (typeof pre?.uid === "string" && pre.uid !== meta.uid) {
    throw preconditionFailed(
      refOf(def),
      current.name,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${String(meta.uid)}). The object might have been deleted and then recreated`,
    );
  }
  if (typeof pre?.resourceVersion === "string" && pre.resourceVersion !== meta.resourceVersion) {
    throw preconditionFailed(
      refOf(def),
      current.name,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${String(meta.resourceVersion)}). The object might have been modified`,
    );
  }
  const next = JSON.parse(current.json) as Obj;
  const nextMeta = next.metadata as Obj;
  const finalizers = [...(((nextMeta.finalizers as string[] | undefined) ?? []) as string[])];
  const addFinalizer = (f: string) => {
    if (!finalizers.includes(f)) finalizers.push(f);
  };
  if (opts.propagationPolicy === "Foreground") addFinalizer("foregroundDeletion");
  if (opts.propagationPolicy === "Orphan") addFinalizer("orphan");
  if (finalizers.length > 0) nextMeta.finalizers = finalizers;
  const behaviour = kindBehaviour(def);
  const alreadyDeleting = meta.deletionTimestamp !== undefined;
  const pendingGrace = Number(meta.deletionGracePeriodSeconds ?? 0);
  const grace = gracePeriodOf(def, current.obj, opts);
  if (grace > 0) {
    // Graceful: marked, left for the kubelet to stop and delete (kube's BeforeDelete); a later
    // delete may only shorten the grace period.
    if (alreadyDeleting && pendingGrace <= grace) return { removed: false, stored: current };
    if (!alreadyDeleting) behaviour.beginDelete?.(next, server.now());
    nextMeta.deletionTimestamp = kubeTime(new Date(server.now().getTime() + grace * 1000));
    nextMeta.deletionGracePeriodSeconds = grace;
    if (opts.dryRun) return { removed: false, stored: current };
    const stored = server.storage.put(storeNameOf(def), next);
    server.hooks.afterWrite(def, stored, current);
    return { removed: false, stored };
  }
  if (!alreadyDeleting) behaviour.beginDelete?.(next, server.now());
  if (!hasFinalizers(def, next)) {
    if (opts.dryRun) return { removed: true, stored: current };
    const removed = server.storage.remove(storeNameOf(def), current.key)!;
    kindBehaviour(def).removed?.(removed.obj, { server });
    server.hooks.afterDelete(def, removed);
    return { removed: true, stored: removed };
  }
  if (!alreadyDeleting || pendingGrace > 0) {
    nextMeta.deletionTimestamp = kubeTime(server.now());
    nextMeta.deletionGracePeriodSeconds = 0;
  }
  if (
    alreadyDeleting &&
    pendingGrace === 0 &&
    finalizers.length === ((meta.finalizers as unknown[] | undefined)?.length ?? 0)
  ) {
    return { removed: false, stored: current };
  }
  if (opts.dryRun) return { removed: false, stored: current };
  const stored = server.storage.put(storeNameOf(def), next);
  server.hooks.afterWrite(def, stored, current);
  return { removed: false, stored };
}

/** Removes an object being deleted once no finalizer holds it. Returns true when removed. */
export function finalizeIfDone(
  server: ServerContext,
  def: ResourceDefinition,
  stored: StoredObject,
): boolean {
  const meta = stored.obj.metadata as Obj;
  if (!meta.deletionTimestamp || hasFinalizers(def, stored.obj)) return false;
  // Still in its grace period: the kubelet deletes it (with a grace period of 0) when it stopped.
  if (Number(meta.deletionGracePeriodSeconds ?? 0) > 0) return false;
  if (!server.storage.get(storeNameOf(def), stored.key)) return false;
  const removed = server.storage.remove(storeNameOf(def), stored.key)!;
  kindBehaviour(def).removed?.(removed.obj, { server });
  server.hooks.afterDelete(def, removed);
  return true;
}
