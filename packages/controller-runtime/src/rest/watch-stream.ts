// Opening a watch over the transport, and the stream it gives. The body is read push-style: each
// chunk is decoded and handed on in the callback that delivered it (`consume`), so an informer
// applies a chunk's events with no promise, generator or queue between the socket and its store.
// `next()`/`nextBatch()` are the pull view of the same stream, for `for await` and tests: chunks
// wait in a queue, and the body is paused while one waits. Connection ends that client-go counts
// as a normal close (reset, "other side closed") end the stream; the caller watches again from
// the last resourceVersion it saw.
import type { Readable } from "node:stream";
import type { KubeObject } from "../api/index.js";
import { type ErrorContext, NetworkError, statusErrorFromResponse, WatchDecodeError } from "./errors.js";
import type { WatchOptions } from "./rest-options.js";
import { type Transport, toNetworkError } from "./transport.js";
import { JSONWatchDecoder, type WatchEvent, type WatchFrameDecoder } from "./watch.js";
import { isProtobufResponse, loadCodec } from "./content-type.js";
import { ProtobufFrameDecoder } from "./protobuf-frame-decoder.js";
import { PushBody } from "./push-body.js";
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
  /**
   * Push mode: calls `onBatch` synchronously with the events not yet taken, then with each
   * chunk's events as the chunk arrives (never an empty array; one array refilled for each
   * chunk, so valid during the call only), until `onBatch` returns `false`
   * (it detaches: the stream stays open, paused, for a later `consume` or `nextBatch`) or the
   * stream ends. Resolves to `true` when the stream ended, `false` when detached; rejects as
   * `next()` throws, after handing over the events decoded before the failure. An exception from
   * `onBatch` closes the stream and rejects with it. Optional, as `nextBatch`.
   */
  consume?(onBatch: (events: WatchEvent<T>[]) => boolean | undefined): Promise<boolean>;
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
    pushBody: true,
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
  // The body's framing is the response's: NDJSON, or kube's length-prefixed protobuf frames.
  let decoder: WatchFrameDecoder<T> = new JSONWatchDecoder<T>();
  if (protobuf) {
    const { ProtobufWatchDecoder } = await loadCodec();
    decoder = new ProtobufFrameDecoder<T>(
      new ProtobufWatchDecoder({ omitManagedFields: opts.omitManagedFields }),
    );
  }
  return new BodyWatchStream<T>(
    res.body as PushBody | Readable,
    decoder,
    signal,
    what,
    opts.inactivityTimeoutMs,
  );
}

type Failure = { error: unknown };

/** What the stream needs of a body: our transport's PushBody, a Readable, or any async iterable of chunks. */
interface BodySource {
  isPaused(): boolean;
  pause(): void;
  resume(): void;
  /** Stops reading and closes the connection. */
  release(): void;
}

interface BodyCallbacks {
  onData(chunk: Uint8Array): void;
  onEnd(): void;
  onError(err: unknown): void;
  /** Destroyed without an error. */
  onClose(): void;
}

/** A Node Readable (undici's body): its 'data' events are the push. */
function readableSource(body: Readable, cb: BodyCallbacks): BodySource {
  body.on("data", cb.onData);
  body.once("end", cb.onEnd);
  body.on("error", cb.onError);
  // A body destroyed without an error (by us, or under us) ends the stream too.
  body.once("close", cb.onClose);
  return {
    isPaused: () => body.isPaused(),
    pause: () => void body.pause(),
    resume: () => void body.resume(),
    release: () => {
      body.off("data", cb.onData);
      if (!body.destroyed) body.destroy();
    },
  };
}

/**
 * Any other body (a transport's own, as the in-process fake's): read with async iteration, a
 * chunk at a time, waiting while paused.
 */
function iterableSource(
  body: AsyncIterable<Uint8Array> & { destroy?(): unknown },
  cb: BodyCallbacks,
): BodySource {
  let paused = false;
  let released = false;
  let wake: (() => void) | undefined;
  void (async () => {
    try {
      for await (const chunk of body) {
        if (released) return;
        cb.onData(chunk);
        while (paused && !released) await new Promise<void>((r) => (wake = r));
        if (released) return;
      }
      if (!released) cb.onEnd();
    } catch (err) {
      if (!released) cb.onError(err);
    }
  })();
  return {
    isPaused: () => paused,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      const w = wake;
      wake = undefined;
      w?.();
    },
    release: () => {
      if (released) return;
      released = true;
      body.destroy?.();
      const w = wake;
      wake = undefined;
      w?.();
    },
  };
}

/** A watch over a response body; see {@link WatchStream}. */
class BodyWatchStream<T extends KubeObject> implements WatchStream<T> {
  readonly #body: BodySource;
  readonly #decoder: WatchFrameDecoder<T>;
  readonly #signal: AbortSignal | undefined;
  readonly #what: string;
  readonly #inactivityMs: number | undefined;
  /** Decoded batches not yet taken (pull mode, or before a consumer attached). */
  #queue: WatchEvent<T>[][] = [];
  /** next()'s position in the queue's first batch. */
  #at = 0;
  /** The stream ended (undefined) or failed ({error}); what follows the queue. */
  #end: Failure | null | undefined = null;
  #closed = false;
  /** A pull consumer waiting for a batch, or a push consumer. */
  #waiter: (() => void) | undefined;
  #push: { onBatch: (events: WatchEvent<T>[]) => boolean | undefined; settle: () => void } | undefined;

  constructor(
    body: PushBody | Readable | AsyncIterable<Uint8Array>,
    decoder: WatchFrameDecoder<T>,
    signal: AbortSignal | undefined,
    what: string,
    inactivityMs: number | undefined,
  ) {
    this.#decoder = decoder;
    this.#signal = signal;
    this.#what = what;
    this.#inactivityMs = inactivityMs;
    const cb: BodyCallbacks = {
      onData: this.#onData,
      onEnd: this.#onEnd,
      onError: this.#onError,
      onClose: this.#onClose,
    };
    if (body instanceof PushBody) {
      // Assigned before it listens: chunks that came first are handed over in that call.
      this.#body = body;
      body.listen(cb);
    } else
      this.#body =
        typeof (body as Readable).on === "function" && typeof (body as Readable).pause === "function"
          ? readableSource(body as Readable, cb)
          : iterableSource(body as AsyncIterable<Uint8Array>, cb);
    // No listener of ours on `signal`: undici ends the body on abort (an 'error', or a 'close'),
    // and one more listener per watch on a signal that many informers share trips Node's
    // MaxListeners warning.
    if (signal?.aborted) this.#finish({ error: signal.reason });
  }

  /** Push mode's one batch array, refilled for each chunk: no array per chunk. */
  readonly #scratch: WatchEvent<T>[] = [];

  readonly #onData = (chunk: Uint8Array): void => {
    let batch: WatchEvent<T>[];
    if (this.#push !== undefined) {
      batch = this.#scratch;
      batch.length = 0;
    } else batch = [];
    try {
      this.#decoder.push(chunk, batch);
    } catch (err) {
      if (batch.length > 0) this.#deliver(batch);
      this.#fail(err);
      return;
    }
    if (batch.length > 0) this.#deliver(batch);
  };

  readonly #onEnd = (): void => {
    const batch: WatchEvent<T>[] = [];
    try {
      this.#decoder.end(batch);
    } catch (err) {
      if (batch.length > 0) this.#deliver(batch);
      this.#fail(err);
      return;
    }
    if (batch.length > 0) this.#deliver(batch);
    this.#finish(undefined);
  };

  readonly #onError = (err: unknown): void => this.#fail(err);

  readonly #onClose = (): void => {
    if (this.#end === null) this.#finish(this.#signal?.aborted ? { error: this.#signal.reason } : undefined);
  };

  /** Hands a batch to the push consumer, or queues it (pausing the body) for a pull. */
  #deliver(batch: WatchEvent<T>[]): void {
    const push = this.#push;
    if (push !== undefined && !this.#closed) {
      let more: boolean | undefined;
      try {
        more = push.onBatch(batch);
      } catch (err) {
        this.#closed = true;
        this.#finish({ error: new ConsumerError(err) });
        return;
      }
      if (more === false) this.#detach();
      return;
    }
    this.#queue.push(batch === this.#scratch ? batch.slice() : batch);
    if (!this.#body.isPaused()) this.#body.pause();
    this.#wake();
  }

  /** Ends the stream on a failure, with the error client-go would see (or none: a normal end). */
  #fail(err: unknown): void {
    if (this.#end === null) this.#finish(this.#failure(err));
  }

  #failure(err: unknown): Failure | undefined {
    const signal = this.#signal;
    if (signal?.aborted) return { error: signal.reason };
    if (err instanceof WatchDecodeError) return { error: err };
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && PROBABLE_EOF.has(code)) return undefined;
    const wrapped = toNetworkError(err, signal, this.#what);
    if (wrapped instanceof NetworkError && wrapped.timedOut) {
      return {
        error: new NetworkError(
          `${this.#what}: nothing arrived for ${this.#inactivityMs} ms; watch again from the last resourceVersion`,
          { cause: err, timedOut: true },
        ),
      };
    }
    return { error: wrapped };
  }

  #finish(end: Failure | undefined): void {
    if (this.#end !== null) return;
    this.#end = end;
    this.#release();
    const push = this.#push;
    this.#push = undefined;
    push?.settle();
    this.#wake();
  }

  /** Stops reading: listeners off, connection closed. Idempotent. */
  #release(): void {
    this.#body.release();
  }

  #detach(): void {
    const push = this.#push;
    this.#push = undefined;
    if (!this.#body.isPaused()) this.#body.pause();
    push?.settle();
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  consume(onBatch: (events: WatchEvent<T>[]) => boolean | undefined): Promise<boolean> {
    if (this.#push !== undefined || this.#waiter !== undefined) {
      return Promise.reject(new Error(`${this.#what}: the watch stream is already being read`));
    }
    return new Promise<boolean>((resolve, reject) => {
      const settle = () => {
        const end = this.#end;
        if (end === null) resolve(false);
        else if (end === undefined) resolve(true);
        else reject(end.error instanceof ConsumerError ? end.error.cause : end.error);
      };
      // What was decoded before: in order, before anything new.
      while (this.#queue.length > 0) {
        const first = this.#queue.shift()!;
        const batch = this.#at === 0 ? first : first.slice(this.#at);
        this.#at = 0;
        let more: boolean | undefined;
        try {
          more = onBatch(batch);
        } catch (err) {
          this.#closed = true;
          this.#finish({ error: new ConsumerError(err) });
          settle();
          return;
        }
        if (more === false) return resolve(false);
      }
      if (this.#end !== null) return settle();
      this.#push = { onBatch, settle };
      if (this.#body.isPaused()) this.#body.resume();
    });
  }

  async nextBatch(): Promise<WatchEvent<T>[] | undefined> {
    for (;;) {
      if (this.#queue.length > 0) {
        const first = this.#queue.shift()!;
        const batch = this.#at === 0 ? first : first.slice(this.#at);
        this.#at = 0;
        if (this.#queue.length === 0 && this.#end === null && this.#body.isPaused()) this.#body.resume();
        return batch;
      }
      const end = this.#end;
      if (end === undefined || this.#closed) return undefined;
      if (end !== null) {
        this.#closed = true;
        throw end.error instanceof ConsumerError ? end.error.cause : end.error;
      }
      if (this.#push !== undefined || this.#waiter !== undefined) {
        throw new Error(`${this.#what}: the watch stream is already being read`);
      }
      if (this.#body.isPaused()) this.#body.resume();
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
    }
  }

  async next(): Promise<IteratorResult<WatchEvent<T>, undefined>> {
    if (this.#queue.length === 0) {
      const batch = await this.nextBatch();
      if (batch === undefined) return { done: true, value: undefined };
      this.#queue.unshift(batch);
      this.#at = 0;
    }
    const first = this.#queue[0]!;
    const value = first[this.#at++]!;
    if (this.#at === first.length) {
      this.#queue.shift();
      this.#at = 0;
      if (this.#queue.length === 0 && this.#end === null && this.#body.isPaused()) this.#body.resume();
    }
    return { done: false, value };
  }

  async return(): Promise<IteratorResult<WatchEvent<T>, undefined>> {
    this.#closed = true;
    this.#queue = [];
    this.#finish(undefined);
    this.#release();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** An exception of a push consumer's own, passed back to it as it was. */
class ConsumerError {
  constructor(readonly cause: unknown) {}
}
