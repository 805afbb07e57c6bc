// Answers in kube's protobuf encoding, for clients that ask for it (client-go's typed clients
// and kube's own components send `Accept: application/vnd.kubernetes.protobuf, */*`): the JSON
// object turned back into the Go value's message (the inverse of decode.ts), framed as kube
// frames it: "k8s\0" and a runtime.Unknown naming the type. Watch events are length-prefixed
// WatchEvents whose object is such an envelope.
import { create, type DescField, type DescMessage, ScalarType, toBinary } from "@bufbuild/protobuf";
import { parseGoDuration } from "controller-runtime/api";
import type { Obj } from "../storage/index.js";
import { setOwn } from "../object/go-encoding.js";
import { goFields, isGoList, message, messageOf } from "./schema.js";

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const UNKNOWN = "k8s.io.apimachinery.pkg.runtime.Unknown";
const WATCH_EVENT = "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent";

type Init = Record<string, unknown>;
const TIMES = new Set([
  "k8s.io.apimachinery.pkg.apis.meta.v1.Time",
  "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime",
]);
const isObject = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

function seconds(text: unknown): { seconds: bigint; nanos: number } | undefined {
  if (typeof text !== "string") return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return undefined;
  const micros = /\.(\d{1,9})Z$/.exec(text)?.[1];
  const nanos = micros ? Number(micros.padEnd(9, "0")) : 0;
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos };
}

function rawBytes(v: unknown): Uint8Array | undefined {
  return v === undefined || v === null ? undefined : Buffer.from(JSON.stringify(v));
}

/** apimachinery's types whose message is not their JSON's shape. */
function special(desc: DescMessage, v: unknown): { init: Init | undefined } | undefined {
  switch (desc.typeName) {
    case "k8s.io.apimachinery.pkg.apis.meta.v1.Time": {
      const t = seconds(v);
      return { init: t ? { seconds: t.seconds } : undefined };
    }
    case "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime":
      return { init: seconds(v) };
    case "k8s.io.apimachinery.pkg.apis.meta.v1.Duration": {
      const ms = typeof v === "string" ? parseGoDuration(v) : undefined;
      return { init: ms === undefined ? undefined : { duration: BigInt(Math.round(ms * 1e6)) } };
    }
    case "k8s.io.apimachinery.pkg.api.resource.Quantity":
      return { init: v === undefined || v === null ? undefined : { string: String(v) } };
    case "k8s.io.apimachinery.pkg.util.intstr.IntOrString":
      if (typeof v === "number") return { init: { type: 0n, intVal: v } };
      return { init: typeof v === "string" ? { type: 1n, strVal: v } : undefined };
    case "k8s.io.apimachinery.pkg.runtime.RawExtension": {
      const raw = rawBytes(v);
      return { init: raw ? { raw } : undefined };
    }
    case "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1": {
      const raw = rawBytes(v);
      return { init: raw ? { Raw: raw } : undefined };
    }
  }
  if (isGoList(desc.typeName)) return { init: Array.isArray(v) ? { items: v } : undefined };
  return undefined;
}

function scalar(type: ScalarType, v: unknown): unknown {
  switch (type) {
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return typeof v === "number" && Number.isFinite(v) ? BigInt(Math.trunc(v)) : undefined;
    case ScalarType.BYTES:
      return typeof v === "string" ? Buffer.from(v, "base64") : undefined;
    case ScalarType.STRING:
      return typeof v === "string" ? v : undefined;
    case ScalarType.BOOL:
      return typeof v === "boolean" ? v : undefined;
    default:
      return typeof v === "number" ? v : undefined;
  }
}

function fieldInit(field: DescField, v: unknown): unknown {
  switch (field.fieldKind) {
    case "scalar":
      return scalar(field.scalar, v);
    case "enum":
      return undefined;
    case "message":
      return fromGo(field.message, v);
    case "list": {
      if (!Array.isArray(v)) return undefined;
      const items = v.map((x) =>
        field.listKind === "message" ? fromGo(field.message, x) : scalar(field.scalar!, x),
      );
      return items.filter((x) => x !== undefined);
    }
    case "map": {
      if (!isObject(v)) return undefined;
      const out: Init = {};
      for (const [k, x] of Object.entries(v)) {
        const item =
          field.mapKind === "message" ? (fromGo(field.message, x) ?? {}) : scalar(field.scalar!, x);
        if (item !== undefined) setOwn(out, k, item);
      }
      return out;
    }
  }
}

/** A JSON value of a Go type as the init of its message; undefined for what Go leaves unset. */
function fromGo(desc: DescMessage, v: unknown): Init | undefined {
  const s = special(desc, v);
  if (s) return s.init;
  if (!isObject(v)) return undefined;
  const go = goFields(desc.typeName);
  const init: Init = {};
  for (const field of desc.fields) {
    const shape = go.get(field.number);
    // An inlined struct's JSON fields are its parent's.
    const value = shape?.inline ? v : v[shape?.json ?? field.name];
    if (value === undefined) continue;
    if (value === null) {
      // A zero Time Go writes as null, and as an empty message.
      if (field.fieldKind === "message" && TIMES.has(field.message.typeName)) init[field.localName] = {};
      continue;
    }
    const converted = fieldInit(field, value);
    if (converted !== undefined) init[field.localName] = converted;
  }
  return init;
}

function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const unknown = message(UNKNOWN)!;
  const framed = toBinary(
    unknown,
    create(unknown, { typeMeta: { apiVersion, kind }, raw, contentEncoding: "", contentType: "" } as never),
  );
  return Buffer.concat([MAGIC, framed]);
}

/** The object (with its apiVersion and kind) in kube's protobuf encoding; undefined when kube has no message for it. */
export function encodeProtobuf(obj: Obj): Buffer | undefined {
  const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
  const kind = typeof obj.kind === "string" ? obj.kind : "";
  const desc = kind ? messageOf(apiVersion, kind) : undefined;
  if (!desc) return undefined;
  const raw = toBinary(desc, create(desc, (fromGo(desc, obj) ?? {}) as never));
  return envelope(apiVersion, kind, raw);
}

/**
 * One frame of a protobuf watch: a 4-byte big-endian length, then a WatchEvent message whose
 * object is the object's envelope.
 */
export function encodeWatchFrame(type: string, object: Obj): Buffer | undefined {
  const inner = encodeProtobuf(object);
  if (!inner) return undefined;
  const desc = message(WATCH_EVENT)!;
  // The stream's own messages are raw (kube's stream serializer): only the object has an envelope.
  const event = toBinary(desc, create(desc, { type, object: { raw: inner } } as never));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(event.length);
  return Buffer.concat([length, event]);
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
