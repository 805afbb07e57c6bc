// apiserver: an embedded, in-memory Kubernetes API server for development and tests. It speaks
// kube-apiserver's HTTP API (discovery, CRUD, watch, patch, CRDs) closely enough for kubectl and
// client libraries; see the issue notes for what differs.
export type { ServiceReference, ServiceResolver } from "./admission/index.js";
export type { TokenUser } from "./authn.js";
export type { ResourceDefinition } from "./registry/index.js";
export type { ApiServerOptions, RunningApiServer } from "./server.js";
export { startApiServer } from "./server.js";
export type { StorageOptions } from "./storage/index.js";
export { Storage } from "./storage/index.js";
