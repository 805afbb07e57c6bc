// What the webhook server serves on a path: an HTTP handler that receives, besides the request and
// the response, a context with a cancellation signal, a logger and the webhook metrics. Admission
// and conversion webhooks implement it; so can anything else a user registers.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../log/index.js";
import type { WebhookMetrics } from "../metrics/index.js";

export interface WebhookRequestContext {
  /** The path the webhook is registered on: `/mutate--v1-pod`. */
  readonly path: string;
  /**
   * Aborts when the client goes away, when the request's `?timeout=` (which kube-apiserver sends
   * with every webhook call) passes, or when the server shuts down.
   */
  readonly signal: AbortSignal;
  /** The server's logger, named `webhooks` with the path as a value. */
  readonly logger: Logger;
  /** The server's webhook metrics (a handler counts its own panics with `panics`). */
  readonly metrics: WebhookMetrics;
}

/** Answers one request on a registered path. A rejected promise or a throw gets a plain 500. */
export type WebhookHTTPHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: WebhookRequestContext,
) => unknown;

/** A webhook object: what `newAdmissionWebhook` and `newConversionWebhook` return. */
export interface Webhook {
  serveHTTP: WebhookHTTPHandler;
}

/** What `register` accepts: a handler function or a webhook object. */
export type WebhookHandler = WebhookHTTPHandler | Webhook;
