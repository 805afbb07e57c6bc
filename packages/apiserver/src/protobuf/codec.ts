// The server's use of the library's protobuf codec (controller-runtime/protobuf, shared with the
// client): request bodies read with the server's depth-bounded JSON parser for embedded objects,
// and JSON watch lines turned into protobuf frames.
import { decodeProtobuf as decode, encodeWatchFrame } from "controller-runtime/protobuf";
import { parseJsonBounded } from "../nesting.js";
import type { Obj } from "../storage/index.js";

export {
  encodeList,
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
