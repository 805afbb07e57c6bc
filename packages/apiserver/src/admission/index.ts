// admission: the embedded API server's calls to admission webhooks (Mutating- and
// ValidatingWebhookConfigurations), as kube-apiserver's webhook admission plugins make them,
// and the HTTPS client shared with CRD conversion webhooks.
export type { AdmissionOptions, VersionConverter } from "./dispatch.js";
export { Admission } from "./dispatch.js";
export type { ServiceReference, ServiceResolver, WebhookCall } from "./client.js";
export { callWebhook, clusterDnsResolver, WebhookCallError } from "./client.js";
export type { CreateFn } from "./requests.js";
export { createWithAdmission, deleteWithAdmission, updateWithAdmission } from "./requests.js";
export type { AdmissionAttributes, ClientConfig, Operation } from "./types.js";
