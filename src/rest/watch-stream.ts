// Opening a watch over the transport: the HTTP exchange around decodeWatchStream. Connection
// ends that client-go counts as a normal close (reset, "other side closed") end the iteration;
// the caller watches again from the last resourceVersion it saw.
import type { KubeObject } from "../api/index.js";
import { type ErrorContext, NetworkError, statusErrorFromResponse, WatchDecodeError } from "./errors.js";
import type { WatchOptions } from "./rest-options.js";
import { type Transport, toNetworkError } from "./transport.js";
import { decodeWatchStream, type WatchEvent } from "./watch.js";
import { parseWarningHeader, type WarningHandler } from "./warnings.js";

/**
 * The events of one watch. Ends when the server closes the stream; throws a `StatusError`
 * never (an expired version arrives as an `ERROR` event), a `WatchDecodeError` on a malformed
 * line, a `NetworkError` on an inactivity timeout, the signal's reason on abort.
 * `return()` (or `break` in `for await`) closes the connection.
 */
export interface WatchStream<T extends KubeObject = KubeObject> extends AsyncIterableIterator<WatchEvent<T>> {
  return(): Promise<IteratorResult<WatchEvent<T>, undefined>>;
}

export interface OpenWatchRequest {
  path: string;
  opts: WatchOptions;
  onWarning?: WarningHandler;
  ctx: ErrorContext;
}

// Codes of a connection that ended under the stream: client-go's net.IsProbableEOF.
const PROBABLE_EOF = new Set([
  "UND_ERR_SOCKET",
  "ECONNRESET",
  "EPIPE",
  "UND_ERR_CLOSED",
  "ERR_STREAM_PREMATURE_CLOSE",
]);

export async function openWatch<T extends KubeObject>(
  transport: Transport,
  req: OpenWatchRequest,
): Promise<WatchStream<T>> {
  const { opts } = req;
  const { signal } = opts;
  const what = `watch ${req.path}`;
  const res = await transport.send({
    method: "GET",
    path: req.path,
    headers: { accept: opts.accept ?? "application/json" },
    signal,
    bodyTimeoutMs: opts.inactivityTimeoutMs ?? 0,
  });
  if (req.onWarning && res.headers.warning !== undefined) {
    for (const w of parseWarningHeader(res.headers.warning)) req.onWarning(w);
  }
  if (res.statusCode < 200 || res.statusCode > 299) {
    const text = await res.body.text().catch(() => "");
    throw statusErrorFromResponse(res.statusCode, text, res.headers["retry-after"], req.ctx);
  }
  const body = res.body;
  const events = decodeWatchStream<T>(body, { signal });
  let done = false;

  const finish = (): IteratorResult<WatchEvent<T>, undefined> => {
    done = true;
    if (!body.destroyed) body.destroy();
    return { done: true, value: undefined };
  };

  const stream: WatchStream<T> = {
    async next() {
      if (done) return { done: true, value: undefined };
      try {
        const r = await events.next();
        return r.done ? finish() : r;
      } catch (err) {
        finish();
        if (signal?.aborted) throw signal.reason;
        if (err instanceof WatchDecodeError) throw err;
        const code = (err as { code?: unknown }).code;
        if (typeof code === "string" && PROBABLE_EOF.has(code)) return { done: true, value: undefined };
        const wrapped = toNetworkError(err, signal, what);
        if (wrapped instanceof NetworkError && wrapped.timedOut) {
          throw new NetworkError(
            `${what}: nothing arrived for ${opts.inactivityTimeoutMs} ms; watch again from the last resourceVersion`,
            { cause: err, timedOut: true },
          );
        }
        throw wrapped;
      }
    },
    async return() {
      // Not awaiting the generator's own return: it may be parked on a read that only the
      // destroyed body ends.
      const result = finish();
      await events.return(undefined).catch(() => {});
      return result;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return stream;
}
