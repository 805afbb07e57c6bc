// The signal a webhook handler receives: aborted when the client goes away, when the request's
// `?timeout=` passes (kube-apiserver adds it to every webhook call, as a Go duration like "10s"),
// or when the server gives up waiting for it on shutdown.
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseGoDuration } from "../../api/index.js";

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
