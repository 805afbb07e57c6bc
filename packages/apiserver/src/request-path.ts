// A request's path as kube-apiserver reads it: Go's net/http unescapes the whole path once and
// never resolves dot-segments, so `/namespaces/%2e%2e/secrets` names the namespace "..", not
// the parent of /namespaces. Such names then meet kube's checks: a name that is not a valid path
// segment is a 400, a namespace that would make an invalid storage key is a 500 (etcd's key
// check). Nothing here may let a path reach another scope.
import type { ServerResponse } from "node:http";
import { isHttp2 } from "./http-io.js";
import type { ResourceDefinition } from "./registry/index.js";
import { ApiError } from "./status.js";

/** A request target Go's server refuses before any handler sees it (an invalid `%` escape). */
export class MalformedTargetError extends Error {}

/** Go's server answers a target it cannot parse before any handler, in plain text. */
export function sendMalformedTarget(res: ServerResponse): void {
  res.writeHead(400, {
    "content-type": "text/plain; charset=utf-8",
    // HTTP/2 has no connection header: the stream ends, the connection stays.
    ...(isHttp2(res) ? {} : { connection: "close" }),
  });
  res.end("400 Bad Request");
}

export interface RequestTarget {
  /** The unescaped path. */
  pathname: string;
  /** The path's segments after the leading `/`; a trailing `/` adds none. Empty segments stay. */
  segments: string[];
  query: URLSearchParams;
}

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*/;

/** The path and query of a request target (origin-form, or absolute-form as Go accepts it). */
export function requestTarget(target: string): RequestTarget {
  let t = target;
  const absolute = ABSOLUTE_FORM.exec(t);
  if (absolute) t = t.slice(absolute[0].length) || "/";
  if (!t.startsWith("/"))
    throw new MalformedTargetError(`malformed request target ${JSON.stringify(target)}`);
  const q = t.indexOf("?");
  const rawPath = q < 0 ? t : t.slice(0, q);
  // URLSearchParams drops one leading "?", as URL's searchParams reads its search.
  const query = new URLSearchParams(q < 0 ? "" : t.slice(q));
  const pathname = rawPath.includes("%") ? unescapePath(rawPath) : rawPath;
  const segments = pathname.split("/").slice(1);
  if (segments.length > 1 && segments[segments.length - 1] === "") segments.pop();
  if (segments.length === 1 && segments[0] === "") segments.pop();
  return { pathname, segments, query };
}

/** Go's url.PathUnescape: every `%` starts two hex digits; the bytes are read as UTF-8. */
function unescapePath(raw: string): string {
  const bytes: number[] = [];
  const plain = Buffer.from(raw, "utf8");
  for (let i = 0; i < plain.length; i++) {
    const b = plain[i];
    if (b !== 0x25) {
      bytes.push(b);
      continue;
    }
    const hex = plain.subarray(i + 1, i + 3).toString("latin1");
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) {
      throw new MalformedTargetError(`invalid URL escape ${JSON.stringify(`%${hex}`)}`);
    }
    bytes.push(Number.parseInt(hex, 16));
    i += 2;
  }
  return Buffer.from(bytes).toString("utf8");
}

/** apimachinery's path.IsValidPathSegmentName. */
export function pathSegmentNameErrors(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const c of ["/", "%"]) if (name.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

/** A name in the path that kube's handlers refuse: `Name parameter invalid: "..": may not be '..'`. */
export function checkPathName(name: string): void {
  const errs = pathSegmentNameErrors(name);
  if (errs.length > 0) {
    throw new ApiError(
      400,
      "BadRequest",
      `Name parameter invalid: ${JSON.stringify(name)}: ${errs.join(";")}`,
    );
  }
}

// Resources whose etcd prefix is not their plural (kube's storage registrations).
const KEY_PREFIXES: Record<string, string> = {
  "/services": "services/specs",
  "/endpoints": "services/endpoints",
  "/replicationcontrollers": "controllers",
  "/nodes": "minions",
  "networking.k8s.io/ingresses": "ingress",
};

/** The storage key kube-apiserver would build, without its `/registry` root. */
export function storageKey(def: ResourceDefinition, namespace: string, name: string): string {
  const prefix = def.crdName
    ? `${def.group}/${def.plural}`
    : (KEY_PREFIXES[`${def.group}/${def.plural}`] ?? def.plural);
  let key = `/${prefix}`;
  if (namespace) key += `/${namespace}`;
  if (name) key += `/${name}`;
  return key;
}

/**
 * etcd3 store's prepareKey: a key with a `.` or `..` segment is refused (a 500 without reason),
 * so a namespace of dots can never stand for another scope.
 */
export function checkStorageKey(def: ResourceDefinition, namespace: string, name: string): void {
  const key = storageKey(def, namespace, name);
  if (key.split("/").some((s) => s === "." || s === "..")) {
    throw new ApiError(500, "", `invalid key: ${JSON.stringify(key)}`);
  }
}
