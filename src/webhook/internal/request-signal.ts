// The signal a webhook handler receives: aborted when the client goes away, when the request's
// `?timeout=` passes (kube-apiserver adds it to every webhook call, as a Go duration like "10s"),
// or when the server gives up waiting for it on shutdown.
import type { IncomingMessage, ServerResponse } from "node:http";

/** `done()` releases the timer once the response is over. */
export function requestSignal(
  _req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
  serverStop: AbortSignal,
): { signal: AbortSignal; done: () => void } {
  const gone = new AbortController();
  const signals = [gone.signal, serverStop];
  let timer: NodeJS.Timeout | undefined;
  const timeoutMs = parseGoDuration(query.get("timeout") ?? "");
  if (timeoutMs !== undefined && timeoutMs > 0) {
    const timeout = new AbortController();
    timer = setTimeout(
      () => timeout.abort(new Error(`the request's timeout of ${timeoutMs}ms passed`)),
      timeoutMs,
    );
    signals.push(timeout.signal);
  }
  res.once("close", () => {
    if (!res.writableFinished) gone.abort(new Error("the client closed the connection"));
  });
  return {
    signal: AbortSignal.any(signals),
    done: () => clearTimeout(timer),
  };
}

const units: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Milliseconds in a Go duration ("10s", "1m30s", "250ms"), or undefined when it is not one. */
export function parseGoDuration(s: string): number | undefined {
  if (s === "") return undefined;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  let end = 0;
  // biome-ignore lint/suspicious/noAssignInExpressions: the usual regex loop
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * (units[m[2]] ?? 0);
    end = re.lastIndex;
  }
  return end === s.length && end > 0 ? total : undefined;
}
