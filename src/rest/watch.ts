// Watch-stream decoding: the API server frames a watch as one JSON event per line. The decoder
// is a pure function over the body's chunks so it can be tested alone; it is on the informer's
// hot path, so it splits on bytes (a newline byte never occurs inside a multi-byte UTF-8
// sequence) and decodes each complete line once, never the whole stream.
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

const NEWLINE = 10;
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
  const decoder = new TextDecoder();
  // The bytes of a line not yet ended, kept as slices and joined once its newline arrives, so a
  // large object spread over many chunks is copied once.
  const pending: Uint8Array[] = [];
  let pendingLength = 0;
  signal?.throwIfAborted();
  for await (const chunk of source) {
    let start = 0;
    let nl = chunk.indexOf(NEWLINE);
    while (nl !== -1) {
      let bytes = chunk.subarray(start, nl);
      if (pendingLength > 0) {
        pending.push(bytes);
        bytes = join(pending, pendingLength + bytes.length);
        pending.length = 0;
        pendingLength = 0;
      }
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
      if (isBlank(bytes)) continue;
      const event = parseEvent<T>(decoder.decode(bytes));
      signal?.throwIfAborted();
      yield event;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      pending.push(rest);
      pendingLength += rest.length;
    }
  }
  // A stream may end without a final newline; a complete event there still counts.
  if (pendingLength > 0) {
    const bytes = join(pending, pendingLength);
    if (isBlank(bytes)) return;
    const text = decoder.decode(bytes);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return; // cut off by the connection closing mid-event
    }
    const event = toEvent<T>(value, text);
    signal?.throwIfAborted();
    yield event;
  }
}

function join(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

// Whitespace-only lines (a `\r` before the newline, keep-alive blank lines) carry nothing.
function isBlank(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b !== 32 && b !== 13 && b !== 9) return false;
  }
  return true;
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
