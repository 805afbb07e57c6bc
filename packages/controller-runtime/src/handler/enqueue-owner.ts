// enqueueRequestForOwner: the handler of owned kinds (`owns()`): an event on a Pod queues the
// ReplicaSet that owns it, found through the Pod's ownerReferences.
import type { OwnerReference } from "kubernetes-types/meta/v1.js";
import { type Kind, type KubeObject, parseAPIVersion } from "../api/index.js";
import type { Request } from "../reconcile/index.js";
import { createPriority, type EventHandler, type RequestQueue, updatePriority } from "./event-handler.js";
import type { DeepReadonly } from "../api/index.js";

/** Options of {@link enqueueRequestForOwner}. */
export interface EnqueueRequestForOwnerOptions {
  /** Follow only the owner reference with `controller: true`. Default: false (every matching owner). */
  onlyControllerOwner?: boolean;
}

/**
 * Queues a request for each owner of the event's object whose kind is `ownerKind`. Owner references
 * are matched by group and kind (any version). The owner's namespace is the object's when
 * `ownerKind` is namespaced, and "" when it is cluster-scoped (owners never live in another
 * namespace). For an update, the owners of both the old and the new object are queued, so that an
 * object moving to a new owner also wakes the old one.
 */
export function enqueueRequestForOwner<O extends KubeObject, T extends KubeObject = KubeObject>(
  ownerKind: Kind<O>,
  options: EnqueueRequestForOwnerOptions = {},
): EventHandler<T, Request> {
  const onlyController = options.onlyControllerOwner ?? false;
  const enqueue = (obj: DeepReadonly<T>, q: RequestQueue<Request>, priority?: number) => {
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      if (onlyController && ref.controller !== true) continue;
      if (!matches(ref, ownerKind)) continue;
      const namespace = ownerKind.namespaced ? (obj.metadata?.namespace ?? "") : "";
      q.add({ namespace, name: ref.name }, { priority });
    }
  };
  return {
    create: (e, q) => enqueue(e.object, q, createPriority(e)),
    update(e, q) {
      const priority = updatePriority(e);
      enqueue(e.objectOld, q, priority);
      enqueue(e.objectNew, q, priority);
    },
    delete: (e, q) => enqueue(e.object, q),
    generic(e, q) {
      if (e.object !== undefined) enqueue(e.object, q);
    },
  };
}

function matches(ref: DeepReadonly<OwnerReference>, kind: Kind): boolean {
  return ref.kind === kind.kind && parseAPIVersion(ref.apiVersion ?? "").group === kind.group;
}
