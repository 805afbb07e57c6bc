// storage: objects in memory, the global resourceVersion, change history and watch fan-out.
export { History } from "./history.js";
export { keepEncoding, keptEncoding } from "./kept-encoding.js";
export type { StorageOptions } from "./store.js";
export { MAX_OBJECT_BYTES, objectKey, Storage } from "./store.js";
export type { EventType, Obj, StoredEvent, StoredObject, WatchSink } from "./types.js";
export { StorageLimitError } from "./types.js";
