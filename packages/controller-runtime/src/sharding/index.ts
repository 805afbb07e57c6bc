// sharding: replicas in a ring share the objects of sharded controllers, each reconciling its
// own part (issue 16). See sharding.ts for the design; the Manager's `sharding` option and the
// builder's `for(Kind, { sharded: true })` are the way in.
export { HashRing } from "./hash-ring.js";
export { drainLabel, RING_LABEL, shardLabel } from "./labels.js";
export type { ShardedControllers, ShardingOptions } from "./sharding.js";
export { ShardMembershipLostError } from "./sharding.js";
