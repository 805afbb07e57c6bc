// webhook/admission: AdmissionReview decoding and answering, response builders, and the
// customDefaulter / customValidator webhooks (controller-runtime's pkg/webhook/admission).
export type { AdmissionRequest, AdmissionResponse, AdmissionReview, Operation } from "./types.js";
export { admissionGroup, admissionReviewVersions } from "./types.js";
export {
  allowed,
  denied,
  deniedByError,
  errored,
  patched,
  patchedWith,
  patchOperations,
  patchResponseFromRaw,
  validationResponse,
  validationResponseFromStatus,
  withWarnings,
} from "./response.js";
export type {
  AdmissionContext,
  AdmissionLogConstructor,
  AdmissionWebhook,
  AdmissionWebhookOptions,
  Handler,
} from "./webhook.js";
export { decodeReview, defaultLogConstructor, newAdmissionWebhook } from "./webhook.js";
export { multiMutatingHandler, multiValidatingHandler } from "./multi.js";
export type { CustomDefaulter } from "./defaulter.js";
export { withDefaulter } from "./defaulter.js";
export type { CustomValidator, ValidationWarnings } from "./validator.js";
export { withValidator } from "./validator.js";
