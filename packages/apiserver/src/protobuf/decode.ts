// Request bodies in kube's protobuf encoding (`application/vnd.kubernetes.protobuf`), as client-go's
// typed clients and controller-runtime's client send built-in kinds, read into the JSON object a
// JSON client would have sent: the envelope ("k8s\0" and a runtime.Unknown naming the type), the
// message decoded by @bufbuild/protobuf from kube's .proto files, then each field written as Go's
// JSON encoder writes the Go type (apimachinery's special types, omitempty, inlined structs).
import { type DescField, type DescMessage, fromBinary, isFieldSet, ScalarType } from "@bufbuild/protobuf";
import { parseJsonBounded } from "../nesting.js";
import { setOwn } from "../object/go-encoding.js";
import type { Obj } from "../storage/index.js";
import { goDuration, microTime, rfc3339 } from "./go-values.js";
import { goFields, isGoList, message, messageOf } from "./schema.js";

export const PROTOBUF = "application/vnd.kubernetes.protobuf";
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"
const UNKNOWN = "k8s.io.apimachinery.pkg.runtime.Unknown";
/** RawExtensions that hold protobuf envelopes may nest; kube's objects do not nest deeper. */
const MAX_ENVELOPE_DEPTH = 4;

/** A body that is not a decodable object; the message is worded for a 400. */
export class ProtobufError extends Error {
  override readonly name = "ProtobufError";
}

type Msg = Record<string, unknown>;

/**
 * The object in a protobuf body, with `apiVersion` and `kind` from its envelope. `expected`
 * fills a type the envelope leaves out.
 */
export function decodeProtobuf(body: Uint8Array, expected: { apiVersion: string; kind: string }): Obj {
  return decodeEnvelope(body, expected, 0);
}

function decodeEnvelope(
  body: Uint8Array,
  expected: { apiVersion: string; kind: string },
  depth: number,
): Obj {
  if (depth > MAX_ENVELOPE_DEPTH) throw new ProtobufError("protobuf envelopes nested too deeply");
  if (body.length < 4 || !MAGIC.equals(body.subarray(0, 4))) {
    throw new ProtobufError(
      "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
    );
  }
  const unknown = read(message(UNKNOWN)!, body.subarray(4));
  const typeMeta = (unknown.typeMeta ?? {}) as Msg;
  const apiVersion = (typeMeta.apiVersion as string) || expected.apiVersion;
  const kind = (typeMeta.kind as string) || expected.kind;
  if (unknown.contentEncoding) {
    throw new ProtobufError(`unsupported content encoding ${JSON.stringify(unknown.contentEncoding)}`);
  }
  const desc = messageOf(apiVersion, kind);
  if (!desc) {
    throw new ProtobufError(`no kind "${kind}" is registered for version "${apiVersion}"`);
  }
  const raw = (unknown.raw as Uint8Array | undefined) ?? new Uint8Array();
  const obj = toGo(desc, read(desc, raw), depth) as Obj;
  return { apiVersion, kind, ...obj };
}

function read(desc: DescMessage, bytes: Uint8Array): Msg {
  try {
    return fromBinary(desc, bytes, { readUnknownFields: false }) as unknown as Msg;
  } catch (e) {
    throw new ProtobufError(`unable to decode ${desc.name}: ${(e as Error).message}`);
  }
}

const isZero = (v: unknown) => v === "" || v === 0 || v === false || v === 0n;

function scalar(type: ScalarType, v: unknown): unknown {
  if (typeof v === "bigint") {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new ProtobufError(`integer ${v} does not fit in a JSON number`);
    }
    return Number(v);
  }
  if (type === ScalarType.BYTES) return Buffer.from(v as Uint8Array).toString("base64");
  return v;
}

function rawJson(raw: Uint8Array | undefined, depth: number): unknown {
  if (!raw || raw.length === 0) return undefined;
  if (raw.length >= 4 && MAGIC.equals(raw.subarray(0, 4))) {
    return decodeEnvelope(raw, { apiVersion: "", kind: "" }, depth + 1);
  }
  try {
    return parseJsonBounded(Buffer.from(raw).toString("utf8"));
  } catch (e) {
    throw new ProtobufError(`an embedded object is not JSON: ${(e as Error).message}`);
  }
}

/** apimachinery's types whose JSON is not their message's: times, quantities, raw JSON. */
function special(desc: DescMessage, m: Msg, depth: number): { value: unknown } | undefined {
  switch (desc.typeName) {
    case "k8s.io.apimachinery.pkg.apis.meta.v1.Time":
    case "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime": {
      // A zero time is an empty message, which Go writes as null; seconds are always written otherwise.
      if (!isFieldSet(m as never, desc.fields[0])) return { value: null };
      const seconds = Number(m.seconds as bigint);
      const nanos = Number(m.nanos ?? 0);
      const text = desc.name === "Time" ? rfc3339(seconds) : microTime(seconds, nanos);
      if (text === undefined) throw new ProtobufError(`time out of range: ${seconds}s`);
      return { value: text };
    }
    case "k8s.io.apimachinery.pkg.apis.meta.v1.Duration":
      return { value: goDuration(BigInt((m.duration as bigint | undefined) ?? 0n)) };
    case "k8s.io.apimachinery.pkg.api.resource.Quantity":
      return { value: (m.string as string) || "0" };
    case "k8s.io.apimachinery.pkg.util.intstr.IntOrString":
      return { value: Number(m.type ?? 0n) === 1 ? (m.strVal ?? "") : (m.intVal ?? 0) };
    case "k8s.io.apimachinery.pkg.runtime.RawExtension":
    case "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1":
      return { value: rawJson((m.raw ?? m.Raw) as Uint8Array | undefined, depth) };
  }
  if (isGoList(desc.typeName)) return { value: (m.items as unknown[] | undefined) ?? [] };
  return undefined;
}

function fieldValue(field: DescField, v: unknown, depth: number): unknown {
  switch (field.fieldKind) {
    case "scalar":
      return scalar(field.scalar, v);
    case "enum":
      return v;
    case "message":
      return toGo(field.message, v as Msg, depth);
    case "list":
      return (v as unknown[]).map((item) =>
        field.listKind === "message" ? toGo(field.message, item as Msg, depth) : scalar(field.scalar!, item),
      );
    case "map": {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
        const value =
          field.mapKind === "message" ? toGo(field.message, item as Msg, depth) : scalar(field.scalar!, item);
        setOwn(out, k, value);
      }
      return out;
    }
  }
}

/** A decoded message as Go's JSON encoder writes the Go value it unmarshals into. */
function toGo(desc: DescMessage, m: Msg, depth: number): unknown {
  const s = special(desc, m, depth);
  if (s) return s.value;
  const go = goFields(desc.typeName);
  const out: Obj = {};
  for (const field of desc.fields) {
    if (!isFieldSet(m as never, field)) continue;
    const shape = go.get(field.number);
    const value = fieldValue(field, m[field.localName], depth);
    if (value === undefined) continue;
    if (field.fieldKind === "scalar" && isZero(value) && !shape?.keepZero) continue;
    if (value === null && shape?.omitZero) continue;
    if (shape?.inline && value !== null && typeof value === "object") {
      Object.assign(out, value);
      continue;
    }
    out[shape?.json ?? field.name] = value;
  }
  return out;
}

/** A protobuf watch frame's payload (a raw WatchEvent): its type and decoded object. */
export function decodeWatchEvent(frame: Uint8Array): { type: string; object: Obj } {
  const event = read(message("k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent")!, frame);
  const raw = ((event.object ?? {}) as Msg).raw as Uint8Array | undefined;
  return {
    type: String(event.type ?? ""),
    object: decodeEnvelope(raw ?? new Uint8Array(), { apiVersion: "", kind: "" }, 0),
  };
}
