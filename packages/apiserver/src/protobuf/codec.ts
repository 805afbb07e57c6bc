// The server's use of the library's protobuf codec (controller-runtime/protobuf, shared with the
// client): request bodies read with the server's depth-bounded JSON parser for embedded objects,
// and JSON watch lines turned into protobuf frames.
import {
  decodeProtobuf as decode,
  encodeWatchFrame,
  encodeWatchFrameTextOf,
} from "controller-runtime/protobuf";
import { parseJsonBounded } from "../nesting.js";
import type { Obj } from "../storage/index.js";

export {
  encodeList,
  encodeListOf,
  encodeMessage,
  encodeProtobuf,
  encodeWatchFrame,
  envelope,
  ProtobufError,
} from "controller-runtime/protobuf";

/**
 * The object in a protobuf body, with `apiVersion` and `kind` from its envelope. `expected`
 * fills a type the envelope leaves out.
 */
export function decodeProtobuf(body: Uint8Array, expected: { apiVersion: string; kind: string }): Obj {
  return decode(body, expected, { parseJson: parseJsonBounded }) as Obj;
}

/** Turns a JSON watch line (`{"type":…,"object":…}`) into its protobuf frame. */
export function protobufWatchFrame(): (line: string) => Buffer {
  return (line) => {
    const event = JSON.parse(line) as { type: string; object: Obj };
    const frame = encodeWatchFrame(event.type, event.object);
    if (!frame) throw new Error(`no protobuf message for ${String(event.object?.kind)}`);
    return frame;
  };
}

/** Frames past this size would not start with a zero byte (see {@link storedFrameText}). */
const MAX_NATIVE_FRAME = 0xffffff;

/**
 * A watch event's protobuf frame encoded straight from the stored object (no JSON in between),
 * as latin1 text so that it travels with the watch's JSON lines through the same writer: a frame
 * starts with its length's high byte, 0, where a JSON line starts with `{` (watch-writer.ts
 * tells them apart). Undefined when kube has no message for the kind, or the frame is too large
 * to be told apart.
 */
export function storedFrameText(
  type: string,
  apiVersion: string,
  kind: string,
  obj: Obj,
): string | undefined {
  const frame = encodeWatchFrameTextOf(type, apiVersion, kind, obj);
  if (frame === undefined || frame.length - 4 > MAX_NATIVE_FRAME) return undefined;
  return frame;
}
