// Helpers mirroring k8s.io/apimachinery/pkg/api/errors: they recognise a StatusError by its
// reason, and fall back to the HTTP code only when the reason is one apimachinery does not know
// (as `reasonAndCodeForError` does), so a proxy's bare 404 still counts as NotFound.
import { StatusError } from "./errors.js";

// apimachinery's knownReasons: a reason in this set is trusted over the code.
const KNOWN_REASONS = new Set([
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "AlreadyExists",
  "Conflict",
  "Gone",
  "Invalid",
  "ServerTimeout",
  "StoreReadError",
  "Timeout",
  "TooManyRequests",
  "BadRequest",
  "MethodNotAllowed",
  "NotAcceptable",
  "RequestEntityTooLarge",
  "UnsupportedMediaType",
  "InternalError",
  "Expired",
  "ServiceUnavailable",
]);

function matches(err: unknown, reason: string, code?: number): boolean {
  if (!(err instanceof StatusError)) return false;
  if (err.reason === reason) return true;
  return code !== undefined && err.statusCode === code && !KNOWN_REASONS.has(err.reason);
}

/** The object (or the resource, or a namespace it lives in) does not exist. */
export function isNotFound(err: unknown): boolean {
  return matches(err, "NotFound", 404);
}

/** A create found an object of that name already there. */
export function isAlreadyExists(err: unknown): boolean {
  return matches(err, "AlreadyExists");
}

/** An update lost an optimistic-concurrency race (stale `resourceVersion`, failed precondition). */
export function isConflict(err: unknown): boolean {
  return matches(err, "Conflict", 409);
}

/** Validation rejected the object; `err.causes` lists the fields. */
export function isInvalid(err: unknown): boolean {
  return matches(err, "Invalid", 422);
}

export function isForbidden(err: unknown): boolean {
  return matches(err, "Forbidden", 403);
}

export function isUnauthorized(err: unknown): boolean {
  return matches(err, "Unauthorized", 401);
}

/** The requested history is gone (410 Gone). See also {@link isResourceExpired}. */
export function isGone(err: unknown): boolean {
  return matches(err, "Gone", 410);
}

/**
 * The `resourceVersion` asked for is too old (reason `Expired`, code 410): what a watch or a
 * list from an old version gets. A reflector relists on `isResourceExpired(e) || isGone(e)`.
 */
export function isResourceExpired(err: unknown): boolean {
  return matches(err, "Expired");
}

/** The server (or priority-and-fairness) asks us to slow down; see {@link retryAfterSeconds}. */
export function isTooManyRequests(err: unknown): boolean {
  return matches(err, "TooManyRequests", 429);
}

/** The request timed out on the server (reason `Timeout`, 504); it may still be processed. */
export function isTimeout(err: unknown): boolean {
  return matches(err, "Timeout", 504);
}

/** The server could not finish in time and asks to retry (reason `ServerTimeout`). */
export function isServerTimeout(err: unknown): boolean {
  return matches(err, "ServerTimeout");
}

export function isBadRequest(err: unknown): boolean {
  return matches(err, "BadRequest", 400);
}

export function isMethodNotSupported(err: unknown): boolean {
  return matches(err, "MethodNotAllowed", 405);
}

export function isNotAcceptable(err: unknown): boolean {
  return matches(err, "NotAcceptable", 406);
}

export function isUnsupportedMediaType(err: unknown): boolean {
  return matches(err, "UnsupportedMediaType", 415);
}

export function isRequestEntityTooLarge(err: unknown): boolean {
  return matches(err, "RequestEntityTooLarge", 413);
}

export function isInternalError(err: unknown): boolean {
  return matches(err, "InternalError", 500);
}

export function isServiceUnavailable(err: unknown): boolean {
  return matches(err, "ServiceUnavailable", 503);
}

/**
 * Swallows a NotFound error and rethrows any other: `await client.get(...).catch(ignoreNotFound)`
 * resolves to the object or `undefined`, and a 500 still rejects. (Go's IgnoreNotFound returns the
 * error instead; a thrown error is how TypeScript passes it on.)
 */
export function ignoreNotFound(err: unknown): undefined {
  if (isNotFound(err)) return undefined;
  throw err;
}

/** Swallows an AlreadyExists error and rethrows any other, as {@link ignoreNotFound}. */
export function ignoreAlreadyExists(err: unknown): undefined {
  if (isAlreadyExists(err)) return undefined;
  throw err;
}

/**
 * The delay the server suggested (`Retry-After`, `details.retryAfterSeconds`), as
 * apimachinery's `SuggestsClientDelay`; `undefined` when it suggested none.
 */
export function retryAfterSeconds(err: unknown): number | undefined {
  if (!(err instanceof StatusError)) return undefined;
  return err.retryAfterSeconds ?? (err.reason === "ServerTimeout" && err.details ? 0 : undefined);
}
