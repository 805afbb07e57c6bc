// Building admission responses, after controller-runtime's admission/response.go: allowed and
// denied answers with a Status, errors with a code, and mutations as base64 JSON patches.
import type { Status } from "kubernetes-types/meta/v1.js";
import { createJSONPatch, type JSONPatchOperation } from "../../patch/index.js";
import { StatusError } from "../../rest/index.js";
import type { AdmissionResponse } from "./types.js";

/** Admits the request; `message` (optional) goes into the status. */
export function allowed(message = ""): AdmissionResponse {
  return validationResponse(true, message);
}

/** Denies the request with 403 Forbidden and `message`, as controller-runtime's `Denied` does. */
export function denied(message = ""): AdmissionResponse {
  return validationResponse(false, message);
}

/** Admits (allowed) or denies (403 Forbidden) with an optional message. */
export function validationResponse(isAllowed: boolean, message = ""): AdmissionResponse {
  const status: Status = isAllowed ? { code: 200 } : { code: 403, reason: "Forbidden" };
  if (message) status.message = message;
  return { allowed: isAllowed, status };
}

/** Denies (or admits) with the given Status, keeping its code, reason, message and details. */
export function validationResponseFromStatus(isAllowed: boolean, status: Status): AdmissionResponse {
  return { allowed: isAllowed, status: { ...status } };
}

/** Denies the request because handling it failed: `code` is the HTTP code reported in the status. */
export function errored(code: number, err: unknown): AdmissionResponse {
  return { allowed: false, status: { code, message: messageOf(err) } };
}

/**
 * Denies the request with the error a handler threw: a `StatusError` keeps its Status (code,
 * reason, details); any other error is denied with 403 Forbidden and its message.
 */
export function deniedByError(err: unknown): AdmissionResponse {
  if (err instanceof StatusError) return validationResponseFromStatus(false, err.status);
  return denied(messageOf(err));
}

/**
 * Admits the request with a JSON patch that turns `original` into `mutated` (no patch at all when
 * they are equal). Compute `original` from the request's object before mutating a copy of it.
 */
export function patched(original: unknown, mutated: unknown, message = ""): AdmissionResponse {
  return patchedWith(createJSONPatch(original, mutated), message);
}

/**
 * Like `patched`, with the original as the raw JSON the API server sent (a string or bytes), so
 * that the patch is computed against exactly what the server holds.
 */
export function patchResponseFromRaw(originalRaw: string | Uint8Array, mutated: unknown): AdmissionResponse {
  let original: unknown;
  try {
    original = JSON.parse(
      typeof originalRaw === "string" ? originalRaw : Buffer.from(originalRaw).toString(),
    );
  } catch (err) {
    return errored(
      500,
      new Error(`the original object is not valid JSON: ${messageOf(err)}`, { cause: err }),
    );
  }
  return patched(original, mutated);
}

/** Admits the request with the given JSON patch operations (none: a plain `allowed`). */
export function patchedWith(ops: JSONPatchOperation[], message = ""): AdmissionResponse {
  const resp = allowed(message);
  if (ops.length === 0) return resp;
  resp.patch = Buffer.from(JSON.stringify(ops)).toString("base64");
  resp.patchType = "JSONPatch";
  return resp;
}

/** A copy of `resp` with `warnings` appended to its warnings. */
export function withWarnings(resp: AdmissionResponse, ...warnings: string[]): AdmissionResponse {
  if (warnings.length === 0) return resp;
  return { ...resp, warnings: [...(resp.warnings ?? []), ...warnings] };
}

/** The JSON patch operations a response carries (decoded from base64), or none. */
export function patchOperations(resp: AdmissionResponse): JSONPatchOperation[] {
  if (!resp.patch) return [];
  return JSON.parse(Buffer.from(resp.patch, "base64").toString()) as JSONPatchOperation[];
}

export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === "string" ? err : String(err);
}
