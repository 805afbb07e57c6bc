/** @module controller-runtime-apiserver */
// apiserver: an embedded, in-memory Kubernetes API server for development and tests. It speaks
// kube-apiserver's HTTP API (discovery, CRUD, watch, patch, CRDs) closely enough for kubectl and
// client libraries; see the issue notes for what differs.
export type { ServiceReference, ServiceResolver } from "./admission/index.js";
export type { TokenUser } from "./authn/index.js";
export type { ResourceDefinition } from "./registry/index.js";
export type { WatchCacheSize } from "./handlers/watch-windows.js";
export type { APIServerOptions, RunningAPIServer } from "./server.js";
export { startAPIServer } from "./server.js";
export { embeddedServer } from "./embedded.js";
export { KUBERNETES_VERSION } from "./server-version.js";
export type { StorageOptions } from "./storage/index.js";
export { Storage } from "./storage/index.js";
// Deprecated names, kept for one release.
export type { ApiServerOptions, RunningApiServer } from "./deprecated.js";
export { startApiServer } from "./deprecated.js";
