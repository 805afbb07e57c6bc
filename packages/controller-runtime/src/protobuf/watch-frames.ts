// A protobuf watch body (`application/vnd.kubernetes.protobuf;stream=watch`): frames of a 4-byte
// big-endian length and a WatchEvent whose object is an envelope. Same contract as the JSON
// decoder (rest/watch.ts decodeWatchBatches): a function from the body's chunks to batches of
// events, one batch per chunk that completed any, so either can sit behind the watch transport.
import type { WatchEvent } from "../rest/watch.js";
import { WatchDecodeError } from "../rest/errors.js";
import { type DecodeOptions, decodeWatchEvent, ProtobufError } from "./codec.js";

const EVENT_TYPES = new Set<string>(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);
/** client-go's streaming decoder limit. */
const MAX_EVENT_BYTES = 16 * 1024 * 1024;

export async function* decodeProtobufWatchBatches(
  source: AsyncIterable<Uint8Array>,
  options: { signal?: AbortSignal; maxEventBytes?: number; omitManagedFields?: boolean } = {},
): AsyncGenerator<WatchEvent[], void, undefined> {
  const { signal } = options;
  const max = options.maxEventBytes ?? MAX_EVENT_BYTES;
  const decodeOptions = { omitManagedFields: options.omitManagedFields };
  let pending: Buffer | undefined; // bytes of an unfinished frame, from earlier chunks
  signal?.throwIfAborted();
  for await (const chunk of source) {
    let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (pending) buf = Buffer.concat([pending, buf]);
    pending = undefined;
    const batch: WatchEvent[] = [];
    let at = 0;
    while (buf.length - at >= 4) {
      const len = buf.readUInt32BE(at);
      if (len > max) {
        if (batch.length > 0) yield batch;
        throw new WatchDecodeError(
          "object to decode was longer than maximum allowed size",
          `frame of ${len} bytes`,
        );
      }
      if (buf.length - at - 4 < len) break;
      const frame = buf.subarray(at + 4, at + 4 + len);
      at += 4 + len;
      try {
        batch.push(toEvent(frame, decodeOptions));
      } catch (err) {
        if (batch.length > 0) yield batch;
        throw err;
      }
    }
    // The unfinished frame is copied: the chunk's memory may be reused by the transport.
    if (at < buf.length) pending = Buffer.from(buf.subarray(at));
    if (batch.length > 0) {
      signal?.throwIfAborted();
      yield batch;
    }
  }
  // A frame cut off by the connection closing is dropped with it, as client-go treats an unexpected EOF.
}

function toEvent(frame: Buffer, options: DecodeOptions): WatchEvent {
  let event: { type: string; object: Record<string, unknown> };
  try {
    event = decodeWatchEvent(frame, options);
  } catch (cause) {
    const why = cause instanceof ProtobufError ? cause.message : String(cause);
    throw new WatchDecodeError(
      `the protobuf watch stream carried a frame that is not a watch event (${why}); watch again or relist`,
      frame.subarray(0, 200).toString("hex"),
      { cause },
    );
  }
  if (!EVENT_TYPES.has(event.type)) {
    throw new WatchDecodeError(
      `the protobuf watch stream carried an event of unknown type ${JSON.stringify(event.type)}; watch again or relist`,
      event.type,
    );
  }
  return event as WatchEvent;
}
