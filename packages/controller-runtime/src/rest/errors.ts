// Errors of the REST layer, in one place: each a class with a stable `code` and `name`.
// `StatusError` carries the API server's `Status`; the `is*` helpers in status-reasons.ts
// recognise it by class and reason, never by guessing at an object's shape.
import type { Status, StatusCause, StatusDetails } from "kubernetes-types/meta/v1.js";

/** A non-2xx answer from the API server (or an `ERROR` watch event), with its `Status`. */
export class StatusError extends Error {
  override readonly name = "StatusError";
  readonly code = "ERR_K8S_STATUS";
  /** The API server's `Status` (synthesized, as client-go does, when the body was not one). */
  readonly status: Status;

  /** `options.message` replaces the Status's message as the error's (a hint added on the client side). */
  constructor(status: Status, options?: { cause?: unknown; message?: string }) {
    super(
      options?.message ||
        status.message ||
        `the server answered ${status.code ?? "an error"} (${status.reason || "Unknown"})`,
      options,
    );
    this.status = status;
  }

  /** `NotFound`, `Conflict`, ...; `""` when the server gave none. */
  get reason(): string {
    return this.status.reason ?? "";
  }

  /** The HTTP status code the server reported (`Status.code`). */
  get statusCode(): number {
    return this.status.code ?? 0;
  }

  get details(): StatusDetails | undefined {
    return this.status.details;
  }

  /** Field-level causes (`Invalid` errors list one per rejected field). */
  get causes(): StatusCause[] {
    return this.status.details?.causes ?? [];
  }

  /** How long the server asked us to wait before retrying, if it did. */
  get retryAfterSeconds(): number | undefined {
    const s = this.status.details?.retryAfterSeconds;
    return s !== undefined && s > 0 ? s : undefined;
  }
}

/** The request never got an HTTP answer: connection refused or reset, TLS failure, timeout. */
export class NetworkError extends Error {
  override readonly name = "NetworkError";
  readonly code = "ERR_K8S_NETWORK";
  /** True when a timeout (total, or a stream's inactivity) ended the request. */
  readonly timedOut: boolean;

  constructor(message: string, options: { cause?: unknown; timedOut?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.timedOut = options.timedOut ?? false;
  }
}

/** A watch stream carried a line that is not a watch event. The watch cannot continue. */
export class WatchDecodeError extends Error {
  override readonly name = "WatchDecodeError";
  readonly code = "ERR_K8S_WATCH_DECODE";
  /** The offending line, cut to 200 characters. */
  readonly line: string;

  constructor(message: string, line: string, options?: { cause?: unknown }) {
    super(message, options);
    this.line = line.length > 200 ? `${line.slice(0, 200)}...` : line;
  }
}

/** What the request was about, to word synthesized errors as client-go does. */
export interface ErrorContext {
  method: string;
  /** Plural resource, when the request addressed one. */
  resource?: string;
  group?: string;
  name?: string;
  /**
   * Which credential was sent and from where ("the token in file X (kubeconfig K, context "c",
   * user "u")"), so a 401 says what the server refused and what to renew.
   */
  credentials?: string;
}

// Reasons and messages client-go gives a non-Status error body (NewGenericServerResponse).
const GENERIC: Record<number, [reason: string, message: string | undefined]> = {
  400: ["BadRequest", "the server rejected our request for an unknown reason"],
  401: ["Unauthorized", "the server has asked for the client to provide credentials"],
  403: ["Forbidden", undefined],
  404: ["NotFound", "the server could not find the requested resource"],
  405: ["MethodNotAllowed", "the server does not allow this method on the requested resource"],
  406: ["NotAcceptable", "the server was unable to respond with a content type that the client supports"],
  409: ["Conflict", "the server reported a conflict"],
  410: ["Gone", "the server reported that the resource is gone"],
  413: ["RequestEntityTooLarge", "the request entity is too large"],
  415: ["UnsupportedMediaType", undefined],
  422: ["Invalid", "the server rejected our request due to an error in our request"],
  429: ["TooManyRequests", "the server has received too many requests and has asked us to try again later"],
  503: ["ServiceUnavailable", "the server is currently unable to handle the request"],
  504: [
    "Timeout",
    "the server was unable to return a response in the time allotted, but may still be processing the request",
  ],
};

function isStatusBody(body: unknown): body is Status {
  return (
    typeof body === "object" &&
    body !== null &&
    (body as Status).kind === "Status" &&
    typeof (body as Status).status === "string"
  );
}

/** Parses a `Retry-After` header given in seconds; dates and junk give undefined. */
export function parseRetryAfter(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const n = Number(value.trim());
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * Builds the error for a non-2xx response. A `Status` body is used as it came; anything else
 * (an HTML page from a proxy, plain text, nothing) becomes a synthesized `Status` whose reason
 * follows the HTTP code, as client-go's `newUnstructuredResponseError` does.
 */
export function statusErrorFromResponse(
  statusCode: number,
  bodyText: string,
  retryAfterHeader: string | string[] | undefined,
  ctx: ErrorContext,
): StatusError {
  const retryAfter = parseRetryAfter(retryAfterHeader);
  let parsed: unknown;
  try {
    parsed = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    parsed = undefined;
  }
  if (isStatusBody(parsed) && parsed.status !== "Success") {
    const status: Status = parsed.code ? parsed : { ...parsed, code: statusCode };
    if (retryAfter !== undefined && !status.details?.retryAfterSeconds) {
      status.details = { ...status.details, retryAfterSeconds: retryAfter };
    }
    return new StatusError(status, { message: unauthorizedMessage(status, ctx) });
  }
  const serverMessage = bodyText.trim().slice(0, 1000);
  let [reason, message] = GENERIC[statusCode] ?? ["", undefined];
  if (reason === "Conflict" && ctx.method === "POST") reason = "AlreadyExists";
  if (!reason && statusCode >= 500) {
    reason = "InternalError";
    message = `an error on the server (${JSON.stringify(serverMessage || "unknown")}) has prevented the request from succeeding`;
  }
  message ??= serverMessage || `the server answered HTTP ${statusCode}`;
  const target = [ctx.method.toLowerCase(), qualified(ctx), ctx.name].filter(Boolean).join(" ");
  const details: StatusDetails = {};
  if (ctx.group) details.group = ctx.group;
  if (ctx.resource) details.kind = ctx.resource;
  if (ctx.name) details.name = ctx.name;
  if (serverMessage) details.causes = [{ reason: "UnexpectedServerResponse", message: serverMessage }];
  if (retryAfter !== undefined) details.retryAfterSeconds = retryAfter;
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    code: statusCode,
  };
  if (reason) status.reason = reason;
  status.message = `${message} (${target})`;
  status.details = details;
  return new StatusError(status, { message: unauthorizedMessage(status, ctx) });
}

// A bare "Unauthorized" names neither the credential nor what to do; this does. The transport
// already re-read the token file or re-ran the exec plugin once, so the credential itself is bad.
function unauthorizedMessage(status: Status, ctx: ErrorContext): string | undefined {
  if (status.code !== 401 || ctx.credentials === undefined) return undefined;
  return (
    `${status.message || "Unauthorized"}: the server did not accept ${ctx.credentials}; ` +
    "renew the credential (a new token, a certificate signed by the cluster's client CA and not expired) " +
    'or pick the right context ("kubectl config view --minify" shows what is used)'
  );
}

function qualified(ctx: ErrorContext): string | undefined {
  if (!ctx.resource) return undefined;
  return ctx.group ? `${ctx.resource}.${ctx.group}` : ctx.resource;
}
