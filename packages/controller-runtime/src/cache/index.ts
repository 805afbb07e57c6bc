/** @module controller-runtime/cache */
// cache: informers that keep an indexed, in-memory copy of the cluster current by list + watch,
// and the Cache that reads them. The reflector (watcher.ts, reflector.ts) lists, watches, resumes
// and relists; the informer stores frozen objects, keeps indexes and calls handlers; the Cache
// shares one informer per kind and answers get/list from it.
export type { Backoff, ExponentialBackoffOptions } from "./backoff.js";
export { exponentialBackoff, withBackoff } from "./backoff.js";
export type { Cache, FieldIndexer, GetInformerOptions, Reader } from "./cache.js";
export { newCache } from "./cache.js";
export type { ByObject, CacheOptions } from "./cache-options.js";
export type { NamespaceConfig, Namespaces } from "./namespaces.js";
export { ALL_OTHER_NAMESPACES, namespacesOf } from "./namespaces.js";
export type { CacheGetOptions, CacheListOptions } from "./cache-reader.js";
export {
  CacheNotStartedError,
  CacheSyncError,
  IndexNotFoundError,
  InvalidCacheListError,
  NoKindMatchError,
  ResourceNotCachedError,
  StaleCacheError,
  UnknownNamespaceError,
} from "./errors.js";
export type { HandlerRegistration, ResourceEventHandler } from "./event-handler.js";
export { DeletedFinalStateUnknown, deletedObject } from "./event-handler.js";
export type { IndexerFunc } from "./field-index.js";
export {
  ALL_NAMESPACES,
  fieldIndexName,
  indexByFieldAndNamespace,
  keyToNamespacedKey,
} from "./field-index.js";
export { deepFreeze } from "./freeze.js";
export type {
  EventHandlerOptions,
  Informer,
  InformerHealth,
  InformerOptions,
  WatchErrorHandler,
} from "./informer.js";
export { newInformer } from "./informer.js";
export type {
  ListerWatcher,
  ListWatchRestrictions,
  ReflectorListOptions,
  ReflectorWatchOptions,
} from "./list-watcher.js";
export { listWatcherFor } from "./list-watcher.js";
export type { ReadAfterWrites, WrittenObject } from "./read-your-writes.js";
export { compareResourceVersions } from "./resource-version.js";
export type { PartialObjectMetadata } from "./metadata-kind.js";
export { isMetadataOnly, metadataOnly } from "./metadata-kind.js";
export type { ReflectorHealth, ReflectorOptions, ReflectorSink } from "./reflector.js";
export { Reflector, storeKeyOf } from "./reflector.js";
export type { IndexFunc, StoreReader } from "./store.js";
export { IndexConflictError, NAMESPACE_INDEX, UnknownIndexError } from "./store.js";
export type { TransformFunc } from "./transform.js";
export { chainTransforms, stripManagedFields } from "./transform.js";
export type { WatcherErrorReason, WatcherEvent, WatcherOptions } from "./watcher.js";
export { INITIAL_EVENTS_END_ANNOTATION, WatcherError, watcher } from "./watcher.js";
// Deprecated names, kept for one release.
export { createCache } from "./deprecated.js";
