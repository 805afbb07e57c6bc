// The byte side of one watch response: initial events written at the pace the client reads them,
// live events batched while the socket is congested, and the cut-off of a watcher that does not
// read its live events.
//
// Live events that arrive while the loop handles a batch of requests go out as one write at the end
// of the loop's turn (setImmediate), as kube-apiserver flushes a watch only once its channel is
// empty: one chunk, one syscall for the batch rather than one per event; a watcher of a busy
// resource was otherwise sent a chunk per create, which its client paid for chunk by chunk.
//
// Why two regimes: initial events (a streamed list, or the replay of history from an old
// resourceVersion) are a snapshot the server produces on demand, as kube-apiserver's watch cache
// does, so they wait for the socket to drain and never count as unread backlog. Live events
// cannot wait (writers deliver them synchronously and must never block), so they are buffered,
// and a watcher whose unsent live bytes stay above `limitBytes` for a second, or go far above it
// at once, is cut off.
import type { ServerResponse } from "node:http";
import { needsDrain } from "../http-io.js";

/** Lines are joined into writes of about this many bytes: one chunk, one TLS pass, not one per event. */
export const WRITE_CHUNK_BYTES = 64 * 1024;
/** How long a watcher's unsent live bytes may stay above the limit before it is cut off. */
const CONGESTION_GRACE_MS = 1000;
/** Unsent live bytes, as a multiple of the limit, that cut a watcher off at once. */
const HARD_LIMIT_FACTOR = 4;
/** Writers with live lines to write at the end of this turn of the loop, and whether it is scheduled. */
let toFlush: WatchWriter[] = [];
let flushScheduled = false;

function flushAll(): void {
  const writers = toFlush;
  toFlush = [];
  flushScheduled = false;
  for (const writer of writers) writer.flushBatch();
}

/** Initial bytes written without waiting (the socket kept up) before yielding to other requests. */
const YIELD_EVERY_BYTES = 1024 * 1024;

/** The length in a frame's 4-byte big-endian prefix, read from latin1 text at `at`. */
function frameLength(text: string, at: number): number {
  return (
    text.charCodeAt(at) * 0x1000000 +
    (text.charCodeAt(at + 1) << 16) +
    (text.charCodeAt(at + 2) << 8) +
    text.charCodeAt(at + 3)
  );
}

/** Whether `text` is nothing but whole frames. */
function onlyFrames(text: string): boolean {
  let at = 0;
  while (at < text.length) {
    if (text.charCodeAt(at) !== 0) return false;
    at += 4 + frameLength(text, at);
  }
  return at === text.length;
}

export class WatchWriter {
  readonly #res: ServerResponse;
  readonly #limit: number;
  readonly #onOverflow: () => void;
  #ended = false;
  /** Whether initial events are done: from then on the socket's backlog counts against the limit. */
  #live = false;
  /** Bytes of live events the watcher holds back while initial events are written. */
  #held = 0;
  /** Live lines waiting for the socket to drain, from `#pendingAt` on. */
  #pending: string[] = [];
  #pendingAt = 0;
  #pendingBytes = 0;
  #graceTimer: NodeJS.Timeout | undefined;
  /** Whether this writer waits in `toFlush`. */
  #batched = false;
  #sinceYield = 0;
  /** Woken when the socket drains or the response ends. */
  #waiters: (() => void)[] = [];

  /** Turns JSON lines into the response's encoding (protobuf frames); JSON lines go as they are. */
  readonly #frame: ((line: string) => Buffer) | undefined;

  constructor(
    res: ServerResponse,
    limitBytes: number,
    onOverflow: () => void,
    frame?: (line: string) => Buffer,
  ) {
    this.#res = res;
    this.#limit = limitBytes;
    this.#onOverflow = onOverflow;
    this.#frame = frame;
    res.on("drain", () => {
      this.#flushPending();
      this.#wake();
    });
    res.once("close", () => this.#wake());
  }

  /**
   * The bytes of `text` in a protobuf watch, as latin1 text (one character a byte): frames the
   * watcher made from stored objects (each starting with its 4-byte length, whose first byte is
   * 0) go as they are; JSON lines (from `{` to a newline: bookmarks, errors, other forms) are
   * turned into frames. Written as text, not a Buffer: a chunk's length is then its text's, and
   * no copy is made here.
   */
  #encoded(text: string): string {
    if (!this.#frame || text === "" || onlyFrames(text)) return text;
    const parts: string[] = [];
    let at = 0;
    while (at < text.length) {
      if (text.charCodeAt(at) === 0) {
        const end = at + 4 + frameLength(text, at);
        parts.push(text.slice(at, end));
        at = end;
        continue;
      }
      const nl = text.indexOf("\n", at);
      const line = nl < 0 ? text.slice(at) : text.slice(at, nl);
      if (line.trim() !== "") parts.push(this.#frame(line).toString("latin1"));
      at = nl < 0 ? text.length : nl + 1;
    }
    return parts.join("");
  }

  /** JSON lines go as UTF-8; a protobuf watch's frames are latin1 text. */
  get #encoding(): BufferEncoding {
    return this.#frame ? "latin1" : "utf8";
  }

  #write(text: string): boolean {
    return this.#res.write(this.#encoded(text), this.#encoding);
  }

  /**
   * Writes initial events; resolves when more may be written: at once while the socket keeps
   * up, else when it drained (or the response ended).
   */
  writeInitial(chunk: string): Promise<void> {
    if (this.#ended) return Promise.resolve();
    this.#sinceYield += chunk.length;
    if (!this.#write(chunk)) {
      this.#sinceYield = 0;
      return this.drained();
    }
    if (this.#sinceYield < YIELD_EVERY_BYTES) return Promise.resolve();
    // A fast socket never pushes back: still let writers and other watchers have their turn.
    this.#sinceYield = 0;
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** Resolves once the socket has no backlog over its high-water mark (or the response ended). */
  drained(): Promise<void> {
    if (this.#ended || !needsDrain(this.#res)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Live events held back by the watcher while initial events are written: they count. */
  hold(bytes: number): void {
    this.#held = bytes;
    this.#check();
  }

  /** Initial events are written: from now on live events go to the socket and its backlog counts. */
  goLive(): void {
    this.#live = true;
    this.#held = 0;
    this.#check();
  }

  /**
   * Queues a live event: written with the others of this turn of the loop at its end, or once
   * the socket drained while it is congested.
   */
  writeLive(line: string): void {
    if (this.#ended) return;
    this.#pending.push(line);
    this.#pendingBytes += line.length;
    if (!this.#batched) {
      this.#batched = true;
      toFlush.push(this);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flushAll);
      }
    }
    this.#check();
  }

  /** Writes the lines queued in this turn of the loop, unless the socket is congested ('drain' will). */
  flushBatch(): void {
    this.#batched = false;
    if (!needsDrain(this.#res)) this.#flushPending();
  }

  /** Writes what is queued and `last` (if any), then ends the response. */
  end(last = ""): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#clearGrace();
    const rest = this.#pending.slice(this.#pendingAt).join("") + last;
    this.#pending = [];
    this.#pendingBytes = 0;
    if (!this.#res.writableEnded) {
      if (rest) this.#res.end(this.#encoded(rest), this.#encoding);
      else this.#res.end();
    }
    this.#wake();
  }

  /** Writes `last` (no queued line), ends and drops the connection: its reader is not reading. */
  cutOff(last: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#clearGrace();
    this.#pending = [];
    this.#pendingBytes = 0;
    if (!this.#res.writableEnded) this.#res.end(this.#encoded(last), this.#encoding);
    this.#res.destroy();
    this.#wake();
  }

  #flushPending(): void {
    if (this.#ended) return;
    const lines = this.#pending;
    while (this.#pendingAt < lines.length) {
      let bytes = 0;
      const from = this.#pendingAt;
      let to = from;
      while (to < lines.length && bytes < WRITE_CHUNK_BYTES) bytes += lines[to++]!.length;
      this.#pendingAt = to;
      this.#pendingBytes -= bytes;
      const ok = this.#write(to - from === 1 ? lines[from]! : lines.slice(from, to).join(""));
      if (!ok) break;
    }
    if (this.#pendingAt === lines.length) {
      this.#pending = [];
      this.#pendingAt = 0;
      this.#pendingBytes = 0;
    }
    this.#check();
  }

  /** Unsent live bytes: held back, queued here, or in the socket's buffer once live. */
  #unsent(): number {
    return this.#live ? this.#pendingBytes + this.#res.writableLength : this.#held;
  }

  #check(): void {
    if (this.#ended) return;
    const unsent = this.#unsent();
    if (unsent <= this.#limit) {
      this.#clearGrace();
      return;
    }
    // A burst (a namespace deleted, one large object) may pass the limit for a moment even for
    // a client that reads: cut off only a watcher that stays above it, or that goes far above.
    if (unsent > this.#limit * HARD_LIMIT_FACTOR) {
      this.#onOverflow();
      return;
    }
    this.#graceTimer ??= setTimeout(() => {
      this.#graceTimer = undefined;
      if (!this.#ended && this.#unsent() > this.#limit) this.#onOverflow();
    }, CONGESTION_GRACE_MS);
  }

  #clearGrace(): void {
    if (this.#graceTimer === undefined) return;
    clearTimeout(this.#graceTimer);
    this.#graceTimer = undefined;
  }

  #wake(): void {
    const waiters = this.#waiters;
    if (waiters.length === 0) return;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
