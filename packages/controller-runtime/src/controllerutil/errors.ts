// Errors of controllerutil, each a class with a stable `code` and `name`.
import type { OwnerReference } from "kubernetes-types/meta/v1.js";
import type { DeepReadonly, KubeObject } from "../api/index.js";

function objectName(obj: DeepReadonly<KubeObject>): string {
  const m = obj.metadata;
  return m?.namespace ? `${m.namespace}/${m.name ?? ""}` : (m?.name ?? "");
}

/** `setControllerReference` on an object another controller already controls. */
export class AlreadyOwnedError extends Error {
  override readonly name = "AlreadyOwnedError";
  readonly code = "ERR_ALREADY_OWNED";
  /** The object that is already controlled. */
  readonly object: DeepReadonly<KubeObject>;
  /** Its controller's reference. */
  readonly owner: DeepReadonly<OwnerReference>;
  constructor(object: DeepReadonly<KubeObject>, owner: DeepReadonly<OwnerReference>) {
    super(
      `Object ${objectName(object)} is already owned by another ${owner.kind} controller ${owner.name}; ` +
        "an object has one controller: use setOwnerReference for a non-controlling owner, or remove the other controller's reference first",
    );
    this.object = object;
    this.owner = owner;
  }
}

/** An owner reference that would cross namespaces, or make a namespaced object own a cluster-scoped one. */
export class InvalidOwnerError extends Error {
  override readonly name = "InvalidOwnerError";
  readonly code = "ERR_INVALID_OWNER";
}

/** `removeOwnerReference` of an owner the object does not reference. */
export class OwnerReferenceNotFoundError extends Error {
  override readonly name = "OwnerReferenceNotFoundError";
  readonly code = "ERR_OWNER_REFERENCE_NOT_FOUND";
}

/** A `mutate` function of createOrUpdate/createOrPatch changed the object's name or namespace. */
export class MutatedKeyError extends Error {
  override readonly name = "MutatedKeyError";
  readonly code = "ERR_MUTATED_KEY";
  constructor() {
    super(
      "the mutate function of createOrUpdate/createOrPatch cannot change the object's name or namespace; " +
        "call it with the key of the object you mean",
    );
  }
}
