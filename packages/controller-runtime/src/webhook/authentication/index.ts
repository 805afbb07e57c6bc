// webhook/authentication: TokenReview webhooks (controller-runtime's pkg/webhook/authentication).
export type {
  TokenReviewContext,
  TokenReviewHandler,
  TokenReviewWebhook,
  TokenReviewWebhookOptions,
} from "./webhook.js";
export {
  authenticated,
  erroredReview,
  newTokenReviewWebhook,
  reviewResponse,
  unauthenticated,
} from "./webhook.js";
