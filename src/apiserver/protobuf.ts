// Decoding of the Kubernetes protobuf envelope for the few kinds kubectl's typed clients send as
// protobuf (`kubectl create configmap|secret|namespace`, `auth can-i`, `create token`): client-go
// only falls back to JSON after a 415 for CBOR, not for protobuf, so the server must read these.
// Other kinds answer 415. Field numbers are those of k8s.io/api's generated.proto files.
import type { Obj } from "./storage/index.js";

const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

type Field = { no: number; wire: number; value: bigint | Buffer };

function* fields(buf: Buffer): Generator<Field> {
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (i >= buf.length) throw new Error("truncated varint");
      const b = buf[i++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) yield { no, wire, value: varint() };
    else if (wire === 2) {
      const len = Number(varint());
      if (i + len > buf.length) throw new Error("truncated field");
      yield { no, wire, value: buf.subarray(i, i + len) };
      i += len;
    } else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

const str = (f: Field) => (f.value as Buffer).toString("utf8");

function mapEntry(buf: Buffer, bytesValue: boolean): [string, string] {
  let k = "";
  let v = "";
  for (const f of fields(buf)) {
    if (f.no === 1) k = str(f);
    else if (f.no === 2) v = bytesValue ? (f.value as Buffer).toString("base64") : str(f);
  }
  return [k, v];
}

function objectMeta(buf: Buffer): Obj {
  const meta: Obj = {};
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  const finalizers: string[] = [];
  for (const f of fields(buf)) {
    if (f.wire !== 2) continue;
    // proto3-style zero values ("") mean unset.
    if (f.no === 1 && str(f)) meta.name = str(f);
    else if (f.no === 2 && str(f)) meta.generateName = str(f);
    else if (f.no === 3 && str(f)) meta.namespace = str(f);
    else if (f.no === 6 && str(f)) meta.resourceVersion = str(f);
    else if (f.no === 11) {
      const [k, v] = mapEntry(f.value as Buffer, false);
      labels[k] = v;
    } else if (f.no === 12) {
      const [k, v] = mapEntry(f.value as Buffer, false);
      annotations[k] = v;
    } else if (f.no === 14) finalizers.push(str(f));
  }
  if (Object.keys(labels).length) meta.labels = labels;
  if (Object.keys(annotations).length) meta.annotations = annotations;
  if (finalizers.length) meta.finalizers = finalizers;
  return meta;
}

/** Appends `value` to the list at `obj[key]`, starting it when absent. */
function push(obj: Obj, key: string, value: string): void {
  const list = (obj[key] as string[] | undefined) ?? [];
  list.push(value);
  obj[key] = list;
}

/** A message of string fields, by number; repeated ones (in `repeated`) as lists. */
function stringMessage(buf: Buffer, names: Record<number, string>, repeated: readonly string[] = []): Obj {
  const out: Obj = {};
  for (const f of fields(buf)) {
    const name = names[f.no];
    if (!name || f.wire !== 2) continue;
    if (repeated.includes(name)) push(out, name, str(f));
    else if (str(f)) out[name] = str(f);
  }
  return out;
}

const resourceAttributes = {
  1: "namespace",
  2: "verb",
  3: "group",
  4: "version",
  5: "resource",
  6: "subresource",
  7: "name",
};
const nonResourceAttributes = { 1: "path", 2: "verb" };

/** authorization/v1's SubjectAccessReviewSpec (and SelfSubjectAccessReviewSpec, its first two fields). */
function accessReviewSpec(buf: Buffer): Obj {
  const spec: Obj = {};
  for (const f of fields(buf)) {
    if (f.wire !== 2) continue;
    const v = f.value as Buffer;
    if (f.no === 1) spec.resourceAttributes = stringMessage(v, resourceAttributes);
    else if (f.no === 2) spec.nonResourceAttributes = stringMessage(v, nonResourceAttributes);
    else if (f.no === 3 && str(f)) spec.user = str(f);
    else if (f.no === 4) push(spec, "groups", str(f));
    else if (f.no === 5) {
      let key = "";
      const items: string[] = [];
      for (const e of fields(v)) {
        if (e.no === 1) key = str(e);
        else if (e.no === 2) for (const i of fields(e.value as Buffer)) if (i.no === 1) items.push(str(i));
      }
      spec.extra = { ...((spec.extra as Obj | undefined) ?? {}), [key]: items };
    } else if (f.no === 6 && str(f)) spec.uid = str(f);
  }
  return spec;
}

/** authentication/v1's TokenRequestSpec. */
function tokenRequestSpec(buf: Buffer): Obj {
  const spec: Obj = {};
  for (const f of fields(buf)) {
    if (f.no === 1 && f.wire === 2) push(spec, "audiences", str(f));
    else if (f.no === 4 && f.wire === 0)
      spec.expirationSeconds = Number(BigInt.asIntN(64, f.value as bigint));
    else if (f.no === 3 && f.wire === 2) {
      spec.boundObjectRef = stringMessage(f.value as Buffer, {
        1: "kind",
        2: "apiVersion",
        3: "name",
        4: "uid",
      });
    }
  }
  return spec;
}

/** The spec decoders of the kinds whose objects are metadata (1) and a spec (2). */
const specDecoders: Record<string, (buf: Buffer) => Obj> = {
  SubjectAccessReview: accessReviewSpec,
  LocalSubjectAccessReview: accessReviewSpec,
  SelfSubjectAccessReview: accessReviewSpec,
  SelfSubjectRulesReview: (buf) => stringMessage(buf, { 1: "namespace" }),
  TokenReview: (buf) => stringMessage(buf, { 1: "token", 2: "audiences" }, ["audiences"]),
  TokenRequest: tokenRequestSpec,
};

function decodeKind(kind: string, raw: Buffer): Obj | undefined {
  const specOf = specDecoders[kind];
  if (specOf) {
    const obj: Obj = {};
    for (const f of fields(raw)) {
      if (f.no === 1 && f.wire === 2) obj.metadata = objectMeta(f.value as Buffer);
      else if (f.no === 2 && f.wire === 2) obj.spec = specOf(f.value as Buffer);
    }
    return obj;
  }
  const obj: Obj = {};
  const data: Record<string, string> = {};
  const binaryData: Record<string, string> = {};
  for (const f of fields(raw)) {
    if (f.no === 1 && f.wire === 2) obj.metadata = objectMeta(f.value as Buffer);
    else if (kind === "ConfigMap") {
      if (f.no === 2) {
        const [k, v] = mapEntry(f.value as Buffer, false);
        data[k] = v;
      } else if (f.no === 3) {
        const [k, v] = mapEntry(f.value as Buffer, true);
        binaryData[k] = v;
      } else if (f.no === 4) obj.immutable = f.value !== 0n;
    } else if (kind === "Secret") {
      if (f.no === 2) {
        const [k, v] = mapEntry(f.value as Buffer, true);
        data[k] = v;
      } else if (f.no === 3) obj.type = str(f);
      else if (f.no === 5) obj.immutable = f.value !== 0n;
    } else if (kind === "Namespace") {
      if (f.no === 2) {
        const finalizers: string[] = [];
        for (const s of fields(f.value as Buffer)) if (s.no === 1) finalizers.push(str(s));
        obj.spec = finalizers.length ? { finalizers } : {};
      }
    } else return undefined;
  }
  if (Object.keys(data).length) obj.data = data;
  if (Object.keys(binaryData).length) obj.binaryData = binaryData;
  return obj;
}

/** Decodes a protobuf-encoded object of a supported kind; undefined when the kind is not one. */
export function decodeProtobuf(body: Buffer, expectedKind: string): Obj | undefined {
  if (body.length < 4 || !body.subarray(0, 4).equals(magic))
    throw new Error("missing the k8s protobuf prefix");
  let apiVersion = "";
  let kind = "";
  let raw: Buffer | undefined;
  for (const f of fields(body.subarray(4))) {
    if (f.no === 1 && f.wire === 2) {
      for (const t of fields(f.value as Buffer)) {
        if (t.no === 1) apiVersion = str(t);
        else if (t.no === 2) kind = str(t);
      }
    } else if (f.no === 2 && f.wire === 2) raw = f.value as Buffer;
  }
  if (!raw || (kind && kind !== expectedKind)) return undefined;
  const obj = decodeKind(expectedKind, raw);
  if (!obj) return undefined;
  return { apiVersion, kind: expectedKind, ...obj };
}
