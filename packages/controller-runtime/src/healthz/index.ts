/** @module controller-runtime/healthz */
// healthz: liveness and readiness probes after controller-runtime's pkg/healthz — named checks,
// `/readyz/<name>`, `?verbose`, `?exclude=<name>` — and the probe server the manager runs.
export type { Checker } from "./checker.js";
export { CheckTimeoutError, cacheSyncedCheck, ping, startedCheck } from "./checker.js";
export type { HealthProbeServer, HealthProbeServerOptions } from "./server.js";
export { CheckNameError, newHealthProbeServer } from "./server.js";
