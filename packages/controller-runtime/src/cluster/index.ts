/** @module controller-runtime/cluster */
// cluster: the cache, clients, mapper and Event recorders of one API server, startable on its own
// or added to a Manager (controller-runtime's pkg/cluster).
export type { Cluster, StandaloneCluster } from "./cluster.js";
export { hasCache, newCluster } from "./cluster.js";
export type { ClientOptions, ClusterOptions } from "./options.js";
