// A response body read straight from undici's dispatch handler, for watches: each chunk the HTTP
// parser hands over goes to the reader in the same call, with no Readable between them. A watch
// body is thousands of small chunks in a burst, and the stream layer's per-chunk path (push,
// buffer, flow, 'data') cost more than our decoding of a small event, and was still being
// compiled during the first burst. Timeouts are undici's (the request's headersTimeout and
// bodyTimeout), aborts the caller's signal's, pause and resume the handler controller's.
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher } from "undici";

/** The reader of a {@link PushBody}: called with each chunk, then once at the end. */
export interface BodySink {
  onData(chunk: Uint8Array): void;
  onEnd(): void;
  onError(err: unknown): void;
  /** Destroyed without an error. */
  onClose(): void;
}

/** What undici answered: status and headers, and the body still arriving. */
export interface PushResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: PushBody;
}

class Released extends Error {
  constructor() {
    super("watch body released by its reader");
    this.name = "AbortError";
  }
}

/** The body: chunks wait here until a reader attaches (the answer resolves a promise first). */
export class PushBody implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | undefined;
  #sink: BodySink | undefined;
  #pending: Uint8Array[] = [];
  /** null while the body is open; undefined once it ended; {error} when it failed. */
  #end: { error: unknown } | undefined | null = null;
  #released = false;
  #paused = false;
  readonly #signal: AbortSignal | undefined;
  #onAbort: (() => void) | undefined;
  #answer: { resolve: (res: PushResponse) => void; reject: (err: unknown) => void } | undefined;

  constructor(
    signal: AbortSignal | undefined,
    resolve: (res: PushResponse) => void,
    reject: (err: unknown) => void,
  ) {
    this.#signal = signal;
    this.#answer = { resolve, reject };
    if (signal !== undefined && !signal.aborted) {
      this.#onAbort = () => this.#controller?.abort(signal.reason);
      signal.addEventListener("abort", this.#onAbort, { once: true });
    }
  }

  // --- undici's side ---

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#signal?.aborted) controller.abort(this.#signal.reason);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    if (statusCode < 200) return; // informational: the answer follows
    // Nothing is read until a reader attaches.
    if (this.#sink === undefined) controller.pause();
    const answer = this.#answer;
    this.#answer = undefined;
    answer?.resolve({ statusCode, headers, body: this });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const sink = this.#sink;
    if (sink !== undefined) sink.onData(chunk);
    else if (!this.#released) this.#pending.push(chunk);
  }

  onResponseEnd(): void {
    this.#settle(undefined);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    const answer = this.#answer;
    if (answer !== undefined) {
      this.#answer = undefined;
      this.#removeAbortListener();
      answer.reject(err);
      return;
    }
    this.#settle({ error: err });
  }

  // --- the reader's side ---

  /** Attaches the reader: chunks that came before it first, then each as it arrives. */
  listen(sink: BodySink): void {
    this.#sink = sink;
    const pending = this.#pending;
    this.#pending = [];
    for (const chunk of pending) {
      if (this.#released) return;
      sink.onData(chunk);
    }
    if (this.#released) return;
    if (this.#end !== null) this.#tell(this.#end);
    else if (!this.#paused) this.#controller?.resume();
  }

  isPaused(): boolean {
    return this.#paused;
  }

  pause(): void {
    this.#paused = true;
    this.#controller?.pause();
  }

  resume(): void {
    this.#paused = false;
    if (this.#sink !== undefined) this.#controller?.resume();
  }

  /** Stops reading and closes the connection, if the body was still arriving. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#pending = [];
    this.#removeAbortListener();
    if (this.#end === null) this.#controller?.abort(new Released());
  }

  /** The whole body (an error status's Status, a short answer). */
  async bytes(): Promise<Buffer> {
    const chunks: Uint8Array[] = [];
    await new Promise<void>((resolve, reject) => {
      this.listen({
        onData: (chunk) => chunks.push(chunk),
        onEnd: resolve,
        onError: reject,
        onClose: resolve,
      });
    });
    return Buffer.concat(chunks);
  }

  async text(): Promise<string> {
    return (await this.bytes()).toString("utf8");
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.bytes();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  /** Reads the body to its end and drops it, so that the connection can serve the next request. */
  async dump(): Promise<void> {
    await this.bytes();
  }

  #settle(end: { error: unknown } | undefined): void {
    if (this.#end !== null) return;
    this.#end = end;
    this.#removeAbortListener();
    if (this.#released || this.#sink === undefined) return;
    this.#tell(end);
  }

  #tell(end: { error: unknown } | undefined): void {
    const sink = this.#sink!;
    if (end === undefined) sink.onEnd();
    else if (end.error instanceof Released) sink.onClose();
    else sink.onError(end.error);
  }

  #removeAbortListener(): void {
    const onAbort = this.#onAbort;
    if (onAbort === undefined) return;
    this.#onAbort = undefined;
    this.#signal!.removeEventListener("abort", onAbort);
  }
}
