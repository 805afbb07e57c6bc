// Errors of the client, in one place: each a class with a stable `code` and `name` and a message
// that says what to do. Errors from the API server are `StatusError`s (see `rest/`), never these.
import type { GroupVersionKind } from "../api/index.js";

/** A write was given an object that does not say what it is (no `apiVersion` or `kind`). */
export class MissingKindError extends Error {
  override readonly name = "MissingKindError";
  readonly code = "ERR_MISSING_KIND";
  constructor(verb: string, name: string | undefined) {
    super(
      `${verb}: the object${name ? ` "${name}"` : ""} has no apiVersion or kind; the client finds the ` +
        "resource from them, so set both (e.g. `apiVersion: kinds.ConfigMap.apiVersion, kind: kinds.ConfigMap.kind`)",
    );
  }
}

/** A write of an object without `metadata.name` where the verb needs one. */
export class MissingNameError extends Error {
  override readonly name = "MissingNameError";
  readonly code = "ERR_MISSING_NAME";
  constructor(verb: string, kind: string) {
    super(`${verb}: the ${kind} has no metadata.name; set it (generateName works with create only)`);
  }
}

/** Server-side apply without a field owner (neither on the call nor on the client). */
export class FieldOwnerRequiredError extends Error {
  override readonly name = "FieldOwnerRequiredError";
  readonly code = "ERR_FIELD_OWNER_REQUIRED";
  constructor(what: string) {
    super(
      `${what}: server-side apply needs a field owner; pass { fieldOwner: "my-controller" } or create ` +
        "the client with newClient(config, { fieldOwner })",
    );
  }
}

/** A strategic merge patch of a kind that has no strategic-merge metadata (custom resources). */
export class StrategicMergeUnsupportedError extends Error {
  override readonly name = "StrategicMergeUnsupportedError";
  readonly code = "ERR_STRATEGIC_MERGE_UNSUPPORTED";
  constructor(gvk: GroupVersionKind) {
    const gv = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
    super(
      `strategicMergeFrom: ${gvk.kind} (${gv}) is not a built-in kind, and the API server accepts ` +
        "strategic merge patches of built-in kinds only (custom resources answer 415); use mergeFrom(original) instead",
    );
  }
}

/** `mergeFrom(original, { optimisticLock: true })` of an object that has no resourceVersion yet. */
export class OptimisticLockError extends Error {
  override readonly name = "OptimisticLockError";
  readonly code = "ERR_OPTIMISTIC_LOCK";
  constructor(name: string | undefined) {
    super(
      `cannot use optimisticLock: the original object${name ? ` "${name}"` : ""} has no metadata.resourceVersion; ` +
        "pass the object as read from the API server (or the cache)",
    );
  }
}

/** A namespaced client was given an object or key in another namespace (`newNamespacedClient`). */
export class NamespaceMismatchError extends Error {
  override readonly name = "NamespaceMismatchError";
  readonly code = "ERR_NAMESPACE_MISMATCH";
  constructor(verb: string, name: string | undefined, namespace: string, clientNamespace: string) {
    super(
      `${verb}: namespace ${namespace} of the object ${name ?? ""} does not match the namespace ${clientNamespace} ` +
        "on the client; leave the namespace empty or use a client of that namespace",
    );
  }
}
