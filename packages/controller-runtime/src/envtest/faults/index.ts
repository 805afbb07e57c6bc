// envtest's faults, for the two hosts that act them out: the embedded API server (its own
// package) and envtest's fault proxy. Tests use them through `controller-runtime/envtest`.
export * from "./faults.js";
export * from "./status.js";
export * from "./watch-fault-gate.js";
