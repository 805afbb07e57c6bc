// The healthz handler, after controller-runtime's pkg/healthz (itself after the apiserver's):
// `<endpoint>` aggregates every check, `<endpoint>/<name>` runs one. Output is Kubernetes' text
// format, always verbose on failure, and withholds failure reasons from the aggregate because
// the endpoint is public; the single-check endpoint gives the reason.
import type { IncomingMessage, ServerResponse } from "node:http";
import { posix } from "node:path";
import { requestTarget } from "../httpserver/index.js";
import type { Logger } from "../log/index.js";
import { type Checker, ping, runCheck } from "./checker.js";

interface CheckStatus {
  name: string;
  healthy: boolean;
  excluded: boolean;
}

const textHeaders = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };

/**
 * Serves `subPath` (the request path below the endpoint: `""`, `"/"` or `"/<name>"`) from
 * `checks`, read at each request so checks added later are seen.
 */
export async function serveHealth(
  checks: ReadonlyMap<string, Checker>,
  req: IncomingMessage,
  res: ServerResponse,
  subPath: string,
  opts: { timeoutMs: number; log: Logger },
): Promise<void> {
  const path = cleanPath(subPath);
  if (path === "/") return serveAggregated(checks, req, res, opts);
  const name = path.slice(1);
  // With no checks, the aggregate reports a default "ping", which can be asked for by name.
  const check = checks.size === 0 && name === "ping" ? ping : checks.get(name);
  if (!check) {
    res.writeHead(404, textHeaders);
    res.end("404 page not found\n");
    return;
  }
  const failure = await runCheck(check, req, opts.timeoutMs);
  if (failure === undefined) {
    res.writeHead(200, textHeaders);
    res.end("ok");
  } else {
    res.writeHead(500, textHeaders);
    res.end(`internal server error: ${reason(failure)}\n`);
  }
}

async function serveAggregated(
  checks: ReadonlyMap<string, Checker>,
  req: IncomingMessage,
  res: ServerResponse,
  opts: { timeoutMs: number; log: Logger },
): Promise<void> {
  const { query } = requestTarget(req);
  const unknownExcludes = new Set(query.getAll("exclude"));
  const parts = await Promise.all(
    [...checks].map(async ([name, check]): Promise<CheckStatus> => {
      if (unknownExcludes.delete(name)) return { name, healthy: true, excluded: true };
      const failure = await runCheck(check, req, opts.timeoutMs);
      if (failure === undefined) return { name, healthy: true, excluded: false };
      opts.log.v(1).info("healthz check failed", { checker: name, error: reason(failure) });
      return { name, healthy: false, excluded: false };
    }),
  );
  if (checks.size === 0) parts.push({ name: "ping", healthy: true, excluded: false });
  for (const name of unknownExcludes) {
    opts.log.v(1).info("cannot exclude health check, no matches for it", { checker: name });
  }
  parts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const failed = parts.some((p) => !p.healthy);

  res.writeHead(failed ? 500 : 200, textHeaders);
  if (!failed && !query.has("verbose")) {
    res.end("ok");
    return;
  }
  let body = "";
  for (const p of parts) {
    if (p.excluded) body += `[+]${p.name} excluded: ok\n`;
    else if (p.healthy) body += `[+]${p.name} ok\n`;
    else body += `[-]${p.name} failed: reason withheld\n`;
  }
  if (unknownExcludes.size > 0) {
    const quoted = [...unknownExcludes].sort().map((n) => JSON.stringify(n));
    body += `warn: some health checks cannot be excluded: no matches for ${quoted.join(",")}\n`;
  }
  if (failed) {
    opts.log.info("healthz check failed", { statuses: parts });
    body += "healthz check failed\n";
  } else body += "healthz check passed\n";
  res.end(body);
}

/** Go's path.Clean with a leading slash: `""` and `"/"` are the root, `"/a/"` is `"/a"`. */
function cleanPath(p: string): string {
  const cleaned = posix.normalize(p.startsWith("/") ? p : `/${p}`);
  return cleaned.length > 1 && cleaned.endsWith("/") ? cleaned.slice(0, -1) : cleaned;
}

function reason(failure: unknown): string {
  return failure instanceof Error ? failure.message : String(failure);
}
