// The server's use of the library's protobuf codec (controller-runtime/protobuf, shared with the
// client): request bodies read with the server's depth-bounded JSON parser for embedded objects,
// JSON watch lines turned into protobuf frames, and answers of stored objects: each stored
// object's ADDED watch frame is encoded once, on its first protobuf read, and kept by the stored
// object (storage/kept-encoding.ts; other types and the metadata-only form by the library's cache
// by object, frozenMessageText), holding the object's long strings rather than copies, so that
// lists, watches and gets of it copy bytes, as JSON answers copy the JSON text kept at write
// (issue 43).
import {
  decodeProtobuf as decode,
  encodeList,
  encodeWatchFrame,
  frozenEnvelopeText,
  frozenFrameText,
  frozenMessageParts,
  type KeptFrame,
  keptEnvelopeText,
  keptFrameBytes,
  keptFrameOf,
  keptFrameText,
  keptMessageParts,
} from "controller-runtime/protobuf";
import { parseJsonBounded } from "../nesting.js";
import { keepEncoding, keptEncoding, type Obj, type StoredObject } from "../storage/index.js";

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

/**
 * The ADDED frame of a stored object as `kind` in `apiVersion` when that is its own type,
 * encoded on its first protobuf read and kept with it (storage/kept-encoding.ts); undefined for
 * another type (answered from the library's cache by object, frozenFrameText and the like) or
 * when kube has no message for it.
 */
function ownFrame(stored: StoredObject, apiVersion: string, kind: string): KeptFrame | undefined {
  const obj = stored.obj;
  if (obj.kind !== kind || obj.apiVersion !== apiVersion) return undefined;
  const kept = keptEncoding(stored) as KeptFrame | undefined;
  if (kept !== undefined) return kept;
  const frame = keptFrameOf(apiVersion, kind, obj);
  // Not kept (a copy of a stored object, or the budget spent): encoded again on the next read.
  if (frame !== undefined) keepEncoding(stored, frame, keptFrameBytes(frame));
  return frame;
}

/** Frames past this size would not start with a zero byte (see {@link storedFrameText}). */
const MAX_NATIVE_FRAME = 0xffffff;

/**
 * A watch event's protobuf frame of a stored object (its message encoded once: no JSON in
 * between), as latin1 text so that it travels with the watch's JSON lines through the same
 * writer: a frame starts with its length's high byte, 0, where a JSON line starts with `{`
 * (watch-writer.ts tells them apart). Undefined when kube has no message for the kind, or the
 * frame is too large to be told apart.
 */
export function storedFrameText(
  type: string,
  apiVersion: string,
  kind: string,
  stored: StoredObject,
): string | undefined {
  const own = ownFrame(stored, apiVersion, kind);
  const frame =
    own !== undefined
      ? keptFrameText(own, type, apiVersion, kind)
      : frozenFrameText(type, apiVersion, kind, stored.obj);
  if (frame === undefined || frame.length - 4 > MAX_NATIVE_FRAME) return undefined;
  return frame;
}

/**
 * The PartialObjectMetadata message of a stored object's metadata (kept by the metadata, which
 * is frozen with its object), in parts (see frozenMessageParts). Fields go by number: a custom
 * resource's metadata, stored in sorted key order, encodes as a built-in's.
 */
function metadataMessage(metaApiVersion: string, metadata: unknown): string | readonly string[] | undefined {
  if (metadata === null || typeof metadata !== "object") return undefined;
  return frozenMessageParts(metaApiVersion, "PartialObjectMetadata", { metadata }, metadata);
}

/** A metadata-only watch event's frame of a stored object (as {@link storedFrameText}). */
export function storedMetadataFrameText(type: string, metaApiVersion: string, obj: Obj): string | undefined {
  const metadata = obj.metadata;
  if (metadata === null || typeof metadata !== "object") return undefined;
  const frame = frozenFrameText(type, metaApiVersion, "PartialObjectMetadata", { metadata }, metadata);
  if (frame === undefined || frame.length - 4 > MAX_NATIVE_FRAME) return undefined;
  return frame;
}

/**
 * A stored object's PartialObjectMetadata in protobuf, as latin1 text; undefined when there is no
 * message for it.
 */
export function storedMetadataText(metaApiVersion: string, obj: Obj): string | undefined {
  const metadata = obj.metadata;
  if (metadata === null || typeof metadata !== "object") return undefined;
  return frozenEnvelopeText(metaApiVersion, "PartialObjectMetadata", { metadata }, metadata);
}

/** A PartialObjectMetadataList of stored objects in protobuf, their kept metadata messages copied. */
export function storedMetadataListBytes(
  metaApiVersion: string,
  metadata: Obj,
  objects: readonly Obj[],
): Buffer | undefined {
  const messages: (string | readonly string[])[] = new Array(objects.length);
  for (let i = 0; i < objects.length; i++) {
    const message = metadataMessage(metaApiVersion, objects[i]!.metadata);
    if (message === undefined) return undefined;
    messages[i] = message;
  }
  return encodeList(metaApiVersion, "PartialObjectMetadataList", metadata, messages);
}

/**
 * A stored object's answer in protobuf (its envelope), as latin1 text; undefined when kube has no
 * message for it.
 */
export function storedObjectText(apiVersion: string, kind: string, stored: StoredObject): string | undefined {
  const own = ownFrame(stored, apiVersion, kind);
  return own !== undefined ? keptEnvelopeText(own) : frozenEnvelopeText(apiVersion, kind, stored.obj);
}

/**
 * A list of stored objects of `kind` in protobuf, its items' kept messages copied one after the
 * other; undefined when kube has no message for the list or its items.
 */
export function storedListBytes(
  apiVersion: string,
  listKind: string,
  kind: string,
  metadata: Obj,
  objects: readonly StoredObject[],
): Buffer | undefined {
  const messages: (string | readonly string[])[] = new Array(objects.length);
  for (let i = 0; i < objects.length; i++) {
    const stored = objects[i]!;
    const own = ownFrame(stored, apiVersion, kind);
    const message =
      own !== undefined ? keptMessageParts(own) : frozenMessageParts(apiVersion, kind, stored.obj);
    if (message === undefined) return undefined;
    messages[i] = message;
  }
  return encodeList(apiVersion, listKind, metadata, messages);
}
