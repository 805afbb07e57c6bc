// envtest: API servers for tests — the embedded one (default), real etcd + kube-apiserver
// binaries (KUBEBUILDER_ASSETS), or an existing cluster (USE_EXISTING_CLUSTER=true).
export type { CRDInstallOptions } from "./crd-install.js";
export { installCRDs, uninstallCRDs } from "./crd-install.js";
export { CRDFileError, type ManifestObject, readCRDs } from "./crd-files.js";
export { type Access, AccessRecord, type MissingAccess } from "./access-record.js";
export { type RBACOptions, readRBACManifests } from "./rbac-manifests.js";
export type { EnvironmentOptions, EnvtestUser, StartedEnvironment } from "./environment.js";
export { Environment, EnvironmentStateError } from "./environment.js";
export type {
  FaultAction,
  FaultHandle,
  FaultMatch,
  FaultRule,
  Faults,
  LoggedWrite,
  WriteLog,
} from "../apiserver/faults.js";
export {
  delayEvents,
  dropWatch,
  duplicateEvents,
  error as faultError,
  expireWatch,
  holdEvents,
  latency,
  partition,
  staleReads,
} from "../apiserver/faults.js";
export { ControlPlaneError } from "./process.js";
export type { InstalledWebhooks, LocalServing, WebhookInstallOptions } from "./webhook-install.js";
export {
  installWebhooks,
  localClientConfig,
  prepareLocalServing,
  readWebhookManifests,
  WebhookManifestError,
  withLocalConversion,
} from "./webhook-install.js";
export type { EnvironmentMode, EnvtestSettings } from "./settings.js";
export { resolveSettings } from "./settings.js";
export type { EventuallyOptions } from "./eventually.js";
export { EventuallyTimeoutError, eventually } from "./eventually.js";
export type {
  FaultActs,
  FaultMatrixOptions,
  FaultMatrixResult,
  MatrixFault,
  StandardFaultsOptions,
} from "./fault-matrix.js";
export { faultMatrix, formatMatrix, standardFaults } from "./fault-matrix.js";
export type { Komega, KomegaOptions, Mutate } from "./komega.js";
export { newKomega } from "./komega.js";
export type { LedgerEntry } from "./overlap.js";
export { expectNoOverlap, OverlapError } from "./overlap.js";
export type { SettleOptions } from "./settle.js";
export { SettleTimeoutError, settle } from "./settle.js";
export type { SimulationOptions } from "./simulation/cluster.js";
export type { WorkloadSimulationOptions } from "./simulation/workloads.js";
export { setupWorkloadSimulation } from "./simulation/workloads.js";
export { setupNamespaceLifecycle } from "./simulation/namespace-lifecycle.js";
export { GarbageCollector } from "./simulation/garbage-collector.js";
