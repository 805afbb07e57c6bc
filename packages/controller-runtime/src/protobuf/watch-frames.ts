// A protobuf watch body (`application/vnd.kubernetes.protobuf;stream=watch`): frames of a 4-byte
// big-endian length and a WatchEvent whose object is an envelope. Two shapes of the same decoder,
// so that either watch transport can use it: ProtobufWatchDecoder is pushed chunks and returns
// their events (a push-based transport calls it from its data handler), and
// decodeProtobufWatchBatches pulls chunks from an async iterable and yields one batch per chunk
// that completed any (the contract of rest/watch.ts decodeWatchBatches, for NDJSON).
import type { WatchEvent } from "../rest/watch.js";
import { WatchDecodeError } from "../rest/errors.js";
import { ProtobufError, watchEventDecoder } from "./codec.js";

/** A switch, not a Set: the type is a fresh string each event, and a lookup would hash it. */
function isEventType(type: string): boolean {
  switch (type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED":
    case "BOOKMARK":
    case "ERROR":
      return true;
    default:
      return false;
  }
}
/** client-go's streaming decoder limit. */
const MAX_EVENT_BYTES = 16 * 1024 * 1024;

export interface ProtobufWatchOptions {
  /** The longest frame accepted, in bytes. Default: 16 MiB (client-go's). */
  maxEventBytes?: number;
  /** Leave `metadata.managedFields` undecoded. Default: false. */
  omitManagedFields?: boolean;
}

/**
 * Frames to events, chunk by chunk. `push` returns the events the chunk completed (often none
 * for a chunk inside a large frame); a malformed frame throws a WatchDecodeError after the
 * events before it were returned by earlier pushes (`takeDecoded()` has those of this chunk).
 */
export class ProtobufWatchDecoder {
  readonly #max: number;
  readonly #decode: ReturnType<typeof watchEventDecoder>;
  /**
   * The bytes of an unfinished frame (its length first), copied from earlier chunks into one
   * buffer kept for the next: kube-apiserver writes a watch in chunks of about 4 KiB, so one frame
   * in four or so spans two, and copying each part, then joining them, cost three new Buffers each.
   * Nothing decoded keeps a reference into it.
   */
  #pending: Buffer = Buffer.allocUnsafe(0);
  #pendingBytes = 0;
  #decoded: WatchEvent[] = [];

  constructor(options: ProtobufWatchOptions = {}) {
    this.#max = options.maxEventBytes ?? MAX_EVENT_BYTES;
    this.#decode = watchEventDecoder({ omitManagedFields: options.omitManagedFields });
  }

  /** Decodes the frames `chunk` completes, appended to `events` (a new array by default). */
  push(chunk: Uint8Array, events: WatchEvent[] = []): WatchEvent[] {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#decoded = events;
    let at = 0;
    if (this.#pendingBytes > 0) {
      // Complete the frame that earlier chunks began, copying only its own bytes.
      at = this.#completePending(buf, events);
      if (at < 0) {
        this.#decoded = [];
        return events;
      }
    }
    while (buf.length - at >= 4) {
      const len = buf.readUInt32BE(at);
      if (len > this.#max) throw tooLarge(len);
      if (buf.length - at - 4 < len) break;
      const start = at + 4;
      at = start + len;
      events.push(toEvent(this.#decode, buf, start, at));
    }
    // The unfinished frame is copied: the chunk's memory may be reused by the transport.
    if (at < buf.length) this.#keep(buf, at, buf.length);
    this.#decoded = [];
    return events;
  }

  #keep(buf: Buffer, from: number, to: number): void {
    const have = this.#pendingBytes;
    const need = have + (to - from);
    if (need > this.#pending.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, 2 * this.#pending.length, 8192));
      this.#pending.copy(grown, 0, 0, have);
      this.#pending = grown;
    }
    buf.copy(this.#pending, have, from, to);
    this.#pendingBytes = need;
  }

  /** Feeds the pending frame from `buf`; where `buf`'s own frames start, or -1 if it took all of it. */
  #completePending(buf: Buffer, events: WatchEvent[]): number {
    let at = 0;
    if (this.#pendingBytes < 4) {
      const take = Math.min(4 - this.#pendingBytes, buf.length);
      this.#keep(buf, 0, take);
      at = take;
      if (this.#pendingBytes < 4) return -1;
    }
    const total = 4 + this.#pending.readUInt32BE(0);
    if (total - 4 > this.#max) throw tooLarge(total - 4);
    const take = Math.min(total - this.#pendingBytes, buf.length - at);
    if (take > 0) this.#keep(buf, at, at + take);
    at += take;
    if (this.#pendingBytes < total) return -1;
    const frame = this.#pending;
    this.#pendingBytes = 0;
    // A large object's frame is not kept for the rest of the watch.
    if (frame.length > 1 << 20) this.#pending = Buffer.allocUnsafe(0);
    events.push(toEvent(this.#decode, frame, 4, total));
    return at;
  }

  /** The events of the push that threw, decoded before the malformed frame. */
  takeDecoded(): WatchEvent[] {
    const events = this.#decoded;
    this.#decoded = [];
    return events;
  }

  /** Bytes of a frame cut off so far (dropped at the end, as client-go treats an unexpected EOF). */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }
}

export async function* decodeProtobufWatchBatches(
  source: AsyncIterable<Uint8Array>,
  options: { signal?: AbortSignal } & ProtobufWatchOptions = {},
): AsyncGenerator<WatchEvent[], void, undefined> {
  const { signal } = options;
  const decoder = new ProtobufWatchDecoder(options);
  signal?.throwIfAborted();
  for await (const chunk of source) {
    let batch: WatchEvent[];
    try {
      batch = decoder.push(chunk);
    } catch (err) {
      const before = decoder.takeDecoded();
      if (before.length > 0) yield before;
      throw err;
    }
    if (batch.length > 0) {
      signal?.throwIfAborted();
      yield batch;
    }
  }
}

/** client-go's streaming.ErrObjectTooLarge. */
function tooLarge(len: number): WatchDecodeError {
  return new WatchDecodeError(
    "object to decode was longer than maximum allowed size",
    `frame of ${len} bytes`,
  );
}

function toEvent(
  decode: ReturnType<typeof watchEventDecoder>,
  buf: Buffer,
  start: number,
  end: number,
): WatchEvent {
  let event: { type: string; object: Record<string, unknown> };
  try {
    event = decode(buf, start, end);
  } catch (cause) {
    const why = cause instanceof ProtobufError ? cause.message : String(cause);
    throw new WatchDecodeError(
      `the protobuf watch stream carried a frame that is not a watch event (${why}); watch again or relist`,
      buf.subarray(start, Math.min(end, start + 200)).toString("hex"),
      { cause },
    );
  }
  if (!isEventType(event.type)) {
    throw new WatchDecodeError(
      `the protobuf watch stream carried an event of unknown type ${JSON.stringify(event.type)}; watch again or relist`,
      event.type,
    );
  }
  return event as WatchEvent;
}
