/** @module controller-runtime/certwatcher */
// certwatcher: serving certificates that follow their files (cert-manager rotations, mounted
// Secrets), shared by the webhook and metrics servers or given to them (controller-runtime's
// pkg/certwatcher and its metrics).
export type { CertificateFiles, CertWatcher, CertWatcherOptions } from "./cert-watcher.js";
export { newCertWatcher } from "./cert-watcher.js";
export { CertificateLoadError } from "./errors.js";
