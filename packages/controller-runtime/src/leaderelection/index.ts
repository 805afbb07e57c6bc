/** @module controller-runtime/leaderelection */
// leaderelection: client-go's leader election on coordination.k8s.io/v1 Leases. A replica leads
// while it holds the Lease; the elector hands leader work an AbortSignal that aborts before any
// other replica could take the Lease over, so two leaders never act at once.
export type { Clock, TimerHandle } from "./clock.js";
export { realClock } from "./clock.js";
export type { LeaderElector } from "./elector.js";
export { newLeaderElector } from "./elector.js";
export { LeaderElectionConfigError, LeaderElectionLostError } from "./errors.js";
export { defaultIdentity } from "./identity.js";
export type { ControllableResourceLock, FakeResourceLockOptions } from "./fake-lock.js";
export { newFakeResourceLock } from "./fake-lock.js";
export type { LeaseLockOptions } from "./lease-lock.js";
export { newLeaseLock } from "./lease-lock.js";
export type { LockReading, ResourceLock } from "./lock.js";
export type { ElectionLogger, LeaderElectorOptions } from "./options.js";
export { JITTER_FACTOR } from "./options.js";
export type { LeaderElectionRecord } from "./record.js";
export { formatMicroTime } from "./record.js";
