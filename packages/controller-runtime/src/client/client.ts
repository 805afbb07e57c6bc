// The Client: reads from the cache (when given one) or the API server, writes to the API server.
// As controller-runtime's client.Client, with three differences a TypeScript user should know:
// - Reads name the kind with a `Kind` descriptor (`kinds.Pod`, `defineKind<MyCR>(...)`) and are
//   typed by it; a kind known only by name (`{ apiVersion, kind }` or a GroupVersionKind) reads
//   as `Unstructured`, its resource and scope found through discovery.
// - Writes take the object alone: its `apiVersion` and `kind` name the resource (objects the
//   client or the cache returns always carry them). An object without them is refused with a
//   `MissingKindError` before anything is sent.
// - Writes never change the object they are given (it may be frozen, from the cache): they return
//   the object the server answered, with its new resourceVersion, defaults and status.
// Objects read from the cache are frozen (`Readonly` in the types); `structuredClone(obj)` gives
// a copy to change.
import type {
  DeepReadonly,
  GroupVersionKind,
  Kind,
  KubeList,
  KubeObject,
  ObjectKey,
  Unstructured,
} from "../api/index.js";
import type { ApplyInput } from "./apply-configuration.js";
import type { WatchStream } from "../rest/index.js";
import type {
  ApplyOptions,
  CreateOptions,
  DeleteAllOfOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  UpdateOptions,
  WatchOptions,
} from "./options.js";
import type { Patch } from "./patch.js";
import type { SubResourceClient } from "./subresource-client.js";

/** A kind known by name only: `{ apiVersion: "example.com/v1", kind: "Widget" }` or a GroupVersionKind. */
export type KindName = GroupVersionKind | { apiVersion: string; kind: string };

/** Reads objects; what `mgr.getAPIReader()` returns (always from the API server). */
export interface ClientReader {
  /** The object under `key`; a missing one rejects with a NotFound `StatusError` (`isNotFound`, `ignoreNotFound`). */
  get<T extends KubeObject>(kind: Kind<T>, key: ObjectKey, opts?: GetOptions): Promise<DeepReadonly<T>>;
  get(kind: KindName, key: ObjectKey, opts?: GetOptions): Promise<DeepReadonly<Unstructured>>;
  /** The objects `opts` selects; each item carries apiVersion and kind. */
  list<T extends KubeObject>(kind: Kind<T>, opts?: ListOptions): Promise<KubeList<DeepReadonly<T>>>;
  list(kind: KindName, opts?: ListOptions): Promise<KubeList<DeepReadonly<Unstructured>>>;
}

/** Writes objects; each call returns the object the server answered and leaves its argument alone. */
export interface ClientWriter {
  /** Creates `obj` (`generateName` works); rejects with AlreadyExists (409) when the name is taken. */
  create<T extends KubeObject>(obj: T | DeepReadonly<T>, opts?: CreateOptions): Promise<T>;
  /**
   * Replaces `obj` on the server, except its status (the `status` subresource changes that). With
   * `metadata.resourceVersion` set (as read), a stale object is refused with a 409 Conflict.
   */
  update<T extends KubeObject>(obj: T | DeepReadonly<T>, opts?: UpdateOptions): Promise<T>;
  /** Patches the object `obj` names with `patch.data(obj)`: `client.patch(changed, mergeFrom(original))`. */
  patch<T extends KubeObject>(obj: T | DeepReadonly<T>, patch: Patch, opts?: PatchOptions): Promise<T>;
  /**
   * Server-side apply of `config`: creates the object or merges the fields it states, owned by the
   * field owner (the call's, else the client's; one is required). Type the result with
   * `client.apply<ConfigMap>({...})` or build the config with `applyConfiguration(kind, fields)`.
   */
  apply<T extends KubeObject = Unstructured>(config: ApplyInput<T>, opts?: ApplyOptions): Promise<T>;
  /** Deletes the object `obj` names; resolves once the server accepted (finalizers may keep it a while). */
  delete(obj: DeepReadonly<KubeObject>, opts?: DeleteOptions): Promise<void>;
  /** Deletes every object of `kind` that `opts` selects, in `opts.inNamespace` for namespaced kinds. */
  deleteAllOf(kind: Kind | KindName, opts?: DeleteAllOfOptions): Promise<void>;
}

export interface Client extends ClientReader, ClientWriter {
  /** Writes to the `status` subresource: `client.status().update(obj)` changes only the status. */
  status(): SubResourceClient;
  /** Reads and writes a subresource: `client.subResource("eviction").create(pod, eviction)`. */
  subResource(name: string): SubResourceClient;
  /** The descriptor (plural, scope) of an object's kind, or of a kind known by name. */
  kindFor(obj: DeepReadonly<KubeObject> | KindName, opts?: { signal?: AbortSignal }): Promise<Kind>;
  /** Whether the object's kind is namespaced. */
  isObjectNamespaced(obj: DeepReadonly<KubeObject>): Promise<boolean>;
  /** Closes the REST client if this client created it; one passed in is left open. */
  close(): Promise<void>;
}

/** A Client that also watches (controller-runtime's `client.WithWatch`), always at the API server. */
export interface WithWatch extends Client {
  /**
   * Opens a watch of `kind`, selected as a list is (`inNamespace`, selectors); resolves once the
   * server answered (a refused watch rejects with a `StatusError`). Iterate the stream of
   * `{ type, object }` events; `break` or `return()` closes it. Without `resourceVersion` the
   * current objects arrive first as ADDED events. An `ERROR` event with code 410 (Expired) means
   * the version is too old: list again and watch from the list's resourceVersion.
   */
  watch<T extends KubeObject>(kind: Kind<T>, opts?: WatchOptions): Promise<WatchStream<T>>;
  watch(kind: KindName, opts?: WatchOptions): Promise<WatchStream<Unstructured>>;
}
