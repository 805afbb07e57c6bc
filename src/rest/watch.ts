// Watch-stream decoding: the API server frames a watch as one JSON event per line. The decoder
// is a pure function over the body's chunks so it can be tested alone; it is on the informer's
// hot path, so it decodes each chunk once and parses each complete line once, never holding
// more than the line in progress.
import type { Status } from "kubernetes-types/meta/v1.js";
import type { KubeObject } from "../api/index.js";
import { WatchDecodeError } from "./errors.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/**
 * One watch event. `BOOKMARK` objects carry only `metadata.resourceVersion` (and annotations);
 * `ERROR` carries a `Status`: reason `Expired`, code 410 means the version is too old to watch
 * from, and the caller should relist.
 */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: T }
  | { type: "ERROR"; object: Status };

export interface DecodeWatchOptions {
  /** Ends the iteration with the signal's reason at the next event. Default: none. */
  signal?: AbortSignal;
}

const EVENT_TYPES = new Set<string>(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

/**
 * Decodes a watch body into events. The iteration ends when the source ends (the server closed
 * the stream: a normal end, as in client-go); a trailing fragment cut off by a dropped
 * connection is dropped with it, as client-go treats an unexpected EOF. A complete line that is
 * not a watch event throws a {@link WatchDecodeError}. Breaking out of the loop (or `return()`)
 * returns the source iterator, which closes the connection.
 */
export async function* decodeWatchStream<T extends KubeObject = KubeObject>(
  source: AsyncIterable<Uint8Array>,
  options: DecodeWatchOptions = {},
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  const { signal } = options;
  for await (const batch of decodeWatchBatches<T>(source)) {
    for (const event of batch) {
      signal?.throwIfAborted();
      yield event;
    }
  }
}

/**
 * As {@link decodeWatchStream}, but yields the events of each chunk together, in order (never an
 * empty array): a consumer that applies events synchronously pays one promise per chunk instead
 * of one per event. A malformed line first yields the events before it, then throws. With a
 * `signal`, the iteration ends with the signal's reason at the next batch.
 */
export async function* decodeWatchBatches<T extends KubeObject = KubeObject>(
  source: AsyncIterable<Uint8Array>,
  options: DecodeWatchOptions = {},
): AsyncGenerator<WatchEvent<T>[], void, undefined> {
  const { signal } = options;
  // Chunks are decoded whole and lines cut out of the string: faster than cutting bytes and
  // decoding each line. Buffer's UTF-8 decoding measured 6x faster than a streaming TextDecoder
  // (10 against 63 us per 64 KiB); a character split across chunks waits in `carry` for the rest.
  // A long pending line grows as a rope, flattened once.
  let carry: Uint8Array | undefined;
  let pending = "";
  let first = true;
  signal?.throwIfAborted();
  for await (const chunk of source) {
    let bytes = carry === undefined ? chunk : concatBytes(carry, chunk);
    const end = wholeCharsLength(bytes);
    carry = end === bytes.length ? undefined : bytes.slice(end);
    if (end !== bytes.length) bytes = bytes.subarray(0, end);
    let decoded = utf8(bytes);
    if (first && decoded.length > 0) {
      first = false;
      if (decoded.charCodeAt(0) === 0xfeff) decoded = decoded.slice(1); // a BOM, as TextDecoder drops it
    }
    const text = pending + decoded;
    let start = 0;
    let nl = text.indexOf("\n");
    if (nl === -1) {
      pending = text;
      continue;
    }
    const batch: WatchEvent<T>[] = [];
    while (nl !== -1) {
      const line = text.slice(start, nl);
      start = nl + 1;
      nl = text.indexOf("\n", start);
      if (isBlank(line)) continue;
      let event: WatchEvent<T>;
      try {
        event = parseEvent<T>(line);
      } catch (err) {
        if (batch.length > 0) yield batch;
        throw err;
      }
      batch.push(event);
    }
    pending = text.slice(start);
    if (batch.length > 0) {
      signal?.throwIfAborted();
      yield batch;
    }
  }
  // A stream may end without a final newline; a complete event there still counts.
  const rest = pending + (carry === undefined ? "" : utf8(carry));
  if (isBlank(rest)) return;
  let value: unknown;
  try {
    value = JSON.parse(rest);
  } catch {
    return; // cut off by the connection closing mid-event
  }
  const event = toEvent<T>(value, rest);
  signal?.throwIfAborted();
  yield [event];
}

function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The length of the longest prefix of `bytes` that ends on a whole UTF-8 character. */
function wholeCharsLength(bytes: Uint8Array): number {
  const n = bytes.length;
  if (n === 0 || bytes[n - 1] < 0x80) return n;
  // Back over continuation bytes (10xxxxxx) to the lead byte of the last character.
  let i = n - 1;
  while (i > 0 && i > n - 4 && (bytes[i] & 0xc0) === 0x80) i--;
  const lead = bytes[i];
  const size = lead >= 0xf8 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + size <= n ? n : i;
}

// Whitespace-only lines (a `\r` before the newline, keep-alive blank lines) carry nothing.
// Events start with `{`, so the common case costs one character comparison.
function isBlank(line: string): boolean {
  return line.charCodeAt(0) !== 123 && line.trim() === "";
}

function parseEvent<T extends KubeObject>(line: string): WatchEvent<T> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (cause) {
    throw new WatchDecodeError(
      `the watch stream carried a line that is not JSON (${(cause as Error).message}); ` +
        "the server or a proxy in between is not speaking the watch protocol: watch again or relist",
      line,
      { cause },
    );
  }
  return toEvent<T>(value, line);
}

function toEvent<T extends KubeObject>(value: unknown, line: string): WatchEvent<T> {
  if (typeof value === "object" && value !== null) {
    const { type, object } = value as { type?: unknown; object?: unknown };
    if (typeof type === "string" && EVENT_TYPES.has(type) && typeof object === "object" && object !== null) {
      return value as WatchEvent<T>;
    }
  }
  throw new WatchDecodeError(
    'the watch stream carried JSON that is not a watch event ({"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":{...}}); ' +
      "check that the request really was a watch (`watch=true`)",
    line,
  );
}
