// The admission webhook: decodes an AdmissionReview (v1 or v1beta1) from an HTTP POST, asks the
// Handler, and writes the review back in the request's version with the request's uid. As in
// controller-runtime's http.go, a request that cannot be decoded is answered with HTTP 200 and a
// review whose response is an error (status code 400 or 413): the API server then reports our
// message instead of a bare transport error.
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Logger, nullLogger } from "../../log/index.js";
import type { Webhook, WebhookRequestContext } from "../handler.js";
import { readJsonBody, writeJson } from "../internal/read-body.js";
import { errored, messageOf } from "./response.js";
import type { AdmissionRequest, AdmissionResponse, AdmissionReview } from "./types.js";
import { admissionGroup, admissionReviewVersions } from "./types.js";

/** What a handler gets besides the request and the signal. */
export interface AdmissionContext {
  /** Aborts when the API server gives up on the call or the server shuts down. */
  readonly signal: AbortSignal;
  /** The request's logger (the webhook's `logConstructor`). */
  readonly logger: Logger;
  /** What the webhook's `contextFunc` derived from the HTTP request (Go's WithContextFunc); `{}` without one. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The HTTP request, when served over HTTP. */
  readonly httpRequest?: IncomingMessage;
}

/**
 * Decides on one admission request. Return (or resolve) a response built with `allowed`,
 * `denied`, `errored`, `patched`...; the uid is filled in for you. A throw or a rejection is
 * treated as a panic: the request is denied with a 500 status and the panic counted.
 */
export interface Handler {
  handle(
    req: AdmissionRequest,
    signal: AbortSignal,
    ctx?: AdmissionContext,
  ): AdmissionResponse | Promise<AdmissionResponse>;
}

/** An admission webhook: register it on a server, or call `handle` directly (the uid is set). */
export interface AdmissionWebhook extends Webhook {
  readonly handler: Handler;
  /** Runs the handler, recovering from throws (unless `recoverPanic` is off); `onPanic` is told about each one. */
  handle(
    req: AdmissionRequest,
    signal: AbortSignal,
    onPanic?: (err: unknown) => void,
    ctx?: AdmissionContext,
  ): Promise<AdmissionResponse>;
}

/** Makes a request's logger from the webhook's (controller-runtime's `LogConstructor`). */
export type AdmissionLogConstructor = (base: Logger, req: AdmissionRequest | undefined) => Logger;

/** Options of {@link newAdmissionWebhook} (controller-runtime's `admission.Webhook` fields). */
export interface AdmissionWebhookOptions {
  /**
   * Answer a handler's throw as a 500 denial and count it in
   * `controller_runtime_webhook_panics_total`; when false the throw reaches the server, which
   * answers a plain 500 (Go's `RecoverPanic`). Default: true.
   */
  recoverPanic?: boolean;
  /**
   * Derives values from the HTTP request (headers, the client certificate) that the handler
   * reads as `ctx.values` (Go's `WithContextFunc`). Default: none.
   */
  contextFunc?: (
    httpRequest: IncomingMessage,
    ctx: WebhookRequestContext,
  ) => Readonly<Record<string, unknown>> | undefined;
  /**
   * Makes each request's logger from the webhook's. Default: controller-runtime's
   * `DefaultLogConstructor` (object, namespace, name, resource, user, requestID).
   */
  logConstructor?: AdmissionLogConstructor;
}

/** Wraps `handler` as a webhook that speaks AdmissionReview over HTTP. */
export function newAdmissionWebhook(handler: Handler, opts: AdmissionWebhookOptions = {}): AdmissionWebhook {
  const recoverPanic = opts.recoverPanic ?? true;
  const logConstructor = opts.logConstructor ?? defaultLogConstructor;
  async function handle(
    req: AdmissionRequest,
    signal: AbortSignal,
    onPanic?: (err: unknown) => void,
    ctx?: AdmissionContext,
  ): Promise<AdmissionResponse> {
    let resp: AdmissionResponse;
    const context = ctx ?? { signal, logger: logConstructor(nullLogger(), req), values: {} };
    try {
      resp = await handler.handle(req, signal, context);
    } catch (err) {
      if (!recoverPanic) throw err;
      onPanic?.(err);
      resp = errored(500, `panic: ${messageOf(err)} [recovered]`);
    }
    return complete(resp, req);
  }

  async function serveHTTP(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: WebhookRequestContext,
  ): Promise<void> {
    const log = ctx.logger.withName("admission");
    const body = await readJsonBody(req, res);
    if (!body.ok) {
      log.error(new Error(body.message), "unable to decode the request");
      writeJson(res, 200, review(defaultApiVersion, errored(body.code, body.message)));
      return;
    }
    const decoded = decodeReview(body.body);
    if (typeof decoded === "string") {
      log.error(new Error(decoded), "bad AdmissionReview");
      const version = reviewVersionOf(body.body) ?? defaultApiVersion;
      const uid = requestUidOf(body.body);
      writeJson(res, 200, review(version, { ...errored(400, decoded), ...(uid ? { uid } : {}) }));
      return;
    }
    const { apiVersion, request } = decoded;
    const reqLog = logConstructor(log, request);
    if (reqLog.v(5).enabled()) reqLog.v(5).info("received request");
    const values = opts.contextFunc?.(req, ctx) ?? {};
    const resp = await handle(
      request,
      ctx.signal,
      (err) => {
        ctx.metrics.panics.inc();
        reqLog.error(err, "admission handler threw; the request is denied");
      },
      { signal: ctx.signal, logger: reqLog, values, httpRequest: req },
    );
    if (reqLog.v(5).enabled()) {
      reqLog.v(5).info("wrote response", {
        allowed: resp.allowed,
        code: resp.status?.code,
        reason: resp.status?.reason,
        message: resp.status?.message,
      });
    }
    writeJson(res, 200, review(apiVersion, resp));
  }

  return { handler, handle, serveHTTP };
}

const defaultApiVersion = `${admissionGroup}/v1`;
const acceptedApiVersions = new Set<string>(admissionReviewVersions.map((v) => `${admissionGroup}/${v}`));

function review(apiVersion: string, response: AdmissionResponse): AdmissionReview {
  return { apiVersion, kind: "AdmissionReview", response };
}

// The uid from the request, and a status when the handler gave none (controller-runtime's Complete).
function complete(resp: AdmissionResponse, req: AdmissionRequest): AdmissionResponse {
  const out: AdmissionResponse = { ...resp, uid: req.uid };
  if (!out.status) out.status = { code: 200 };
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function reviewVersionOf(body: unknown): string | undefined {
  if (!isRecord(body) || typeof body.apiVersion !== "string") return undefined;
  return acceptedApiVersions.has(body.apiVersion) ? body.apiVersion : undefined;
}

function requestUidOf(body: unknown): string | undefined {
  if (!isRecord(body) || !isRecord(body.request)) return undefined;
  const uid = body.request.uid;
  return typeof uid === "string" && uid !== "" ? uid : undefined;
}

/** The review's version and request, or what is wrong with it. */
export function decodeReview(body: unknown): { apiVersion: string; request: AdmissionRequest } | string {
  if (!isRecord(body)) return "the request body is not a JSON object (expected an AdmissionReview)";
  const { apiVersion, kind } = body;
  // controller-runtime defaults a review without apiVersion and kind to admission.k8s.io/v1.
  if (apiVersion !== undefined || kind !== undefined) {
    if (
      kind !== "AdmissionReview" ||
      typeof apiVersion !== "string" ||
      !acceptedApiVersions.has(apiVersion)
    ) {
      return (
        `unexpected AdmissionReview kind: apiVersion=${JSON.stringify(apiVersion)} kind=${JSON.stringify(kind)}; ` +
        `expected kind "AdmissionReview" in ${[...acceptedApiVersions].join(" or ")}`
      );
    }
  }
  if (!isRecord(body.request)) return "the AdmissionReview has no request";
  const uid = body.request.uid;
  if (typeof uid !== "string" || uid === "") return "the AdmissionReview's request has no uid";
  return {
    apiVersion: typeof apiVersion === "string" ? apiVersion : defaultApiVersion,
    request: body.request as unknown as AdmissionRequest,
  };
}

/** controller-runtime's DefaultLogConstructor: object, namespace, name, resource, user, requestID. */
export function defaultLogConstructor(log: Logger, req: AdmissionRequest | undefined): Logger {
  if (!req) return log;
  return log.withValues({
    object: req.namespace ? `${req.namespace}/${req.name ?? ""}` : (req.name ?? ""),
    namespace: req.namespace,
    name: req.name,
    resource: req.resource,
    user: req.userInfo?.username,
    requestID: req.uid,
  });
}
