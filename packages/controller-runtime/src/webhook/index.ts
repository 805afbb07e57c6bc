/** @module controller-runtime/webhook */
// webhook: the HTTPS webhook server (certificates followed on disk, client-certificate checks,
// per-path metrics), the builder core behind `webhookManagedBy`, and the default paths.
// Admission and conversion live in ./admission and ./conversion, re-exported here.
export type { WebhookServer, WebhookServerSettings } from "./server.js";
export { newWebhookServer } from "./server.js";
export type { WebhookServerOptions, WebhookTLSOptions } from "./server-options.js";
export type { Webhook, WebhookHandler, WebhookHTTPHandler, WebhookRequestContext } from "./handler.js";
export { CertificateLoadError, DuplicateWebhookPathError, InvalidWebhookPathError } from "./errors.js";
export { convertPath, mutatePath, validatePath } from "./paths.js";
export type { ConverterRegistry, WebhookBuilder } from "./builder.js";
export { conversionWebhookOn, converterRegistry, WebhookBuilderError, webhookFor } from "./builder.js";
export type { StandaloneOptions } from "./standalone.js";
export { standaloneWebhook } from "./standalone.js";
export { maxRequestSize } from "./internal/read-body.js";
export type {
  AdmissionContext,
  AdmissionLogConstructor,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionWebhook,
  AdmissionWebhookOptions,
  CustomDefaulter,
  CustomValidator,
  Handler,
  Operation,
  ValidationWarnings,
} from "./admission/index.js";
export {
  allowed,
  denied,
  defaultLogConstructor,
  deniedByError,
  errored,
  multiMutatingHandler,
  multiValidatingHandler,
  newAdmissionWebhook,
  patched,
  patchedWith,
  patchOperations,
  patchResponseFromRaw,
  validationResponse,
  validationResponseFromStatus,
  withDefaulter,
  withValidator,
  withWarnings,
} from "./admission/index.js";
export type {
  ConversionRequest,
  ConversionResponse,
  ConversionReview,
  ConversionSpec,
  ConversionWebhook,
  GroupKind,
  SpokeConverter,
} from "./conversion/index.js";
export { ConversionError, isConversionWebhook, newConversionWebhook } from "./conversion/index.js";
export type {
  TokenReviewContext,
  TokenReviewHandler,
  TokenReviewWebhook,
  TokenReviewWebhookOptions,
} from "./authentication/index.js";
export {
  authenticated,
  erroredReview,
  newTokenReviewWebhook,
  reviewResponse,
  unauthenticated,
} from "./authentication/index.js";
