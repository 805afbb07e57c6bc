/** @module controller-runtime/certs */
// certs: certificate generation for development and tests (the embedded API server, envtest,
// webhook servers). Not for production PKI.
export type { CertificateAuthority, ClientCertOptions, KeyPair, ServingCertOptions } from "./generate.js";
export { newCertificateAuthority } from "./generate.js";
// Deprecated names, kept for one release.
export { createCertificateAuthority } from "./deprecated.js";
