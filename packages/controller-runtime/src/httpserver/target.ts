// A request target split by hand into its path and query. Not `new URL(target, base)`: it throws
// on some targets (`//%2f` reads as a host) and resolves dot-segments, so a path would match a
// handler it does not name.
import type { IncomingMessage } from "node:http";

export interface RequestTarget {
  /** The path as sent (not unescaped, dot-segments kept). */
  path: string;
  query: URLSearchParams;
}

export function requestTarget(req: IncomingMessage): RequestTarget {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q === -1
    ? { path: url, query: new URLSearchParams() }
    : { path: url.slice(0, q), query: new URLSearchParams(url.slice(q)) };
}
