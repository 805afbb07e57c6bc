// Options of the REST verbs, named as in metav1 (ListOptions, CreateOptions, ...) and sent as
// the query parameters the API server reads.
import type { Preconditions } from "kubernetes-types/meta/v1.js";
import type { WarningHandler } from "./warnings.js";

/** `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`: lists of metadata only. */
export const ACCEPT_PARTIAL_METADATA_LIST =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
/** `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`: one object's metadata only. */
export const ACCEPT_PARTIAL_METADATA = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
/** `application/json;as=Table;g=meta.k8s.io;v=v1`: server-side printing, as `kubectl get`. */
export const ACCEPT_TABLE = "application/json;as=Table;g=meta.k8s.io;v=v1";

/** Options every call takes. */
export interface CallOptions {
  /** Cancels the call; a watch's iteration ends with the signal's reason. Default: none. */
  signal?: AbortSignal;
  /** Namespace for namespaced resources; ignored when the resource is cluster-scoped. Default: none. */
  namespace?: string;
  /** The `Accept` header (see `ACCEPT_*`). Default: `application/json`. */
  accept?: string;
  /** Called with each `Warning` header of the response. Default: the client's `onWarning`. */
  onWarning?: WarningHandler;
  /** Total time for a non-streaming call, in ms. Default: the config's `timeoutMs`, else none. */
  timeoutMs?: number;
}

export interface GetOptions extends CallOptions {
  /** `status`, `scale`, ... Default: none. */
  subresource?: string;
  /** `""` (most recent, quorum read) or `"0"` (any, from the watch cache). Default: unset. */
  resourceVersion?: string;
}

export interface ListOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; follow `metadata.continue` for more. Default: unset (everything). */
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  /** `NotOlderThan` or `Exact`. Default: unset. */
  resourceVersionMatch?: string;
  /** Server-side limit on the call's duration, in seconds. Default: unset. */
  timeoutSeconds?: number;
  /**
   * Leave `metadata.managedFields` out of objects read from a protobuf answer, undecoded (what
   * an informer whose transform strips them would throw away). JSON answers keep them. Default: false.
   */
  omitManagedFields?: boolean;
}

export interface WatchOptions extends Omit<ListOptions, "limit" | "continue" | "timeoutMs"> {
  allowWatchBookmarks?: boolean;
  /** Streaming lists (Kubernetes ≥ 1.27): initial state as ADDED events, then a bookmark. */
  sendInitialEvents?: boolean;
  /**
   * Ends the watch with a `NetworkError` (`timedOut`) when nothing (not even a bookmark) arrives
   * for this long, in ms. Default: none: the server's `timeoutSeconds` bounds the watch.
   */
  inactivityTimeoutMs?: number;
}

export interface WriteOptions extends CallOptions {
  /** Validate and admit but persist nothing (`dryRun=All`). Default: false. */
  dryRun?: boolean;
  /** Who owns the fields this write sets (server-side apply's managedFields). Default: the server's guess from the user agent. */
  fieldManager?: string;
  /** `Strict`, `Warn` or `Ignore`: what unknown or duplicate fields cause. Default: the server's (`Warn`). */
  fieldValidation?: string;
  subresource?: string;
}

export type CreateOptions = WriteOptions;

export interface UpdateOptions extends WriteOptions {
  /** Default: `metadata.name` of the object. */
  name?: string;
}

/** Patch types by name, or any content type. */
export type PatchType = "json" | "merge" | "strategic" | "apply";

export interface PatchOptions extends WriteOptions {
  /**
   * `json` (RFC 6902, `application/json-patch+json`), `merge` (RFC 7386,
   * `application/merge-patch+json`), `strategic` (`application/strategic-merge-patch+json`) or
   * `apply` (server-side apply, `application/apply-patch+yaml`, needs `fieldManager`).
   */
  patchType: PatchType;
  /** Server-side apply: take ownership of conflicting fields. Default: false. */
  force?: boolean;
}

export interface DeleteOptions extends CallOptions {
  dryRun?: boolean;
  /** `Orphan`, `Background` or `Foreground`. Default: the resource's (usually `Background`). */
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid / resourceVersion. */
  preconditions?: Preconditions;
}

export interface DeleteCollectionOptions extends DeleteOptions, Omit<ListOptions, keyof CallOptions> {}

/** A request to any path: discovery, `/version`, `/healthz`, a proxy subresource. */
export interface RawRequestOptions extends Omit<CallOptions, "namespace"> {
  /** Default: GET. */
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
  /** Absolute path on the server: `/version`, `/apis/apps/v1`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as is when a string, else as JSON. Default: none. */
  body?: unknown;
  /** Default: `application/json` when there is a body. */
  contentType?: string;
  /** `json` parses the body; `text` returns it as a string. Default: `json`. */
  responseType?: "json" | "text";
}
