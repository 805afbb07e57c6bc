// resourceVersion / resourceVersionMatch / sendInitialEvents checks with ListOptions' 422 wording.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { ApiError, cause } from "../status.js";

function listOptionsInvalid(causes: StatusCause[]): ApiError {
  const texts = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = texts.length === 1 ? texts[0] : `[${texts.join(", ")}]`;
  return new ApiError(422, "Invalid", `ListOptions.meta.k8s.io "" is invalid: ${summary}`, {
    group: "meta.k8s.io",
    kind: "ListOptions",
    causes,
  });
}

/** Validates the list/watch options kube-apiserver checks before serving. */
export function validateListOptions(query: URLSearchParams, watch: boolean): void {
  // Decoding the query into ListOptions comes first, and fails on the first bad integer.
  int64Param(query, "timeoutSeconds");
  int64Param(query, "limit");
  const causes: StatusCause[] = [];
  const match = query.get("resourceVersionMatch") ?? "";
  const rv = query.get("resourceVersion") ?? "";
  const sendInitial = query.get("sendInitialEvents");
  const sendInitialOn = isTrue(sendInitial);
  if (sendInitial !== null) {
    if (!watch) causes.push(cause.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
    else if (match !== "NotOlderThan") {
      causes.push(
        cause.forbidden(
          "resourceVersionMatch",
          "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ),
      );
    }
    if (watch && sendInitialOn && !isTrue(query.get("allowWatchBookmarks"))) {
      causes.push(cause.forbidden("allowWatchBookmarks", "allowWatchBookmarks must be set to true"));
    }
  }
  if (match !== "") {
    if (watch && sendInitial === null) {
      causes.push(cause.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch"));
    }
    if (!watch && rv === "") {
      causes.push(
        cause.forbidden(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden unless resourceVersion is provided",
        ),
      );
    }
    if (match !== "Exact" && match !== "NotOlderThan") {
      causes.push(cause.notSupported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]));
    }
    if (match === "Exact" && rv === "0") {
      causes.push(
        cause.forbidden(
          "resourceVersionMatch",
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ),
      );
    }
    if (query.get("continue")) {
      causes.push(
        cause.forbidden(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden when continue is provided",
        ),
      );
    }
  }
  if (causes.length > 0) throw listOptionsInvalid(causes);
}

/**
 * A boolean query parameter as kube's parameter codec reads it (Convert_Slice_string_To_bool):
 * absent is false, "0" and "false" in any case are false, anything else (even "" or "no") is
 * true. So `watch=True`, as the Python client sends it, is a watch.
 */
export function isTrue(v: string | null): boolean {
  return v !== null && v !== "0" && v.toLowerCase() !== "false";
}

const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * Go's strconv.ParseInt(s, 10, 64) as kube's query decoding applies it to timeoutSeconds and
 * limit: a 400 with strconv's words for what it refuses.
 */
export function parseInt64(value: string): number {
  const fail = (why: string) =>
    new ApiError(400, "BadRequest", `strconv.ParseInt: parsing ${goQuote(value)}: ${why}`);
  if (!/^[+-]?\d+$/.test(value)) throw fail("invalid syntax");
  const n = BigInt(value);
  if (n > INT64_MAX || n < -INT64_MAX - 1n) throw fail("value out of range");
  return Number(n);
}

/** An int64 query parameter, or undefined when absent. */
export function int64Param(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  return v === null ? undefined : parseInt64(v);
}

/**
 * Parses a resourceVersion parameter as kube's storage does (strconv.ParseUint): what it refuses
 * is a 500 without reason.
 */
export function parseRv(value: string): number {
  return parseRvOr(value, (message) => new ApiError(500, "", message));
}

/**
 * A list's resourceVersion: refused with a 400 BadRequest "invalid resource version: ..." (kube
 * 1.37's watch cache checks a list's version before its storage; a get or a watch still answers
 * the storage's 500).
 */
export function parseListRv(value: string): number {
  return parseRvOr(
    value,
    (message) => new ApiError(400, "BadRequest", `invalid resource version: ${message}`),
  );
}

function parseRvOr(value: string, refuse: (message: string) => ApiError): number {
  const fail = (why: string) =>
    refuse(
      `resourceVersion: Invalid value: ${goQuote(value)}: strconv.ParseUint: parsing ${goQuote(value)}: ${why}`,
    );
  if (!/^\d+$/.test(value)) throw fail("invalid syntax");
  const n = BigInt(value);
  if (n > UINT64_MAX) throw fail("value out of range");
  return Number(n);
}

/** Go's %q for the strings a query carries. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

export function tooLargeRv(requested: number, current: number): ApiError {
  return new ApiError(
    504,
    "Timeout",
    `Timeout: Too large resource version: ${requested}, current: ${current}`,
    {
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
      retryAfterSeconds: 1,
    },
  );
}
