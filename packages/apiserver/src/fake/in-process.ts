// The HTTP exchange without HTTP: a request and a response object with the part of Node's
// IncomingMessage and ServerResponse the router and handlers use, so that a request reaches the
// server's own router (`ServerCore.serve`) in the same process, with no socket, TLS or parser.
// The response's bytes reach the client as a body with what the REST client reads of undici's
// (`text()`, `dump()`, async iteration, `destroy()`), watches streamed with backpressure.
import { EventEmitter } from "node:events";
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeader, ServerResponse } from "node:http";

/** The request: its body is delivered once the handler listens for it (`readBody`). */
export class InProcessRequest extends EventEmitter {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor = 1;
  readonly socket = null;
  readableEnded = false;
  destroyed = false;
  #body: Buffer | undefined;
  #delivering = false;

  constructor(method: string, url: string, headers: IncomingHttpHeaders, body: Buffer | undefined) {
    super();
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.#body = body;
  }

  // readBody listens for "data" then "end" in one synchronous run: the body goes out in the
  // microtask after, as a socket's would arrive in a later turn.
  override on(event: string | symbol, listener: (...args: never[]) => void): this {
    super.on(event, listener as (...args: unknown[]) => void);
    if (event === "end" && !this.#delivering) {
      this.#delivering = true;
      queueMicrotask(() => this.#deliver());
    }
    return this;
  }

  #deliver(): void {
    if (this.destroyed) return;
    const body = this.#body;
    this.#body = undefined;
    if (body !== undefined && body.length > 0) this.emit("data", body);
    this.readableEnded = true;
    this.emit("end");
  }

  /** A body nobody reads (the request failed before its handler): dropped. */
  resume(): this {
    this.#body = undefined;
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    return this;
  }
}

/** What the client is told of the response as it is written. */
interface ResponseSink {
  head(statusCode: number, headers: IncomingHttpHeaders): void;
  chunk(data: string | Uint8Array): void;
  end(): void;
  /** The server dropped the response before its end (a cut watch). */
  abort(): void;
}

/** Backlog past which `write` answers false and the writer waits for "drain", as a socket's. */
const HIGH_WATER_MARK = 64 * 1024;

export class InProcessResponse extends EventEmitter {
  readonly req: InProcessRequest;
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  destroyed = false;
  readonly socket = null;
  readonly writableHighWaterMark = HIGH_WATER_MARK;
  /** Bytes written that the client has not taken yet. */
  writableLength = 0;
  #needDrain = false;
  readonly #headers = new Map<string, OutgoingHttpHeader>();
  readonly #sink: ResponseSink;

  constructor(req: InProcessRequest, sink: ResponseSink) {
    super();
    this.req = req;
    this.#sink = sink;
  }

  get writable(): boolean {
    return !this.writableEnded && !this.destroyed;
  }

  get writableNeedDrain(): boolean {
    return this.#needDrain;
  }

  setHeader(name: string, value: OutgoingHttpHeader): this {
    this.#headers.set(name.toLowerCase(), value);
    return this;
  }

  getHeader(name: string): OutgoingHttpHeader | undefined {
    return this.#headers.get(name.toLowerCase());
  }

  hasHeader(name: string): boolean {
    return this.#headers.has(name.toLowerCase());
  }

  removeHeader(name: string): void {
    this.#headers.delete(name.toLowerCase());
  }

  writeHead(
    statusCode: number,
    reasonOrHeaders?: string | Record<string, OutgoingHttpHeader | undefined>,
    maybeHeaders?: Record<string, OutgoingHttpHeader | undefined>,
  ): this {
    if (this.headersSent)
      throw Object.assign(new Error("headers already sent"), { code: "ERR_HTTP_HEADERS_SENT" });
    this.statusCode = statusCode;
    const headers = typeof reasonOrHeaders === "object" ? reasonOrHeaders : maybeHeaders;
    if (headers) for (const [k, v] of Object.entries(headers)) if (v !== undefined) this.setHeader(k, v);
    this.#sendHead();
    return this;
  }

  flushHeaders(): void {
    if (!this.headersSent) this.#sendHead();
  }

  #sendHead(): void {
    this.headersSent = true;
    const out: IncomingHttpHeaders = {};
    for (const [k, v] of this.#headers) out[k] = typeof v === "number" ? String(v) : v;
    this.#sink.head(this.statusCode, out);
  }

  /** As Node's: `encoding` says how text is written (the protobuf answers' bytes are latin1 text). */
  write(data: string | Uint8Array, encodingOrCb?: BufferEncoding | (() => void), cb?: () => void): boolean {
    if (typeof encodingOrCb === "function") return this.write(data, undefined, encodingOrCb);
    if (typeof data === "string" && encodingOrCb && encodingOrCb !== "utf8" && encodingOrCb !== "utf-8") {
      data = Buffer.from(data, encodingOrCb);
    }
    if (!this.writable) return false;
    if (!this.headersSent) this.#sendHead();
    if (data.length > 0) {
      this.writableLength += typeof data === "string" ? Buffer.byteLength(data) : data.length;
      this.#sink.chunk(data);
    }
    cb?.();
    if (this.writableLength >= HIGH_WATER_MARK) this.#needDrain = true;
    return !this.#needDrain;
  }

  end(
    data?: string | Uint8Array | (() => void),
    encodingOrCb?: BufferEncoding | (() => void),
    cb?: () => void,
  ): this {
    if (typeof data === "function") return this.end(undefined, undefined, data);
    if (typeof encodingOrCb === "function") return this.end(data, undefined, encodingOrCb);
    if (this.writableEnded || this.destroyed) return this;
    if (data !== undefined) this.write(data, encodingOrCb);
    else if (!this.headersSent) this.#sendHead();
    this.writableEnded = true;
    this.#sink.end();
    cb?.();
    this.emit("finish");
    this.emit("close");
    return this;
  }

  /** Drops the response (the server cut it, or the client went away). */
  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    if (!this.writableEnded) this.#sink.abort();
    this.emit("close");
    return this;
  }

  /** The client took `bytes` of what was written. */
  taken(bytes: number): void {
    this.writableLength = Math.max(0, this.writableLength - bytes);
    if (this.#needDrain && this.writableLength < HIGH_WATER_MARK) {
      this.#needDrain = false;
      this.emit("drain");
    }
  }
}

/** Node's types for the router's parameters; the in-process pair has what it uses of them. */
export function asNode(req: InProcessRequest, res: InProcessResponse): [IncomingMessage, ServerResponse] {
  return [req as unknown as IncomingMessage, res as unknown as ServerResponse];
}

/** The error a watch reader sees when the server cut its response, as a dropped connection. */
function connectionCut(): Error {
  return Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
}

/**
 * The response body as the client reads it: all at once (`text()`) for a normal answer, chunk by
 * chunk for a watch. Taking chunks tells the response, so the server's writer sees its backlog.
 */
export class InProcessBody implements ResponseSink, AsyncIterable<Uint8Array> {
  #chunks: (string | Uint8Array)[] = [];
  #ended = false;
  #error: unknown;
  #destroyed = false;
  #wake: (() => void) | undefined;
  #onHead: ((statusCode: number, headers: IncomingHttpHeaders) => void) | undefined;
  #response: InProcessResponse | undefined;

  constructor(onHead: (statusCode: number, headers: IncomingHttpHeaders) => void) {
    this.#onHead = onHead;
  }

  attach(res: InProcessResponse): void {
    this.#response = res;
  }

  get destroyed(): boolean {
    return this.#destroyed;
  }

  head(statusCode: number, headers: IncomingHttpHeaders): void {
    const onHead = this.#onHead;
    this.#onHead = undefined;
    onHead?.(statusCode, headers);
  }

  chunk(data: string | Uint8Array): void {
    if (this.#destroyed) return;
    this.#chunks.push(data);
    this.#signal();
  }

  end(): void {
    this.#ended = true;
    this.#signal();
  }

  abort(): void {
    this.fail(connectionCut());
  }

  /** Ends the body with `err`: a reader waiting gets it. */
  fail(err: unknown): void {
    if (this.#ended || this.#error !== undefined) return;
    this.#error = err;
    this.#signal();
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #wait(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  /** The whole body's chunks, once the response ended. */
  async #all(): Promise<(string | Uint8Array)[]> {
    while (!this.#ended) {
      if (this.#error !== undefined) throw this.#error;
      if (this.#destroyed) throw connectionCut();
      await this.#wait();
    }
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#response?.taken(Number.MAX_SAFE_INTEGER);
    return chunks;
  }

  /** The whole body as text, once the response ended. */
  async text(): Promise<string> {
    const chunks = await this.#all();
    if (chunks.length === 1 && typeof chunks[0] === "string") return chunks[0];
    return Buffer.concat(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : c))).toString("utf8");
  }

  /** The whole body's bytes (a protobuf answer), once the response ended. */
  async arrayBuffer(): Promise<ArrayBuffer> {
    const chunks = await this.#all();
    const bytes = Buffer.concat(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : c)));
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** Drops the body: what is left is not read. */
  async dump(): Promise<void> {
    this.destroy();
  }

  /** The client goes away: the server's response closes, as when a connection closes. */
  destroy(err?: unknown): this {
    if (this.#destroyed) return this;
    this.#destroyed = true;
    this.#chunks = [];
    if (err !== undefined) this.fail(err);
    else this.#signal();
    const res = this.#response;
    if (res && !res.writableEnded) res.destroy();
    return this;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    try {
      for (;;) {
        if (this.#chunks.length > 0) {
          const chunks = this.#chunks;
          this.#chunks = [];
          let bytes = 0;
          for (const c of chunks) {
            const b = typeof c === "string" ? Buffer.from(c) : c;
            bytes += b.length;
            yield b;
          }
          this.#response?.taken(bytes);
          continue;
        }
        if (this.#error !== undefined) throw this.#error;
        if (this.#ended || this.#destroyed) return;
        await this.#wait();
      }
    } finally {
      // A reader that stops early (break, return) closes the stream, as undici's body does.
      if (!this.#ended) this.destroy();
    }
  }
}
