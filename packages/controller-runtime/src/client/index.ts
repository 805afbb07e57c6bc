/** @module controller-runtime/client */
// client: the Client controllers read and write with. Reads of cached kinds come from the cache
// (frozen objects), everything else from the API server; writes go to the server and return what
// it answered. Status and other subresources, patches (merge, JSON, strategic, apply), server-side
// apply, and the API reader (`newAPIReader`, always the server).
export type { ApplyConfiguration, DeepPartial } from "./apply-configuration.js";
export { applyConfiguration } from "./apply-configuration.js";
export type { Client, ClientReader, ClientWriter, KindName, WithWatch } from "./client.js";
export { newNamespacedClient } from "./namespaced-client.js";
export type { APIReaderOptions } from "./new-client.js";
export { newAPIReader, newClient, newWithWatch } from "./new-client.js";
export {
  FieldOwnerRequiredError,
  MissingKindError,
  MissingNameError,
  NamespaceMismatchError,
  OptimisticLockError,
  StrategicMergeUnsupportedError,
} from "./errors.js";
export type {
  ApplyOptions,
  ClientOptions,
  CreateOptions,
  DeleteAllOfOptions,
  DeleteOptions,
  FieldValidation,
  GetOptions,
  ListOptions,
  PatchOptions,
  UpdateOptions,
  WatchOptions,
  WriteOptions,
} from "./options.js";
export type { MergeFromOptions, Patch } from "./patch.js";
export { applyPatch, jsonPatch, mergeFrom, rawPatch, strategicMergeFrom } from "./patch.js";
export type { RetryBackoff } from "./retry.js";
export { defaultRetry, retryOnConflict, retryOnError } from "./retry.js";
export type { SubResourceClient, SubResourceUpdateOptions } from "./subresource-client.js";
export { newDryRunClient, withFieldOwner, withFieldValidation } from "./write-defaults.js";
