// Errors of the cache, in one place: each a class with a stable `code` and `name`, and a message
// that says what to do. A missing object is not among them: `get` rejects with the API server's
// own NotFound `StatusError`, so `isNotFound` works the same on cached and direct reads.
import type { Status } from "kubernetes-types/meta/v1.js";
import type { GroupVersionKind, Kind } from "../api/index.js";
import { StatusError } from "../rest/index.js";

function gvkText(gvk: GroupVersionKind): string {
  return gvk.group ? `${gvk.group}/${gvk.version}, Kind=${gvk.kind}` : `${gvk.version}, Kind=${gvk.kind}`;
}

/** A read of a kind the cache holds no informer for, with `readerFailOnMissingInformer` set. */
export class ResourceNotCachedError extends Error {
  override readonly name = "ResourceNotCachedError";
  readonly code = "ERR_RESOURCE_NOT_CACHED";
  constructor(gvk: GroupVersionKind) {
    super(
      `${gvkText(gvk)} is not cached: readerFailOnMissingInformer is set, so call ` +
        "cache.getInformer(kind) before reading it (or read it through the API reader)",
    );
  }
}

/** A read before `cache.start(signal)` was called. */
export class CacheNotStartedError extends Error {
  override readonly name = "CacheNotStartedError";
  readonly code = "ERR_CACHE_NOT_STARTED";
  constructor() {
    super(
      "the cache is not started, so it cannot be read: call cache.start(signal) (the Manager does) first",
    );
  }
}

/** `matchingFields` on a field no index was registered for. */
export class IndexNotFoundError extends Error {
  override readonly name = "IndexNotFoundError";
  readonly code = "ERR_INDEX_NOT_FOUND";
  constructor(kind: GroupVersionKind, field: string) {
    super(
      `cannot list ${kind.kind} by field "${field}": no index is registered for it; call ` +
        `cache.indexField(kind, ${JSON.stringify(field)}, extract) (mgr.getFieldIndexer()) before listing ` +
        "with matchingFields (metadata.name and metadata.namespace need none)",
    );
  }
}

/** A read in a namespace the informer of that kind does not watch. */
export class UnknownNamespaceError extends Error {
  override readonly name = "UnknownNamespaceError";
  readonly code = "ERR_UNKNOWN_NAMESPACE";
  constructor(kind: GroupVersionKind, namespace: string, known: readonly string[]) {
    super(
      `cannot read ${kind.kind} in namespace "${namespace}": the cache watches ${kind.kind} only in ` +
        `${known.map((n) => `"${n}"`).join(", ")}; add the namespace to defaultNamespaces or byObject, ` +
        "or read it through the API reader",
    );
  }
}

/** A list option the cache cannot serve (a non-exact field selector, a bad continue token). */
export class InvalidCacheListError extends Error {
  override readonly name = "InvalidCacheListError";
  readonly code = "ERR_INVALID_CACHE_LIST";
}

/** Waiting for an informer ended because the informer (or the cache) stopped, or the signal fired. */
export class CacheSyncError extends Error {
  override readonly name = "CacheSyncError";
  readonly code = "ERR_CACHE_SYNC";
}

/** The NotFound error kube-apiserver answers for a missing object, built without a request. */
export function notFoundError(kind: Kind, name: string): StatusError {
  const resource = kind.group ? `${kind.plural}.${kind.group}` : kind.plural;
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `${resource} "${name}" not found`,
    reason: "NotFound",
    details: { name, group: kind.group || undefined, kind: kind.plural },
    code: 404,
  };
  if (!kind.group) delete status.details?.group;
  return new StatusError(status);
}

/** Discovery found no resource of the kind: the mapper's error, one class for the whole library. */
export { NoKindMatchError } from "../mapper/index.js";

/**
 * A read through the cache waited for writes made through the client (read-your-writes) and the
 * informer had not seen them in time: its watch lags or is broken. Reading now would return an
 * older state than this process already wrote.
 */
export class StaleCacheError extends Error {
  override readonly name = "StaleCacheError";
  readonly code = "ERR_STALE_CACHE";
  constructor(
    readonly kind: GroupVersionKind,
    readonly pending: readonly { namespace?: string; name: string; resourceVersion?: string }[],
    readonly waitedMs: number,
  ) {
    const first = pending[0];
    const what = first
      ? `${first.namespace ? `${first.namespace}/` : ""}${first.name}` +
        (first.resourceVersion ? ` at resourceVersion ${first.resourceVersion}` : " deleted") +
        (pending.length > 1 ? ` and ${pending.length - 1} more` : "")
      : "";
    super(
      `the cache of ${kind.kind} has not seen ${what}, written through this client, after ` +
        `${Math.round(waitedMs)} ms: its watch lags behind the API server. Retry the reconcile, ` +
        "read through the API reader, or raise the client's readYourWritesTimeoutMs",
    );
  }
}
