// webhook/conversion: the CRD conversion webhook (`/convert`), hub and spoke per kind, and the
// ConversionReview wire types.
export type { ConversionRequest, ConversionResponse, ConversionReview } from "./types.js";
export { conversionGroup, conversionReviewVersions } from "./types.js";
export type { ConversionSpec, ConversionWebhook, GroupKind, SpokeConverter } from "./webhook.js";
export { ConversionError, isConversionWebhook, newConversionWebhook } from "./webhook.js";
