// List continue tokens in kube's shape: base64url JSON of the snapshot version and the next key.
import { posix } from "node:path";
import { badRequest } from "../status.js";

export interface ContinueToken {
  /** The snapshot's version; negative asks for the latest. */
  rv: number;
  /** Keys strictly after this one come next. */
  start: string;
}

export function encodeContinue(rv: number, lastKey: string): string {
  const json = JSON.stringify({ v: "meta.k8s.io/v1", rv, start: `${lastKey}\u0000` });
  return Buffer.from(json).toString("base64url");
}

/** Go's quoteChar, as encoding/json names a byte it did not expect. */
function quoteChar(byte: number): string {
  if (byte === 0x27) return "'\\''";
  if (byte === 0x22) return `'"'`;
  if (byte >= 0x20 && byte < 0x7f) return `'${String.fromCharCode(byte)}'`;
  return `'\\u${byte.toString(16).padStart(4, "0")}'`;
}

/** base64.RawURLEncoding's strict reading: the offset of the first byte it refuses, if any. */
function base64Error(token: string): number | undefined {
  const bad = token.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0) return bad;
  return token.length % 4 === 1 ? token.length - 1 : undefined;
}

/** encoding/json's words for text that is no JSON (the common cases; others in JSON.parse's). */
function jsonError(bytes: Buffer, e: unknown): string {
  let i = 0;
  while (
    i < bytes.length &&
    (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)
  )
    i++;
  if (i === bytes.length) return "unexpected end of JSON input";
  if (!/[{["tfn0-9-]/.test(String.fromCharCode(bytes[i]!)))
    return `invalid character ${quoteChar(bytes[i]!)} looking for beginning of value`;
  return (e as Error).message;
}

const INVALID = "continue key is not valid";

/**
 * A token as storage.DecodeContinue reads it, with its errors (a 400 "invalid continue token"):
 * base64url without padding, then JSON of the version, resource version and start key. A start
 * key that path.Clean would change is refused (it could range outside the list's prefix); a
 * negative version asks for the latest.
 */
export function decodeContinue(token: string): ContinueToken {
  const fail = (why: string) => badRequest(`invalid continue token: ${why}`);
  const at = base64Error(token);
  if (at !== undefined) throw fail(`${INVALID}: illegal base64 data at input byte ${at}`);
  const bytes = Buffer.from(token, "base64url");
  let parsed: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch (e) {
    throw fail(`${INVALID}: ${jsonError(bytes, e)}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    const type = parsed === null ? "" : Array.isArray(parsed) ? "array" : typeof parsed;
    if (parsed !== null)
      throw fail(`${INVALID}: json: cannot unmarshal ${type} into Go value of type storage.continueToken`);
    parsed = {};
  }
  for (const [field, want] of [
    ["v", "string"],
    ["rv", "number"],
    ["start", "string"],
  ] as const) {
    const v = parsed[field];
    if (v !== undefined && v !== null && typeof v !== want) {
      const goType = want === "number" ? "int64" : "string";
      const type = Array.isArray(v) ? "array" : typeof v === "boolean" ? "bool" : typeof v;
      throw fail(
        `${INVALID}: json: cannot unmarshal ${type} into Go struct field continueToken.${field} of type ${goType}`,
      );
    }
  }
  const version = typeof parsed.v === "string" ? parsed.v : "";
  if (version !== "meta.k8s.io/v1")
    throw fail(`${INVALID}: server does not recognize this encoded version ${version}`);
  const rv = typeof parsed.rv === "number" ? parsed.rv : 0;
  if (rv === 0) throw fail(`${INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  const start = typeof parsed.start === "string" ? parsed.start : "";
  if (start === "") throw fail(`${INVALID}: encoded start key empty (version meta.k8s.io/v1)`);
  const key = start.startsWith("/") ? start : `/${start}`;
  if (posix.normalize(key) !== key || (key.length > 1 && key.endsWith("/")))
    throw fail(`${INVALID}: ${start}`);
  return { rv, start: start.endsWith("\u0000") ? start.slice(0, -1) : start };
}
