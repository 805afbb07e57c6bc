// Owner references, as controller-runtime's controllerutil: a controller reference (one per
// object, `controller: true`), plain owner references, and the namespace rules the garbage
// collector needs. Each helper returns a new object and never changes the one it is given (which
// may be frozen, from the cache).
import type { ObjectMeta, OwnerReference } from "kubernetes-types/meta/v1.js";
import { deepCopy, type KubeObject, parseAPIVersion } from "../api/index.js";
import { AlreadyOwnedError, InvalidOwnerError, OwnerReferenceNotFoundError } from "./errors.js";
import type { DeepReadonly } from "../api/index.js";

export interface ControllerReferenceOptions {
  /** Set `blockOwnerDeletion`, so a foreground deletion of the owner waits for the object. Default: true. */
  blockOwnerDeletion?: boolean;
}

/** Go's `OwnerReferenceOption`s of `setOwnerReference`, as fields. */
export interface OwnerReferenceOptions {
  /** `blockOwnerDeletion` of the reference (Go's `WithBlockOwnerDeletion`). Default: unset. */
  blockOwnerDeletion?: boolean;
  /**
   * `controller` of the reference. Default: unset. Unlike `setControllerReference`, nothing
   * checks that the object has no other controller (as in Go, where an option may set it).
   */
  controller?: boolean;
}

/** Refuses owner references the garbage collector would treat as dangling (validateOwner). */
function validateOwner(owner: DeepReadonly<KubeObject>, object: DeepReadonly<KubeObject>): void {
  const ownerNs = owner.metadata?.namespace;
  if (!ownerNs) return;
  const objNs = object.metadata?.namespace;
  if (!objNs) {
    throw new InvalidOwnerError(
      `cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ${ownerNs}`,
    );
  }
  if (ownerNs !== objNs) {
    throw new InvalidOwnerError(
      `cross-namespace owner references are disallowed, owner's namespace ${ownerNs}, obj's namespace ${objNs}`,
    );
  }
}

/** What a reference is matched by (group, kind, name): Go's removal and lookup need no uid. */
function matchRef(
  owner: DeepReadonly<KubeObject>,
  verb: string,
): Pick<OwnerReference, "apiVersion" | "kind" | "name"> {
  const { apiVersion, kind } = owner;
  const name = owner.metadata?.name;
  if (!apiVersion || !kind || !name) {
    throw new TypeError(`${verb}: the owner needs apiVersion, kind and metadata.name`);
  }
  return { apiVersion, kind, name };
}

function baseRef(owner: DeepReadonly<KubeObject>, verb: string): OwnerReference {
  const { apiVersion, kind } = owner;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!apiVersion || !kind) {
    throw new TypeError(
      `${verb}: the owner has no apiVersion or kind; set them (objects read through the client carry them)`,
    );
  }
  if (!name || !uid) {
    throw new TypeError(
      `${verb}: the owner has no metadata.name or metadata.uid; pass the owner as read from the API server`,
    );
  }
  return { apiVersion, kind, name, uid };
}

/** Same group, kind and name: the version may differ (referSameObject). */
function referSameObject(
  a: DeepReadonly<OwnerReference>,
  b: Pick<OwnerReference, "apiVersion" | "kind" | "name">,
): boolean {
  return (
    parseAPIVersion(a.apiVersion).group === parseAPIVersion(b.apiVersion).group &&
    a.kind === b.kind &&
    a.name === b.name
  );
}

function withOwnerReferences<T extends KubeObject>(object: T, refs: OwnerReference[]): T {
  const copy = deepCopy(object) as T;
  const metadata = { ...copy.metadata, ownerReferences: refs } as ObjectMeta; // a copy: mutable
  if (refs.length === 0) delete metadata.ownerReferences;
  copy.metadata = metadata;
  return copy;
}

function upsert<T extends KubeObject>(object: T, ref: OwnerReference): T {
  const refs = (object.metadata?.ownerReferences ?? []).map((r) => ({ ...r }));
  const i = refs.findIndex((r) => referSameObject(r, ref));
  if (i < 0) refs.push(ref);
  else refs[i] = ref;
  return withOwnerReferences(object, refs);
}

/** The controller's reference among the object's owner references, if any (metav1.GetControllerOf). */
export function getControllerOf(object: DeepReadonly<KubeObject>): DeepReadonly<OwnerReference> | undefined {
  return object.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/**
 * A copy of `object` controlled by `owner`: an owner reference with `controller: true` (and
 * `blockOwnerDeletion`, by default). Throws `AlreadyOwnedError` when another object controls it,
 * and `InvalidOwnerError` for a namespaced owner of an object in another namespace or of a
 * cluster-scoped object. Setting the same controller again updates its reference.
 */
export function setControllerReference<T extends KubeObject>(
  owner: DeepReadonly<KubeObject>,
  object: T,
  opts: ControllerReferenceOptions = {},
): T {
  validateOwner(owner, object);
  const ref: OwnerReference = {
    ...baseRef(owner, "setControllerReference"),
    blockOwnerDeletion: opts.blockOwnerDeletion ?? true,
    controller: true,
  };
  const existing = getControllerOf(object);
  if (existing && !referSameObject(existing, ref)) throw new AlreadyOwnedError(object, existing);
  return upsert(object, ref);
}

/**
 * A copy of `object` with `owner` among its owners (no `controller` flag): the object is deleted
 * with its owner. An existing reference to the same owner is replaced.
 */
export function setOwnerReference<T extends KubeObject>(
  owner: DeepReadonly<KubeObject>,
  object: T,
  opts: OwnerReferenceOptions = {},
): T {
  validateOwner(owner, object);
  const ref = baseRef(owner, "setOwnerReference");
  if (opts.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = opts.blockOwnerDeletion;
  if (opts.controller !== undefined) ref.controller = opts.controller;
  return upsert(object, ref);
}

/** A copy of `object` without its reference to `owner`; throws `OwnerReferenceNotFoundError` if it has none. */
export function removeOwnerReference<T extends KubeObject>(owner: DeepReadonly<KubeObject>, object: T): T {
  const ref = matchRef(owner, "removeOwnerReference");
  const refs = object.metadata?.ownerReferences ?? [];
  const i = refs.findIndex((r) => referSameObject(r, ref));
  if (i < 0) {
    throw new OwnerReferenceNotFoundError(
      `${object.kind ?? "the object"} ${object.metadata?.name ?? ""} does not have an owner reference for ${ref.kind} ${ref.name}`,
    );
  }
  return withOwnerReferences(
    object,
    refs.filter((_, j) => j !== i).map((r) => ({ ...r })),
  );
}

/**
 * A copy of `object` without `owner`'s controller reference. Throws `OwnerReferenceNotFoundError`
 * when the object has no controller, no reference to `owner`, or one that is not the controller.
 */
export function removeControllerReference<T extends KubeObject>(
  owner: DeepReadonly<KubeObject>,
  object: T,
): T {
  const what = `${object.kind ?? "the object"} ${object.metadata?.name ?? ""}`;
  if (!hasControllerReference(object)) {
    throw new OwnerReferenceNotFoundError(
      `${what} does not have an owner reference with controller equals true`,
    );
  }
  const ref = matchRef(owner, "removeControllerReference");
  const refs = object.metadata?.ownerReferences ?? [];
  const i = refs.findIndex((r) => referSameObject(r, ref));
  if (i < 0) {
    throw new OwnerReferenceNotFoundError(
      `${what} does not have a controller reference for ${ref.kind} ${ref.name}`,
    );
  }
  if (refs[i].controller !== true) {
    throw new OwnerReferenceNotFoundError(
      `${ref.kind} ${ref.name} is not the controller reference of ${what}`,
    );
  }
  return withOwnerReferences(
    object,
    refs.filter((_, j) => j !== i).map((r) => ({ ...r })),
  );
}

/** Whether `object` lists `owner` among its owner references (by group, kind and name). */
export function hasOwnerReference(
  object: DeepReadonly<KubeObject>,
  owner: DeepReadonly<KubeObject>,
): boolean {
  const ref = matchRef(owner, "hasOwnerReference");
  return (object.metadata?.ownerReferences ?? []).some((r) => referSameObject(r, ref));
}

/** Whether any owner reference of `object` is a controller reference. */
export function hasControllerReference(object: DeepReadonly<KubeObject>): boolean {
  return getControllerOf(object) !== undefined;
}
