// TokenReview webhooks (controller-runtime's pkg/webhook/authentication): the API server's
// webhook token authenticator POSTs a TokenReview (authentication.k8s.io/v1 or v1beta1) and
// reads back its status: authenticated or not, the user, or an error. As in Go, a request that
// cannot be read is answered with a review whose status carries the error.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TokenReview, UserInfo } from "kubernetes-types/authentication/v1.js";
import { type Logger, nullLogger } from "../../log/index.js";
import type { Webhook, WebhookRequestContext } from "../handler.js";
import { readJsonBody, writeJson } from "../internal/read-body.js";

/** 1 MiB, controller-runtime's limit for a TokenReview. */
const maxTokenReviewSize = 1024 * 1024;
const group = "authentication.k8s.io";
const versions = new Set([`${group}/v1`, `${group}/v1beta1`]);

/** What the handler gets besides the review (as the admission webhook's). */
export interface TokenReviewContext {
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** What the webhook's `contextFunc` derived from the HTTP request; `{}` without one. */
  readonly values: Readonly<Record<string, unknown>>;
  readonly httpRequest?: IncomingMessage;
}

/** Decides whether a token is valid and whose it is (Go's `authentication.Handler`). */
export interface TokenReviewHandler {
  handle(review: TokenReview, ctx: TokenReviewContext): TokenReview | Promise<TokenReview>;
}

export interface TokenReviewWebhookOptions {
  /** Derives values from the HTTP request for `ctx.values` (Go's `WithContextFunc`). Default: none. */
  contextFunc?: (
    httpRequest: IncomingMessage,
    ctx: WebhookRequestContext,
  ) => Readonly<Record<string, unknown>> | undefined;
}

/** A TokenReview webhook: register it on the webhook server, or call `handle` (the uid is set). */
export interface TokenReviewWebhook extends Webhook {
  readonly handler: TokenReviewHandler;
  handle(review: TokenReview, ctx?: Partial<TokenReviewContext>): Promise<TokenReview>;
}

/** The review authenticating `user` (Go's `Authenticated`). */
export function authenticated(reason: string, user: UserInfo): TokenReview {
  return reviewResponse(true, user, reason);
}

/** The review refusing the token (Go's `Unauthenticated`): no user. */
export function unauthenticated(reason: string): TokenReview {
  return reviewResponse(false, {}, reason);
}

/** The review of a failure to decide (Go's `Errored`). */
export function erroredReview(err: unknown): TokenReview {
  return {
    spec: {},
    status: { authenticated: false, error: err instanceof Error ? err.message : String(err) },
  };
}

/** A review with its status set (Go's `ReviewResponse`); `error` is omitted when empty. */
export function reviewResponse(
  isAuthenticated: boolean,
  user: UserInfo,
  error: string,
  ...audiences: string[]
): TokenReview {
  return {
    spec: {},
    status: {
      authenticated: isAuthenticated,
      user,
      ...(audiences.length > 0 ? { audiences } : {}),
      ...(error ? { error } : {}),
    },
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** controller-runtime's log constructor of a TokenReview: object, namespace, name, user, requestID. */
function reviewLogger(base: Logger, review: TokenReview): Logger {
  const meta = review.metadata ?? {};
  return base.withValues({
    object: meta.namespace ? `${meta.namespace}/${meta.name ?? ""}` : (meta.name ?? ""),
    namespace: meta.namespace,
    name: meta.name,
    user: review.status?.user?.username,
    requestID: meta.uid,
  });
}

/** Wraps `handler` as a webhook that speaks TokenReview over HTTP (Go's `authentication.Webhook`). */
export function newTokenReviewWebhook(
  handler: TokenReviewHandler,
  opts: TokenReviewWebhookOptions = {},
): TokenReviewWebhook {
  async function handle(review: TokenReview, ctx: Partial<TokenReviewContext> = {}): Promise<TokenReview> {
    const out = await handler.handle(review, {
      signal: ctx.signal ?? new AbortController().signal,
      logger: ctx.logger ?? nullLogger(),
      values: ctx.values ?? {},
      httpRequest: ctx.httpRequest,
    });
    // The answer names the request it answers (Go's Response.Complete).
    return { ...out, metadata: { ...out.metadata, uid: review.metadata?.uid } };
  }

  async function serveHTTP(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: WebhookRequestContext,
  ): Promise<void> {
    const log = ctx.logger.withName("authentication");
    const answer = (apiVersion: string, review: TokenReview) =>
      writeJson(res, 200, { ...review, apiVersion, kind: "TokenReview" });
    const contentType = (req.headers["content-type"] ?? "").split(";")[0].trim();
    const body = await readJsonBody(req, res, maxTokenReviewSize);
    if (!body.ok) {
      log.error(new Error(body.message), "unable to read the body from the incoming request");
      return answer(`${group}/v1`, erroredReview(body.message));
    }
    if (contentType !== "application/json") {
      const err = new Error(`contentType=${contentType}, expected application/json`);
      log.error(err, "unable to process a request with unknown content type");
      return answer(`${group}/v1`, erroredReview(err));
    }
    const b = body.body;
    if (!isRecord(b) || (b.kind !== undefined && b.kind !== "TokenReview")) {
      return answer(`${group}/v1`, erroredReview("the request body is not a TokenReview"));
    }
    const apiVersion = typeof b.apiVersion === "string" ? b.apiVersion : `${group}/v1`;
    if (!versions.has(apiVersion)) {
      return answer(
        `${group}/v1`,
        erroredReview(
          `unexpected TokenReview apiVersion ${JSON.stringify(apiVersion)}: expected ${[...versions].join(" or ")}`,
        ),
      );
    }
    const review = b as unknown as TokenReview;
    const reqLog = reviewLogger(log, review);
    if (!review.spec?.token) {
      const err = new Error("token is empty");
      reqLog.error(err, "bad request");
      return answer(apiVersion, erroredReview(err));
    }
    if (reqLog.v(5).enabled()) reqLog.v(5).info("received request");
    const values = opts.contextFunc?.(req, ctx) ?? {};
    let out: TokenReview;
    try {
      out = await handle(review, { signal: ctx.signal, logger: reqLog, values, httpRequest: req });
    } catch (err) {
      ctx.metrics.panics.inc();
      reqLog.error(err, "token review handler threw; the token is not authenticated");
      out = { ...erroredReview(err), metadata: { uid: review.metadata?.uid } };
    }
    if (reqLog.v(5).enabled())
      reqLog.v(5).info("wrote response", { authenticated: out.status?.authenticated });
    answer(apiVersion, out);
  }

  return { handler, handle, serveHTTP };
}
