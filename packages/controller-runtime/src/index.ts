/** @module controller-runtime */
// controller-runtime for TypeScript: the names a controller author needs, in one import.
// Each folder is also its own subpath (`controller-runtime/manager`, `/envtest`, `/apiserver`, ...).
export type {
  Condition,
  Kind,
  KindOptions,
  KubeList,
  KubeObject,
  ObjectKey,
  ObjectOf,
  Unstructured,
} from "./api/index.js";
export {
  conditionSchema,
  deepCopy,
  defineKind,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionTrue,
  keyOf,
  kinds,
  objectKeyString,
  removeStatusCondition,
  setStatusCondition,
} from "./api/index.js";
export type { ForOptions, OwnsOptions, WatchesOptions } from "./builder/index.js";
export {
  BuilderError,
  controllerManagedBy,
  typedControllerManagedBy,
  webhookManagedBy,
} from "./builder/index.js";
export { defaultControllerRateLimiter, newPriorityQueue } from "./workqueue/index.js";
export { withDefaulter, withValidator } from "./webhook/index.js";
export type { Cache, CacheListOptions, CacheOptions, FieldIndexer, Reader } from "./cache/index.js";
export { StaleCacheError } from "./cache/index.js";
export type { ApplyConfiguration, Client, ClientReader } from "./client/index.js";
export {
  applyConfiguration,
  jsonPatch,
  mergeFrom,
  newAPIReader,
  newClient,
  retryOnConflict,
  strategicMergeFrom,
} from "./client/index.js";
export {
  addFinalizer,
  containsFinalizer,
  createOrPatch,
  createOrUpdate,
  removeFinalizer,
  setControllerReference,
  setOwnerReference,
} from "./controllerutil/index.js";
export type { Cluster, ClusterOptions } from "./cluster/index.js";
export { newCluster } from "./cluster/index.js";
export type { Controller, ControllerOptions } from "./controller/index.js";
export type { Finalizer, FinalizerResult, Finalizers } from "./finalizer/index.js";
export { newFinalizers } from "./finalizer/index.js";
export { newController, newUnmanagedController } from "./controller/index.js";
export type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from "./event/index.js";
export type { EventHandler, MapFunc } from "./handler/index.js";
export {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  funcs as handlerFuncs,
} from "./handler/index.js";
export type { Checker } from "./healthz/index.js";
export { ping } from "./healthz/index.js";
export type { Logger } from "./log/index.js";
export { log, loggerFromFlags, newLogger, setLogger } from "./log/index.js";
export type {
  ConditionalControllerStatus,
  ConditionalOptions,
  ManagerOptions,
  Runnable,
} from "./manager/index.js";
export { Manager, runnableFunc, setupSignalHandler } from "./manager/index.js";
export type { ShardedControllers, ShardingOptions } from "./sharding/index.js";
export { drainLabel, HashRing, RING_LABEL, shardLabel } from "./sharding/index.js";
export type { Predicate } from "./predicate/index.js";
export {
  and,
  annotationChanged,
  funcs as predicateFuncs,
  generationChanged,
  labelChanged,
  labelSelector,
  not,
  or,
  resourceVersionChanged,
} from "./predicate/index.js";
export type { EventRecorder, EventsV1Recorder } from "./recorder/index.js";
export type { ReconcileContext, Reconciler, Request, Result } from "./reconcile/index.js";
export { reconcilerFn, TerminalError, terminalError } from "./reconcile/index.js";
export type { RESTConfig, RestConfig } from "./rest/index.js";
export {
  getConfig,
  ignoreAlreadyExists,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  NetworkError,
  StatusError,
} from "./rest/index.js";
export type { Channel, Source } from "./source/index.js";
export { channel, kind, newChannel } from "./source/index.js";
