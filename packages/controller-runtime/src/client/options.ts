// Options of the Client and of each verb, after controller-runtime's client.Options and its
// GetOptions, ListOptions, CreateOptions, ... Every default is applied in resolveClientOptions.
import type { Preconditions } from "kubernetes-types/meta/v1.js";
import type { GroupVersionKind } from "../api/index.js";
import type { CacheListOptions, Reader } from "../cache/index.js";
import type { RESTClient } from "../rest/index.js";
import type { RESTMapper } from "../mapper/index.js";
import type { ReadYourWritesMetrics } from "../metrics/read-your-writes-metrics.js";

/** `Strict`, `Warn` or `Ignore`: what unknown or duplicate fields in a write cause. */
export type FieldValidation = "Strict" | "Warn" | "Ignore";

export interface ClientOptions {
  /**
   * Serves reads (`get`, `list`) of kinds named by a descriptor; writes always go to the server.
   * The Manager passes its cache. Default: none: every read goes to the API server.
   */
  cache?: Reader;
  /** Kinds always read from the server even with a cache (matched by group, version, kind). Default: none. */
  cacheDisableFor?: readonly GroupVersionKind[];
  /**
   * Also read kinds named only by apiVersion/kind (no `Kind` descriptor, "unstructured") through
   * the cache, as controller-runtime's `CacheOptions.Unstructured`. Default: false.
   */
  cacheUnstructured?: boolean;
  /** Sends every request. Default: `newRESTClient(config)`, closed by `client.close()`. */
  restClient?: RESTClient;
  /** Finds the resource and scope of kinds named by apiVersion/kind (the Manager shares its own). Default: `newRESTMapper(restClient)`. */
  mapper?: RESTMapper;
  /** Field manager of every write that names none (controller-runtime's `WithFieldOwner`). Default: none (the server's default; `apply` then needs one per call). */
  fieldOwner?: string;
  /** `fieldValidation` of every write that names none (`WithFieldValidation`). Default: none (the server's, `Warn`). */
  fieldValidation?: FieldValidation;
  /**
   * Every write (deletes too, subresources too) is a dry run: validated and admitted, never
   * persisted, as controller-runtime's `Options.DryRun` (the client `newDryRunClient` makes).
   * Default: false.
   */
  dryRun?: boolean;
  /**
   * Read-your-writes, beyond controller-runtime: with `"wait"`, each write through this client
   * remembers the resourceVersion it produced (or the delete), and a cached `get` of that object
   * waits until the cache has seen it; a cached `list` waits for the pending writes of its kind
   * and namespace. So a reconciler re-triggered by its own update never reads the older object.
   * A read that waits longer than `readYourWritesTimeoutMs` rejects with a `StaleCacheError`.
   * Writes are remembered until a read saw them, or for a minute. `deleteAllOf` and
   * subresource creates (evictions) are not tracked. Without a cache this does nothing.
   * Default: `"wait"`.
   */
  readYourWrites?: "wait" | "off";
  /** How long a cached read waits for this client's writes. Default: 5000. */
  readYourWritesTimeoutMs?: number;
  /** Where read-your-writes reports its waits and timeouts (the Manager passes its registry's). Default: none. */
  readYourWritesMetrics?: ReadYourWritesMetrics;
}

export interface ResolvedClientOptions {
  cache: Reader | undefined;
  cacheDisableFor: ReadonlySet<string>;
  cacheUnstructured: boolean;
  fieldOwner: string | undefined;
  fieldValidation: FieldValidation | undefined;
  readYourWrites: "wait" | "off";
  readYourWritesTimeoutMs: number;
  readYourWritesMetrics: ReadYourWritesMetrics | undefined;
}

export function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

function readYourWritesMode(mode: unknown): "wait" | "off" {
  if (mode === undefined) return "wait";
  if (mode === "wait" || mode === "off") return mode;
  throw new RangeError(`client: readYourWrites must be "wait" or "off", got ${JSON.stringify(mode)}`);
}

function positiveMs(ms: number, name: string): number {
  if (!(ms > 0) || !Number.isFinite(ms))
    throw new RangeError(`client: ${name} must be a finite number > 0, got ${ms}`);
  return ms;
}

/** Applies every default of `ClientOptions` (the REST client and mapper are made by `newClient`). */
export function resolveClientOptions(opts: ClientOptions): ResolvedClientOptions {
  return {
    cache: opts.cache,
    cacheDisableFor: new Set((opts.cacheDisableFor ?? []).map(gvkKey)),
    cacheUnstructured: opts.cacheUnstructured ?? false,
    fieldOwner: opts.fieldOwner,
    fieldValidation: opts.fieldValidation,
    readYourWrites: readYourWritesMode(opts.readYourWrites),
    readYourWritesTimeoutMs: positiveMs(opts.readYourWritesTimeoutMs ?? 5000, "readYourWritesTimeoutMs"),
    readYourWritesMetrics: opts.readYourWritesMetrics,
  };
}

export interface GetOptions {
  /** Cancels the read. Default: none. */
  signal?: AbortSignal;
}

/** As the cache's list options; from the server, `matchingFields` become a field selector. */
export type ListOptions = CacheListOptions;

/** What `watch` takes: a list's selection, where to start, and the watch's own switches. */
export interface WatchOptions
  extends Pick<
    ListOptions,
    "inNamespace" | "matchingLabels" | "labelSelector" | "matchingFields" | "fieldSelector"
  > {
  /** Start after this resourceVersion (as a list returned it). Default: unset: the server's current state, as ADDED events first. */
  resourceVersion?: string;
  /** Ask for BOOKMARK events (progress markers carrying only a resourceVersion). Default: false. */
  allowWatchBookmarks?: boolean;
  /** The current objects as ADDED events, then a BOOKMARK marking the end (Kubernetes ≥ 1.27). Default: false. */
  sendInitialEvents?: boolean;
  /** The server ends the watch after this many seconds. Default: the server's (30 to 60 minutes). */
  timeoutSeconds?: number;
  /** Ends the watch; the stream then throws the signal's reason. Default: none (`return()` the stream). */
  signal?: AbortSignal;
}

export interface WriteOptions {
  /** Validate and admit but persist nothing (`dryRun=All`). Default: false. */
  dryRun?: boolean;
  /** The field manager of this write. Default: the client's `fieldOwner`. */
  fieldOwner?: string;
  /** Default: the client's `fieldValidation`. */
  fieldValidation?: FieldValidation;
  /** Cancels the request. Default: none. */
  signal?: AbortSignal;
}

export type CreateOptions = WriteOptions;
export type UpdateOptions = WriteOptions;

export interface PatchOptions extends WriteOptions {
  /** Apply patches only: take ownership of fields other managers own. Default: false. */
  force?: boolean;
}

export interface ApplyOptions extends WriteOptions {
  /** Take ownership of fields other managers own instead of failing with a 409 Conflict. Default: false. */
  force?: boolean;
}

export interface DeleteOptions {
  /** Default: false. */
  dryRun?: boolean;
  /** `Orphan`, `Background` or `Foreground`. Default: the resource's (usually `Background`). */
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  /** Default: the object's own (`terminationGracePeriodSeconds` for pods). */
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid / resourceVersion (else 409). Default: none. */
  preconditions?: Preconditions;
  /** Default: none. */
  signal?: AbortSignal;
}

export interface DeleteAllOfOptions
  extends DeleteOptions,
    Pick<
      ListOptions,
      "inNamespace" | "matchingLabels" | "labelSelector" | "matchingFields" | "fieldSelector"
    > {}
