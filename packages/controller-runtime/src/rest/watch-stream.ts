// Opening a watch over the transport: the HTTP exchange around decodeWatchStream. Connection
// ends that client-go counts as a normal close (reset, "other side closed") end the iteration;
// the caller watches again from the last resourceVersion it saw.
import type { KubeObject } from "../api/index.js";
import { type ErrorContext, NetworkError, statusErrorFromResponse, WatchDecodeError } from "./errors.js";
import type { WatchOptions } from "./rest-options.js";
import { type Transport, toNetworkError } from "./transport.js";
import { decodeWatchBatches, type WatchBodyDecoder, type WatchEvent } from "./watch.js";
import { isProtobufResponse, loadCodec } from "./content-type.js";
import { parseWarningHeader, type WarningHandler } from "./warnings.js";

/**
 * The events of one watch. Ends when the server closes the stream; throws a `StatusError`
 * never (an expired version arrives as an `ERROR` event), a `WatchDecodeError` on a malformed
 * line, a `NetworkError` on an inactivity timeout, the signal's reason on abort.
 * `return()` (or `break` in `for await`) closes the connection.
 */
export interface WatchStream<T extends KubeObject = KubeObject> extends AsyncIterableIterator<WatchEvent<T>> {
  return(): Promise<IteratorResult<WatchEvent<T>, undefined>>;
  /**
   * The events not yet taken, up to the end of the next chunk that completed any (never an empty
   * array), or `undefined` once the stream ended; it throws as `next()` does, and the two may be
   * mixed. A consumer applying events synchronously pays one promise per chunk instead of one per
   * event. Optional: streams made by other ListerWatchers may only iterate.
   */
  nextBatch?(): Promise<WatchEvent<T>[] | undefined>;
}

export interface OpenWatchRequest {
  path: string;
  /** The Accept header. Default: `opts.accept`, else JSON. */
  accept?: string;
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
    headers: { accept: req.accept ?? opts.accept ?? "application/json" },
    signal,
    bodyTimeoutMs: opts.inactivityTimeoutMs ?? 0,
  });
  if (req.onWarning && res.headers.warning !== undefined) {
    for (const w of parseWarningHeader(res.headers.warning)) req.onWarning(w);
  }
  const protobuf = isProtobufResponse(res.headers["content-type"]);
  if (res.statusCode < 200 || res.statusCode > 299) {
    let text = "";
    if (protobuf) {
      const bytes = Buffer.from(await res.body.arrayBuffer().catch(() => new ArrayBuffer(0)));
      const codec = await loadCodec();
      try {
        text = JSON.stringify(codec.decodeProtobuf(bytes));
      } catch {
        text = bytes.toString("utf8");
      }
    } else text = await res.body.text().catch(() => "");
    throw statusErrorFromResponse(res.statusCode, text, res.headers["retry-after"], req.ctx);
  }
  const body = res.body;
  // The body's framing is the response's: NDJSON, or kube's length-prefixed protobuf frames.
  const decode: WatchBodyDecoder = protobuf
    ? ((await loadCodec()).decodeProtobufWatchBatches as WatchBodyDecoder)
    : decodeWatchBatches;
  const batches = decode<T>(body, { signal, omitManagedFields: opts.omitManagedFields });
  let done = false;
  // The batch being handed out one event at a time by next(), and where next() is in it.
  let current: WatchEvent<T>[] | undefined;
  let at = 0;

  const finish = (): undefined => {
    done = true;
    current = undefined;
    if (!body.destroyed) body.destroy();
    return undefined;
  };

  const nextBatch = async (): Promise<WatchEvent<T>[] | undefined> => {
    if (current !== undefined) {
      const rest = at === 0 ? current : current.slice(at);
      current = undefined;
      return rest;
    }
    if (done) return undefined;
    try {
      const r = await batches.next();
      return r.done ? finish() : r.value;
    } catch (err) {
      finish();
      if (signal?.aborted) throw signal.reason;
      if (err instanceof WatchDecodeError) throw err;
      const code = (err as { code?: unknown }).code;
      if (typeof code === "string" && PROBABLE_EOF.has(code)) return undefined;
      const wrapped = toNetworkError(err, signal, what);
      if (wrapped instanceof NetworkError && wrapped.timedOut) {
        throw new NetworkError(
          `${what}: nothing arrived for ${opts.inactivityTimeoutMs} ms; watch again from the last resourceVersion`,
          { cause: err, timedOut: true },
        );
      }
      throw wrapped;
    }
  };

  const stream: WatchStream<T> = {
    async next() {
      if (current === undefined) {
        const batch = await nextBatch();
        if (batch === undefined) return { done: true, value: undefined };
        current = batch;
        at = 0;
      }
      const value = current[at++];
      if (at === current.length) current = undefined;
      return { done: false, value };
    },
    nextBatch,
    async return() {
      // Not awaiting the generator's own return: it may be parked on a read that only the
      // destroyed body ends.
      finish();
      await batches.return(undefined).catch(() => {});
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return stream;
}
