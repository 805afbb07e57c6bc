// kube's protobuf encoding (`application/vnd.kubernetes.protobuf`) to and from the JSON object
// shape the rest of the project works with, in one place: the client reads and writes built-in
// kinds through it, the embedded API server answers and reads protobuf through it. Each message
// is compiled once, from kube's .proto descriptors and the Go types beside them (schema.ts), into
// a plan that reads the wire straight into the object Go's JSON encoder would write (apimachinery's
// special types, omitempty, inlined structs), and back: no intermediate message objects.
import { type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { parseGoDuration } from "../api/duration.js";
import { goDuration, microTime, rfc3339 } from "./go-values.js";
import { goFields, isGoList, message, messageOf } from "./schema.js";
import { ProtobufError, Reader, utf8, Writer } from "./wire.js";

export { ProtobufError } from "./wire.js";

type Obj = Record<string, unknown>;

/** "k8s\0": the first bytes of every protobuf object kube writes. */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
/** RawExtensions that hold protobuf envelopes may nest; kube's objects do not nest deeper. */
const MAX_ENVELOPE_DEPTH = 4;
/**
 * The nesting of messages past which decoding and encoding leave the JS stack for a stack of their
 * own (readMessageDeep, writeFieldsDeep): kube serves CRDs whose schemas nest some 10 000 messages
 * deep, where the recursion overflowed; objects of every other kind stay well under it.
 */
const DEEP = 200;

/** How a field's value is read and written. */
enum Kind {
  String,
  Bytes,
  Bool,
  Int32,
  Int64,
  /** JSONSchemaProps' maximum, minimum, multipleOf. */
  Double,
  Message,
}

/** apimachinery's and apiextensions' types whose JSON is not their message's shape. */
enum Special {
  None,
  Time,
  MicroTime,
  Duration,
  Quantity,
  IntOrString,
  RawExtension,
  FieldsV1,
  GoList,
  /** apiextensions' JSON: raw JSON text (a schema's default, example, enum items); empty is null. */
  Json,
  /** JSONSchemaPropsOrArray: a schema, or an array of schemas (`items`). */
  SchemaOrArray,
  /** JSONSchemaPropsOrBool: a bool, or a schema (which allows) (`additionalProperties`). */
  SchemaOrBool,
  /** JSONSchemaPropsOrStringArray: a schema, or an array of property names (`dependencies`). */
  SchemaOrStringArray,
}

interface FieldPlan {
  number: number;
  /** The JSON key (Go's json tag). */
  key: string;
  kind: Kind;
  repeated: boolean;
  map: boolean;
  /** A map's value kind (keys are strings in all of kube's maps). */
  valueKind: Kind;
  message: DescMessage | undefined;
  keepZero: boolean;
  inline: boolean;
  omitZero: boolean;
  isTime: boolean;
  /**
   * The bytes the field's last length took (its map entries' for a map, its items' for a list),
   * reserved for the next one (wire.ts Writer.open): a field's values are most often of a size.
   */
  lengthBytes: number;
  /** The same for a map's message values, inside their entries. */
  valueLengthBytes: number;
  /** The plan of `message`, once decoding needed it (a field read, where planOf is a lookup). */
  messagePlan: Plan | undefined;
}

interface Plan {
  /** ObjectMeta's managedFields, by field index: what `omitManagedFields` leaves undecoded. */
  managedFields: number;
  desc: DescMessage;
  special: Special;
  fields: FieldPlan[];
  /** Index into `fields` by field number. */
  byNumber: number[];
  /**
   * The bytes the last lengths of this type's object took, reserved for the next (FieldPlan's
   * lengthBytes): in its envelope, and in a watch frame's event and RawExtension around that.
   */
  envelopeLengthBytes: number;
  eventLengthBytes: number;
  rawLengthBytes: number;
  /** Writes decoded values to the JSON object (see `builderOf`); null where it cannot be made. */
  build: Builder | null | undefined;
}

type Builder = ((values: unknown[], out: Obj) => void) & {
  /** A new empty plain object for this type, sized for its fields (see `builderOf`). */
  make: () => Obj;
};

const EXTENSIONS = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1";

const plans = new Map<DescMessage, Plan>();
/** Plans by `apiVersion kind`, null where kube has no message: messageOf's lookups are not free. */
const typePlans = new Map<string, Plan | null>();

/** The last type asked for: a watch's events are all of one, and the key costs a string and a lookup. */
let lastType: { apiVersion: string; kind: string; plan: Plan | undefined } = {
  apiVersion: "",
  kind: "",
  plan: undefined,
};

function planOfType(apiVersion: string, kind: string): Plan | undefined {
  const last = lastType;
  if (last.kind === kind && last.apiVersion === apiVersion && last.plan !== undefined) return last.plan;
  const plan = planOfTypeUncached(apiVersion, kind);
  if (plan !== undefined) lastType = { apiVersion, kind, plan };
  return plan;
}

function planOfTypeUncached(apiVersion: string, kind: string): Plan | undefined {
  const key = `${apiVersion} ${kind}`;
  let plan = typePlans.get(key);
  if (plan === undefined) {
    const desc = kind ? messageOf(apiVersion, kind) : undefined;
    plan = desc ? planOf(desc) : null;
    if (typePlans.size > 1000) typePlans.clear();
    typePlans.set(key, plan);
  }
  return plan ?? undefined;
}

function kindOf(scalar: ScalarType | undefined, isMessage: boolean): Kind {
  if (isMessage) return Kind.Message;
  switch (scalar) {
    case ScalarType.STRING:
      return Kind.String;
    case ScalarType.BYTES:
      return Kind.Bytes;
    case ScalarType.BOOL:
      return Kind.Bool;
    case ScalarType.INT32:
      return Kind.Int32;
    case ScalarType.INT64:
      return Kind.Int64;
    case ScalarType.DOUBLE:
      return Kind.Double;
    default:
      throw new ProtobufError(`scalar type ${String(scalar)} is not one kube's messages use`);
  }
}

function specialOf(desc: DescMessage): Special {
  switch (desc.typeName) {
    case "k8s.io.apimachinery.pkg.apis.meta.v1.Time":
      return Special.Time;
    case "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime":
      return Special.MicroTime;
    case "k8s.io.apimachinery.pkg.apis.meta.v1.Duration":
      return Special.Duration;
    case "k8s.io.apimachinery.pkg.api.resource.Quantity":
      return Special.Quantity;
    case "k8s.io.apimachinery.pkg.util.intstr.IntOrString":
      return Special.IntOrString;
    case "k8s.io.apimachinery.pkg.runtime.RawExtension":
      return Special.RawExtension;
    case "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1":
      return Special.FieldsV1;
    case `${EXTENSIONS}.JSON`:
      return Special.Json;
    case `${EXTENSIONS}.JSONSchemaPropsOrArray`:
      return Special.SchemaOrArray;
    case `${EXTENSIONS}.JSONSchemaPropsOrBool`:
      return Special.SchemaOrBool;
    case `${EXTENSIONS}.JSONSchemaPropsOrStringArray`:
      return Special.SchemaOrStringArray;
  }
  return isGoList(desc.typeName) ? Special.GoList : Special.None;
}

function fieldPlan(field: DescField): FieldPlan {
  const go = goFields(field.parent.typeName).get(field.number);
  let kind: Kind;
  let valueKind = Kind.String;
  let msg: DescMessage | undefined;
  switch (field.fieldKind) {
    case "scalar":
      kind = kindOf(field.scalar, false);
      break;
    case "message":
      kind = Kind.Message;
      msg = field.message;
      break;
    case "list":
      kind = kindOf(field.scalar, field.listKind === "message");
      msg = field.listKind === "message" ? field.message : undefined;
      break;
    case "map":
      kind = Kind.String;
      valueKind = kindOf(field.scalar, field.mapKind === "message");
      msg = field.mapKind === "message" ? field.message : undefined;
      break;
    default:
      throw new ProtobufError(`${field.parent.typeName}.${field.name}: enums are not in kube's messages`);
  }
  return {
    number: field.number,
    key: go?.json ?? field.name,
    kind,
    repeated: field.fieldKind === "list",
    map: field.fieldKind === "map",
    valueKind,
    message: msg,
    keepZero: go?.keepZero ?? false,
    inline: go?.inline ?? false,
    omitZero: go?.omitZero ?? false,
    isTime:
      msg !== undefined &&
      (msg.typeName === "k8s.io.apimachinery.pkg.apis.meta.v1.Time" ||
        msg.typeName === "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime"),
    lengthBytes: 1,
    valueLengthBytes: 1,
    messagePlan: undefined,
  };
}

function planOf(desc: DescMessage): Plan {
  let plan = plans.get(desc);
  if (plan) return plan;
  const fields = desc.fields.map(fieldPlan);
  const byNumber: number[] = [];
  fields.forEach((f, i) => {
    byNumber[f.number] = i;
  });
  const managedFields =
    desc.typeName === "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"
      ? fields.findIndex((f) => f.key === "managedFields")
      : -1;
  plan = {
    desc,
    special: specialOf(desc),
    fields,
    byNumber,
    managedFields,
    envelopeLengthBytes: 1,
    eventLengthBytes: 1,
    rawLengthBytes: 1,
    build: undefined,
  };
  plans.set(desc, plan);
  return plan;
}

/** The plan of a message field's type, kept on the field. */
function messagePlanOf(f: FieldPlan): Plan {
  let plan = f.messagePlan;
  if (plan === undefined) plan = f.messagePlan = planOf(f.message!);
  return plan;
}

/** Sets `key` as an own property even when it is `__proto__`. */
function setOwn(target: Obj, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}

// ---------------------------------------------------------------------------------------------
// Decoding.

export interface DecodeOptions {
  /**
   * Leaves `metadata.managedFields` undecoded (a cache that strips them pays nothing for them;
   * JSON.parse of a JSON answer cannot skip them). Default: false.
   */
  omitManagedFields?: boolean;
  /**
   * Parses the JSON that RawExtensions and FieldsV1 carry. Default: JSON.parse. The API server
   * passes its depth-bounded parser.
   */
  parseJson?: (text: string) => unknown;
}

interface DecodeContext {
  parseJson: (text: string) => unknown;
  /** The ObjectMeta field index skipped, or -2 (none). */
  skipManaged: number;
  depth: number;
}

const isZeroScalar = (v: unknown) => v === "" || v === 0 || v === false;

function readScalar(r: Reader, kind: Kind): unknown {
  switch (kind) {
    case Kind.String:
      return r.string();
    case Kind.Bytes:
      return r.bytes().toString("base64");
    case Kind.Bool:
      return r.uint32() !== 0;
    case Kind.Int32:
      return r.int32();
    case Kind.Double:
      return r.double();
    default:
      return r.int64();
  }
}

/** The message between `r.pos` and `end` as Go's JSON encoder writes the Go value. */
function readMessage(plan: Plan, r: Reader, end: number, ctx: DecodeContext, into?: Obj, depth = 0): unknown {
  // Past DEEP levels (a CRD's schema nests thousands), the walk goes on in readMessageDeep, on a
  // stack of its own rather than the JS stack.
  if (depth > DEEP) return readMessageDeep(plan, r, end, ctx, into);
  if (plan.special !== Special.None) return readSpecial(plan, r, end, ctx, depth);
  const fields = plan.fields;
  const byNumber = plan.byNumber;
  // Values by field index, so that the object's keys come in the Go struct's order whatever the
  // order on the wire.
  const values: unknown[] = new Array(fields.length);
  let any = false;
  while (r.pos < end) {
    const tag = r.uint32();
    const i = byNumber[tag >>> 3];
    if (i === undefined) {
      r.skip(tag & 7);
      continue;
    }
    if (i === plan.managedFields && ctx.skipManaged >= 0) {
      r.skip(tag & 7);
      continue;
    }
    const f = fields[i]!;
    any = true;
    if (f.map) {
      let obj = values[i] as Obj | undefined;
      if (obj === undefined) values[i] = obj = {};
      const entryEnd = r.delimited();
      let key = "";
      let value: unknown;
      while (r.pos < entryEnd) {
        const t = r.uint32();
        if (t === 0x0a) key = r.string();
        else if (t >>> 3 === 2) {
          value =
            f.valueKind === Kind.Message
              ? readMessage(messagePlanOf(f), r, r.delimited(), ctx, undefined, depth + 1)
              : readScalar(r, f.valueKind);
        } else r.skip(t & 7);
      }
      r.pos = entryEnd;
      if (value === undefined) value = f.valueKind === Kind.Message ? {} : zeroOf(f.valueKind);
      setOwn(obj, key, value);
      continue;
    }
    let value: unknown;
    if (f.kind === Kind.Message) {
      const msgEnd = r.delimited();
      value = readMessage(messagePlanOf(f), r, msgEnd, ctx, undefined, depth + 1);
      r.pos = msgEnd;
    } else if (f.repeated && (tag & 7) === 2 && f.kind !== Kind.String && f.kind !== Kind.Bytes) {
      // A packed run of varints (proto3 writers; kube's own proto2 writes them one by one).
      const runEnd = r.delimited();
      let list = values[i] as unknown[] | undefined;
      if (list === undefined) values[i] = list = [];
      while (r.pos < runEnd) list.push(readScalar(r, f.kind));
      continue;
    } else value = readScalar(r, f.kind);
    if (f.repeated) {
      const list = values[i] as unknown[] | undefined;
      if (list === undefined) values[i] = [value];
      else list.push(value);
    } else values[i] = value;
  }
  if (!any) return into ?? {};
  let build = plan.build;
  if (build === undefined) build = plan.build = builderOf(fields);
  if (build !== null) {
    const built = into ?? build.make();
    build(values, built);
    return built;
  }
  const out: Obj = into ?? {};
  for (let i = 0; i < fields.length; i++) {
    const value = values[i];
    if (value === undefined) continue;
    const f = fields[i]!;
    if (f.kind !== Kind.Message && !f.repeated && !f.map && !f.keepZero && isZeroScalar(value)) continue;
    if (value === null && f.omitZero) continue;
    if (f.inline && value !== null && typeof value === "object") {
      Object.assign(out, value);
      continue;
    }
    setOwn(out, f.key, value);
  }
  return out;
}

/** A nested message the deep walks go into next: its plan and where it ends (decoding). */
interface NestedRead {
  plan: Plan;
  end: number;
}

/**
 * readMessage for messages past DEEP levels: each message a generator, which yields the nested
 * messages it reads and gets their values back, on a stack of generators in the heap, so that a
 * CRD's schema decodes at any depth kube serves it (readMessage's recursion spent the JS stack
 * near 5 000 levels of `properties`). Slower per message: only the deep part of an object pays.
 */
function readMessageDeep(plan: Plan, r: Reader, end: number, ctx: DecodeContext, into?: Obj): unknown {
  const stack = [readSteps(plan, r, end, ctx, into)];
  let result: unknown;
  while (stack.length > 0) {
    const step = stack[stack.length - 1]!.next(result);
    if (step.done) {
      stack.pop();
      result = step.value;
    } else {
      stack.push(readSteps(step.value.plan, r, step.value.end, ctx, undefined));
      result = undefined;
    }
  }
  return result;
}

/** readMessage's steps, yielding each nested message (keep in step with readMessage). */
function* readSteps(
  plan: Plan,
  r: Reader,
  end: number,
  ctx: DecodeContext,
  into: Obj | undefined,
): Generator<NestedRead, unknown, unknown> {
  const special = plan.special;
  if (
    special === Special.SchemaOrArray ||
    special === Special.SchemaOrBool ||
    special === Special.SchemaOrStringArray
  )
    return yield* readUnionSteps(plan, r, end);
  // The other special types hold no messages.
  if (special !== Special.None) return readSpecial(plan, r, end, ctx, 0);
  const fields = plan.fields;
  const byNumber = plan.byNumber;
  const values: unknown[] = new Array(fields.length);
  let any = false;
  while (r.pos < end) {
    const tag = r.uint32();
    const i = byNumber[tag >>> 3];
    if (i === undefined || (i === plan.managedFields && ctx.skipManaged >= 0)) {
      r.skip(tag & 7);
      continue;
    }
    const f = fields[i]!;
    any = true;
    if (f.map) {
      let obj = values[i] as Obj | undefined;
      if (obj === undefined) values[i] = obj = {};
      const entryEnd = r.delimited();
      let key = "";
      let value: unknown;
      while (r.pos < entryEnd) {
        const t = r.uint32();
        if (t === 0x0a) key = r.string();
        else if (t >>> 3 === 2) {
          if (f.valueKind === Kind.Message) {
            const msgEnd = r.delimited();
            value = yield { plan: messagePlanOf(f), end: msgEnd };
            r.pos = msgEnd;
          } else value = readScalar(r, f.valueKind);
        } else r.skip(t & 7);
      }
      r.pos = entryEnd;
      if (value === undefined) value = f.valueKind === Kind.Message ? {} : zeroOf(f.valueKind);
      setOwn(obj, key, value);
      continue;
    }
    let value: unknown;
    if (f.kind === Kind.Message) {
      const msgEnd = r.delimited();
      value = yield { plan: messagePlanOf(f), end: msgEnd };
      r.pos = msgEnd;
    } else if (f.repeated && (tag & 7) === 2 && f.kind !== Kind.String && f.kind !== Kind.Bytes) {
      const runEnd = r.delimited();
      let list = values[i] as unknown[] | undefined;
      if (list === undefined) values[i] = list = [];
      while (r.pos < runEnd) list.push(readScalar(r, f.kind));
      continue;
    } else value = readScalar(r, f.kind);
    if (f.repeated) {
      const list = values[i] as unknown[] | undefined;
      if (list === undefined) values[i] = [value];
      else list.push(value);
    } else values[i] = value;
  }
  if (!any) return into ?? {};
  const out: Obj = into ?? {};
  for (let i = 0; i < fields.length; i++) {
    const value = values[i];
    if (value === undefined) continue;
    const f = fields[i]!;
    if (f.kind !== Kind.Message && !f.repeated && !f.map && !f.keepZero && isZeroScalar(value)) continue;
    if (value === null && f.omitZero) continue;
    if (f.inline && value !== null && typeof value === "object") {
      Object.assign(out, value);
      continue;
    }
    setOwn(out, f.key, value);
  }
  return out;
}

/** readSchemaUnion's steps, yielding each schema (keep in step with readSchemaUnion). */
function* readUnionSteps(plan: Plan, r: Reader, end: number): Generator<NestedRead, unknown, unknown> {
  let schema: unknown;
  const list: unknown[] = [];
  let allows = false;
  while (r.pos < end) {
    const tag = r.uint32();
    const i = plan.byNumber[tag >>> 3];
    const f = i === undefined ? undefined : plan.fields[i];
    if (f === undefined) r.skip(tag & 7);
    else if (f.kind === Kind.Message) {
      const msgEnd = r.delimited();
      const value = yield { plan: planOf(f.message!), end: msgEnd };
      r.pos = msgEnd;
      if (f.repeated) list.push(value);
      else schema = value;
    } else if (f.kind === Kind.String) list.push(r.string());
    else if (f.kind === Kind.Bool) allows = r.uint32() !== 0;
    else r.skip(tag & 7);
  }
  if (plan.special === Special.SchemaOrBool) return schema ?? allows;
  return list.length > 0 ? list : (schema ?? null);
}

/**
 * The loop at the end of readMessage, unrolled for one message type: each key is a constant in
 * its own store, which V8 caches by the object's shape, where the loop's `out[f.key] = value` was
 * one megamorphic store for every key of every type (the costliest step of decoding a watch
 * event). Null when code cannot be generated (node --disallow-code-generation-from-strings):
 * readMessage then runs the loop.
 */
function builderOf(fields: readonly FieldPlan[]): Builder | null {
  const lines: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const conds = ["v !== undefined"];
    if (f.kind !== Kind.Message && !f.repeated && !f.map && !f.keepZero) conds.push("!isZeroScalar(v)");
    if (f.omitZero) conds.push("v !== null");
    const key = JSON.stringify(f.key);
    let store: string;
    if (f.inline) {
      store = `if (v !== null && typeof v === "object") Object.assign(out, v); else setOwn(out, ${key}, v);`;
    } else if (f.key === "__proto__" || /^\d/.test(f.key)) store = `setOwn(out, ${key}, v);`;
    else store = `out[${key}] = v;`;
    lines.push(`v = values[${i}];`, `if (${conds.join(" && ")}) { ${store} }`);
  }
  try {
    // `new Plain()`, a constructor of the type's own with Object's prototype (a plain object to
    // every reader: prototype, constructor, inspection), rather than `{}`: V8 sizes a constructor's objects by the
    // properties its first ones got, so they hold their fields in the object itself, where a
    // literal's hold four and put the rest in a property array of their own, one more object to
    // allocate and for the collector to copy (ObjectMeta's six or so fields, most of a Pod's).
    const make = new Function(
      "isZeroScalar",
      "setOwn",
      "proto",
      `"use strict"; function Plain() {} Plain.prototype = proto; ` +
        `const build = function build(values, out) { let v; ${lines.join(" ")} }; ` +
        `build.make = function make() { return new Plain(); }; return build;`,
    ) as (isZero: typeof isZeroScalar, set: typeof setOwn, proto: object) => Builder;
    return make(isZeroScalar, setOwn, Object.prototype);
  } catch {
    return null;
  }
}

function zeroOf(kind: Kind): unknown {
  switch (kind) {
    case Kind.String:
      return "";
    case Kind.Bytes:
      return "";
    case Kind.Bool:
      return false;
    default:
      return 0;
  }
}

/** Reads the fields of a small message into an array by field number (special types only). */
function readFields(r: Reader, end: number, kinds: readonly Kind[]): unknown[] {
  const out: unknown[] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    const n = tag >>> 3;
    const kind = kinds[n];
    if (kind === undefined) r.skip(tag & 7);
    else if (kinds === GO_LIST_FIELDS) {
      const items = (out[1] as string[] | undefined) ?? [];
      items.push(r.string());
      out[1] = items;
    } else if (kind === Kind.Bytes) out[n] = r.bytes();
    else out[n] = readScalar(r, kind);
  }
  return out;
}

/**
 * The last Time decoded and its text: objects listed or watched together were mostly written in
 * the same second, and share one flat string instead of each keeping a concatenation of its own
 * (two more objects for the young generation's collector to copy, per object stored).
 */
const lastTime = { seconds: Number.NaN, text: "" };
const ONE_INT64 = [undefined, Kind.Int64] as Kind[];
const ONE_STRING = [undefined, Kind.String] as Kind[];
const INT_OR_STRING_FIELDS = [undefined, Kind.Int64, Kind.Int32, Kind.String] as Kind[];
const ONE_BYTES = [undefined, Kind.Bytes] as Kind[];
const GO_LIST_FIELDS = [undefined, Kind.String] as Kind[];

function readSpecial(plan: Plan, r: Reader, end: number, ctx: DecodeContext, depth: number): unknown {
  const special = plan.special;
  if (special === Special.Time || special === Special.MicroTime) return readTime(special, r, end);
  return readOtherSpecial(plan, r, end, ctx, depth);
}

/**
 * A Time or MicroTime (every object has one: its creationTimestamp), read without the array
 * readFields makes: small and on every object's path, it is optimized early, where the switch
 * over every special type with its destructurings (an iterator each, before optimization) was
 * optimized only thousands of objects in.
 */
function readTime(special: Special, r: Reader, end: number): string | null {
  let seconds: number | undefined;
  let nanos = 0;
  while (r.pos < end) {
    const tag = r.uint32();
    const n = tag >>> 3;
    if (n === 1) seconds = r.int64();
    else if (n === 2) nanos = r.int32();
    else r.skip(tag & 7);
  }
  // A zero time is an empty message, which Go writes as null.
  if (seconds === undefined) return null;
  if (special !== Special.Time) return microTimeText(seconds, nanos);
  return seconds === lastTime.seconds ? lastTime.text : timeText(seconds);
}

/** A Time's text, of another second than the last one decoded. */
function timeText(seconds: number): string {
  const text = rfc3339(seconds);
  if (text === undefined) throw new ProtobufError(`time out of range: ${seconds}s`);
  lastTime.seconds = seconds;
  lastTime.text = text;
  return text;
}

function microTimeText(seconds: number, nanos: number): string {
  const text = microTime(seconds, nanos);
  if (text === undefined) throw new ProtobufError(`time out of range: ${seconds}s`);
  return text;
}

function readOtherSpecial(plan: Plan, r: Reader, end: number, ctx: DecodeContext, depth: number): unknown {
  switch (plan.special) {
    case Special.Duration: {
      const ns = readFields(r, end, ONE_INT64)[1] as number | undefined;
      return goDuration(BigInt(ns ?? 0));
    }
    case Special.Quantity: {
      const text = readFields(r, end, ONE_STRING)[1] as string | undefined;
      return text || "0";
    }
    case Special.IntOrString: {
      const f = readFields(r, end, INT_OR_STRING_FIELDS);
      return f[1] === 1 ? ((f[3] as string | undefined) ?? "") : ((f[2] as number | undefined) ?? 0);
    }
    case Special.RawExtension:
    case Special.FieldsV1:
      return rawValue(readFields(r, end, ONE_BYTES)[1] as Buffer | undefined, ctx);
    case Special.GoList:
      return (readFields(r, end, GO_LIST_FIELDS)[1] as string[] | undefined) ?? [];
    case Special.Json: {
      // Go writes the raw bytes as they are, and an empty JSON as null.
      const raw = readFields(r, end, ONE_BYTES)[1] as Buffer | undefined;
      if (!raw || raw.length === 0) return null;
      try {
        return ctx.parseJson(raw.toString("utf8"));
      } catch (e) {
        throw new ProtobufError(`a JSON value of a schema is not JSON: ${(e as Error).message}`);
      }
    }
    case Special.SchemaOrArray:
    case Special.SchemaOrBool:
    case Special.SchemaOrStringArray:
      return readSchemaUnion(plan, r, end, ctx, depth);
  }
  return undefined;
}

/**
 * A JSONSchemaPropsOr* message as its MarshalJSON writes it (apiextensions' marshal.go): the
 * array when it has items, else the schema; for OrBool the schema, else the bool; else null.
 */
function readSchemaUnion(plan: Plan, r: Reader, end: number, ctx: DecodeContext, depth: number): unknown {
  let schema: unknown;
  const list: unknown[] = [];
  let allows = false;
  while (r.pos < end) {
    const tag = r.uint32();
    const i = plan.byNumber[tag >>> 3];
    const f = i === undefined ? undefined : plan.fields[i];
    if (f === undefined) r.skip(tag & 7);
    else if (f.kind === Kind.Message) {
      const msgEnd = r.delimited();
      const value = readMessage(planOf(f.message!), r, msgEnd, ctx, undefined, depth + 1);
      r.pos = msgEnd;
      if (f.repeated) list.push(value);
      else schema = value;
    } else if (f.kind === Kind.String) list.push(r.string());
    else if (f.kind === Kind.Bool) allows = r.uint32() !== 0;
    else r.skip(tag & 7);
  }
  if (plan.special === Special.SchemaOrBool) return schema ?? allows;
  return list.length > 0 ? list : (schema ?? null);
}

function rawValue(raw: Buffer | undefined, ctx: DecodeContext): unknown {
  if (!raw || raw.length === 0) return undefined;
  if (raw.length >= 4 && raw[0] === 0x6b && raw[1] === 0x38 && raw[2] === 0x73 && raw[3] === 0) {
    return decodeEnvelope(raw, 0, raw.length, "", "", { ...ctx, depth: ctx.depth + 1 });
  }
  try {
    return ctx.parseJson(raw.toString("utf8"));
  } catch (e) {
    throw new ProtobufError(`an embedded object is not JSON: ${(e as Error).message}`);
  }
}

function contextOf(options: DecodeOptions): DecodeContext {
  return {
    parseJson: options.parseJson ?? JSON.parse,
    depth: 0,
    skipManaged: options.omitManagedFields ? 0 : -2,
  };
}

const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** The last apiVersion and kind an envelope named. */
const lastApiVersion = { text: "" };
const lastKind = { text: "" };

/**
 * The string field at `r`, as `last.text` when it has the same characters (then nothing is
 * allocated), else as a new string that becomes `last.text`. Every object of a list or watch
 * names the same apiVersion and kind: stored objects share those strings rather than each keep
 * copies for the young generation's collector to copy.
 */
function sharedString(r: Reader, last: { text: string }): string {
  const end = r.delimited();
  const start = r.pos;
  r.pos = end;
  const text = last.text;
  const n = end - start;
  if (n === text.length) {
    const buf = r.buf;
    let i = 0;
    // ASCII only: a byte of a multi-byte character is no character of its own.
    while (i < n && buf[start + i]! < 0x80 && buf[start + i] === text.charCodeAt(i)) i++;
    if (i === n) return text;
  }
  const fresh = utf8(r.buf, start, end);
  last.text = fresh;
  return fresh;
}

/** `buf` is a Buffer already: converting every nested envelope cost 8% of a watch's decoding. */
function decodeEnvelope(
  buf: Buffer,
  start: number,
  end: number,
  apiVersion: string,
  kind: string,
  ctx: DecodeContext,
): Obj {
  if (ctx.depth > MAX_ENVELOPE_DEPTH) throw new ProtobufError("protobuf envelopes nested too deeply");
  const s = start;
  if (end - s < 4 || buf[s] !== 0x6b || buf[s + 1] !== 0x38 || buf[s + 2] !== 0x73 || buf[s + 3] !== 0) {
    throw new ProtobufError(
      "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
    );
  }
  const r = new Reader(buf, s + 4, end);
  let rawStart = 0;
  let rawEnd = 0;
  let encoding = "";
  while (r.pos < r.end) {
    const tag = r.uint32();
    switch (tag) {
      case 0x0a: {
        // TypeMeta: apiVersion (1), kind (2).
        const end = r.delimited();
        while (r.pos < end) {
          const t = r.uint32();
          if (t === 0x0a) apiVersion = sharedString(r, lastApiVersion) || apiVersion;
          else if (t === 0x12) kind = sharedString(r, lastKind) || kind;
          else r.skip(t & 7);
        }
        break;
      }
      case 0x12:
        rawEnd = r.delimited();
        rawStart = r.pos;
        r.pos = rawEnd;
        break;
      case 0x1a:
        encoding = r.string();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  if (encoding) throw new ProtobufError(`unsupported content encoding ${JSON.stringify(encoding)}`);
  const plan = planOfType(apiVersion, kind);
  if (!plan) throw new ProtobufError(`no kind "${kind}" is registered for version "${apiVersion}"`);
  if (plan.special !== Special.None) throw new ProtobufError(`${kind} is not an object kind`);
  // kube's JSON has `apiVersion` and `kind` first; readers see the same order.
  let build = plan.build;
  if (build === undefined) build = plan.build = builderOf(plan.fields);
  const out: Obj = build === null ? {} : build.make();
  out.apiVersion = apiVersion;
  out.kind = kind;
  return readMessage(plan, new Reader(buf, rawStart, rawEnd), rawEnd, ctx, out) as Obj;
}

/**
 * The object in a protobuf body ("k8s\0" and a runtime.Unknown naming its type), with
 * `apiVersion` and `kind` from the envelope; `expected` fills what the envelope leaves out.
 * Throws a {@link ProtobufError} for a body that is not one.
 */
export function decodeProtobuf(
  body: Uint8Array,
  expected: { apiVersion: string; kind: string } = { apiVersion: "", kind: "" },
  options: DecodeOptions = {},
): Obj {
  const buf = asBuffer(body);
  return decodeEnvelope(buf, 0, buf.length, expected.apiVersion, expected.kind, contextOf(options));
}

/** A protobuf watch frame's payload (a raw WatchEvent): its type and decoded object. */
export function decodeWatchEvent(
  frame: Uint8Array,
  options: DecodeOptions = {},
): { type: string; object: Obj } {
  const buf = asBuffer(frame);
  return readWatchEvent(buf, 0, buf.length, contextOf(options));
}

/**
 * A decoder of the WatchEvents between `start` and `end` of a buffer, for a watch stream: one
 * decoding context for all its frames, and no Buffer view made per frame or per object (each
 * view a typed array for the young generation, two per event).
 */
export function watchEventDecoder(
  options: DecodeOptions = {},
): (buf: Buffer, start: number, end: number) => { type: string; object: Obj } {
  const ctx = contextOf(options);
  return (buf, start, end) => readWatchEvent(buf, start, end, ctx);
}

function readWatchEvent(
  buf: Buffer,
  start: number,
  end: number,
  ctx: DecodeContext,
): { type: string; object: Obj } {
  const r = new Reader(buf, start, end);
  let type = "";
  let object: Obj | undefined;
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) type = r.string();
    else if (tag === 0x12) {
      // object: a RawExtension whose raw (1) is the object's envelope.
      const objEnd = r.delimited();
      while (r.pos < objEnd) {
        const t = r.uint32();
        if (t === 0x0a) {
          const rawEnd = r.delimited();
          object = decodeEnvelope(buf, r.pos, rawEnd, "", "", ctx);
          r.pos = rawEnd;
        } else r.skip(t & 7);
      }
    } else r.skip(tag & 7);
  }
  if (object === undefined) throw new ProtobufError(`a watch event (${type || "no type"}) without an object`);
  return { type, object };
}

// ---------------------------------------------------------------------------------------------
// Encoding.

const isObject = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** Parsed times by their text: objects written together share them. */
const parsedTimes = new Map<string, { seconds: number; nanos: number } | undefined>();

function seconds(text: unknown): { seconds: number; nanos: number } | undefined {
  if (typeof text !== "string") return undefined;
  let t = parsedTimes.get(text);
  if (t === undefined && !parsedTimes.has(text)) {
    t = parseTime(text);
    if (parsedTimes.size > 4096) parsedTimes.clear();
    parsedTimes.set(text, t);
  }
  return t;
}

function parseTime(text: string): { seconds: number; nanos: number } | undefined {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return undefined;
  const fraction = /\.(\d{1,9})Z$/.exec(text)?.[1];
  return { seconds: Math.floor(ms / 1000), nanos: fraction ? Number(fraction.padEnd(9, "0")) : 0 };
}

/**
 * Writes a scalar value of field `n`. A JSON value of the wrong type is left out and marks the
 * encoding as lossy (`w.lossy`): Go would refuse it, and a client sends such an object as JSON so
 * that the server says what is wrong.
 */
function writeScalar(w: Writer, n: number, kind: Kind, v: unknown): void {
  switch (kind) {
    case Kind.String:
      if (typeof v === "string") w.string(n, v);
      else w.lossy = true;
      return;
    case Kind.Bytes:
      if (typeof v === "string") w.bytes(n, Buffer.from(v, "base64"));
      else w.lossy = true;
      return;
    case Kind.Bool:
      if (typeof v === "boolean") {
        w.tag(n, 0);
        w.varint(v ? 1 : 0);
      } else w.lossy = true;
      return;
    case Kind.Double:
      if (typeof v === "number" && Number.isFinite(v)) w.double(n, v);
      else w.lossy = true;
      return;
    default:
      if (typeof v === "number" && Number.isSafeInteger(v)) {
        w.tag(n, 0);
        w.int(v);
      } else w.lossy = true;
  }
}

/**
 * Writes `v` as the fields of `plan`'s message (the caller framed it); the count of `v`'s keys
 * that are the message's fields. Keys that are not (unknown fields) mark the encoding lossy.
 */
function writeFields(w: Writer, plan: Plan, v: unknown, used = 0, checkKeys = true, depth = 0): number {
  // Past DEEP levels (a CRD's schema nests thousands), the walk goes on in writeFieldsDeep, on a
  // stack of its own rather than the JS stack.
  if (depth > DEEP) return writeFieldsDeep(w, plan, v, used, checkKeys);
  if (plan.special !== Special.None) {
    writeSpecial(w, plan, v, depth);
    return 0;
  }
  if (!isObject(v)) {
    w.lossy = true;
    return 0;
  }
  for (const f of plan.fields) {
    if (f.inline) {
      // An inlined struct's JSON fields are its parent's.
      used += writeInline(w, f, v, depth);
      continue;
    }
    const value = v[f.key];
    if (value === undefined) continue;
    used++;
    if (value === null) {
      // A zero Time Go writes as null, and as an empty message.
      if (f.isTime && !f.repeated) w.close(w.open(f.number));
      continue;
    }
    if (f.map) {
      if (!isObject(value)) {
        w.lossy = true;
        continue;
      }
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const item = value[key];
        const reserve = f.lengthBytes;
        const at = w.open(f.number, reserve);
        w.string(1, key);
        if (f.valueKind === Kind.Message) {
          const valueReserve = f.valueLengthBytes;
          const inner = w.open(2, valueReserve);
          writeFields(w, planOf(f.message!), item, 0, true, depth + 1);
          f.valueLengthBytes = w.close(inner, valueReserve);
        } else writeScalar(w, 2, f.valueKind, item);
        f.lengthBytes = w.close(at, reserve);
      }
      continue;
    }
    if (f.repeated) {
      if (!Array.isArray(value)) {
        w.lossy = true;
        continue;
      }
      for (const item of value) {
        if (f.kind === Kind.Message) {
          const reserve = f.lengthBytes;
          const at = w.open(f.number, reserve);
          writeFields(w, planOf(f.message!), item, 0, true, depth + 1);
          f.lengthBytes = w.close(at, reserve);
        } else writeScalar(w, f.number, f.kind, item);
      }
      continue;
    }
    if (f.kind === Kind.Message) {
      const sub = planOf(f.message!);
      // Special types with no value for this JSON (a time that does not parse) are left unset.
      if (sub.special !== Special.None && !hasSpecialValue(sub, value)) {
        w.lossy = true;
        continue;
      }
      const reserve = f.lengthBytes;
      const at = w.open(f.number, reserve);
      writeFields(w, sub, value, 0, true, depth + 1);
      f.lengthBytes = w.close(at, reserve);
    } else writeScalar(w, f.number, f.kind, value);
  }
  if (checkKeys && w.exact && !w.lossy) {
    let keys = 0;
    for (const k in v) if (v[k] !== undefined) keys++;
    if (keys !== used) w.lossy = true;
  }
  return used;
}

/** A nested message the deep walks go into next (encoding): writeFields' arguments. */
interface NestedWrite {
  plan: Plan;
  v: unknown;
  checkKeys: boolean;
}

/**
 * writeFields for messages past DEEP levels: each message a generator, which opens a nested
 * message's length, yields it, and closes the length once it is written, on a stack of
 * generators in the heap, so that a CRD's schema encodes at any depth kube serves it
 * (writeFields' recursion spent the JS stack near 5 000 levels of `properties`). Slower per
 * message: only the deep part of an object pays.
 */
function writeFieldsDeep(w: Writer, plan: Plan, v: unknown, used: number, checkKeys: boolean): number {
  const stack = [writeSteps(w, plan, v, used, checkKeys)];
  let result = 0;
  while (stack.length > 0) {
    const step = stack[stack.length - 1]!.next(result);
    if (step.done) {
      stack.pop();
      result = step.value;
    } else {
      stack.push(writeSteps(w, step.value.plan, step.value.v, 0, step.value.checkKeys));
      result = 0;
    }
  }
  return result;
}

/** writeFields' steps, yielding each nested message (keep in step with writeFields). */
function* writeSteps(
  w: Writer,
  plan: Plan,
  v: unknown,
  used: number,
  checkKeys: boolean,
): Generator<NestedWrite, number, number> {
  const special = plan.special;
  if (
    special === Special.SchemaOrArray ||
    special === Special.SchemaOrBool ||
    special === Special.SchemaOrStringArray
  ) {
    yield* writeUnionSteps(w, plan, v);
    return 0;
  }
  // The other special types hold no messages.
  if (special !== Special.None) {
    writeSpecial(w, plan, v, 0);
    return 0;
  }
  if (!isObject(v)) {
    w.lossy = true;
    return 0;
  }
  for (const f of plan.fields) {
    if (f.inline) {
      const reserve = f.lengthBytes;
      const at = w.open(f.number, reserve);
      used += yield { plan: planOf(f.message!), v, checkKeys: false };
      f.lengthBytes = w.close(at, reserve);
      continue;
    }
    const value = v[f.key];
    if (value === undefined) continue;
    used++;
    if (value === null) {
      if (f.isTime && !f.repeated) w.close(w.open(f.number));
      continue;
    }
    if (f.map) {
      if (!isObject(value)) {
        w.lossy = true;
        continue;
      }
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const item = value[key];
        const reserve = f.lengthBytes;
        const at = w.open(f.number, reserve);
        w.string(1, key);
        if (f.valueKind === Kind.Message) {
          const valueReserve = f.valueLengthBytes;
          const inner = w.open(2, valueReserve);
          yield { plan: planOf(f.message!), v: item, checkKeys: true };
          f.valueLengthBytes = w.close(inner, valueReserve);
        } else writeScalar(w, 2, f.valueKind, item);
        f.lengthBytes = w.close(at, reserve);
      }
      continue;
    }
    if (f.repeated) {
      if (!Array.isArray(value)) {
        w.lossy = true;
        continue;
      }
      for (const item of value) {
        if (f.kind === Kind.Message) {
          const reserve = f.lengthBytes;
          const at = w.open(f.number, reserve);
          yield { plan: planOf(f.message!), v: item, checkKeys: true };
          f.lengthBytes = w.close(at, reserve);
        } else writeScalar(w, f.number, f.kind, item);
      }
      continue;
    }
    if (f.kind === Kind.Message) {
      const sub = planOf(f.message!);
      if (sub.special !== Special.None && !hasSpecialValue(sub, value)) {
        w.lossy = true;
        continue;
      }
      const reserve = f.lengthBytes;
      const at = w.open(f.number, reserve);
      yield { plan: sub, v: value, checkKeys: true };
      f.lengthBytes = w.close(at, reserve);
    } else writeScalar(w, f.number, f.kind, value);
  }
  if (checkKeys && w.exact && !w.lossy) {
    let keys = 0;
    for (const k in v) if (v[k] !== undefined) keys++;
    if (keys !== used) w.lossy = true;
  }
  return used;
}

/** writeSchemaUnion's steps, yielding each schema (keep in step with writeSchemaUnion). */
function* writeUnionSteps(w: Writer, plan: Plan, v: unknown): Generator<NestedWrite, void, number> {
  if (v === null) return;
  const schemaField = plan.fields[plan.byNumber[plan.special === Special.SchemaOrBool ? 2 : 1]!]!;
  const schema = planOf(schemaField.message!);
  if (plan.special === Special.SchemaOrBool) {
    if (typeof v !== "boolean" && !isObject(v)) {
      w.lossy = true;
      return;
    }
    w.tag(1, 0);
    w.varint(v === false ? 0 : 1);
    if (isObject(v)) {
      const at = w.open(2);
      yield { plan: schema, v, checkKeys: true };
      w.close(at);
    }
    return;
  }
  if (isObject(v)) {
    const at = w.open(1);
    yield { plan: schema, v, checkKeys: true };
    w.close(at);
  } else if (!Array.isArray(v)) w.lossy = true;
  else if (plan.special === Special.SchemaOrArray) {
    for (const item of v) {
      const at = w.open(2);
      yield { plan: schema, v: item, checkKeys: true };
      w.close(at);
    }
  } else for (const item of v) writeScalar(w, 2, Kind.String, item);
}

/** An inlined struct, written as a field of its own from the parent's keys. */
function writeInline(w: Writer, f: FieldPlan, v: Obj, depth: number): number {
  const reserve = f.lengthBytes;
  const at = w.open(f.number, reserve);
  // The parent's other keys are not this struct's: the parent checks them all.
  const used = writeFields(w, planOf(f.message!), v, 0, false, depth + 1);
  f.lengthBytes = w.close(at, reserve);
  return used;
}

function hasSpecialValue(plan: Plan, v: unknown): boolean {
  switch (plan.special) {
    case Special.Time:
    case Special.MicroTime:
      return seconds(v) !== undefined;
    case Special.Duration:
      return typeof v === "string" && parseGoDuration(v) !== undefined;
    case Special.IntOrString:
      return typeof v === "number" || typeof v === "string";
    case Special.GoList:
      return Array.isArray(v);
    case Special.SchemaOrArray:
    case Special.SchemaOrStringArray:
      return Array.isArray(v) || isObject(v);
    case Special.SchemaOrBool:
      return typeof v === "boolean" || isObject(v);
    default:
      return true;
  }
}

/**
 * The JSON bytes of deep-frozen FieldsV1 trees. A server stores one frozen tree for all the
 * objects a manager wrote alike (controller-runtime-apiserver's storage/frozen-trees.ts) and
 * writes it on every read: stringifying it again was a third of a list page's encoding.
 */
const fieldsBytes = new WeakMap<object, Uint8Array>();
/** The same bytes as latin1 text (one character a byte), for kept encodings (keptOfWriter). */
const fieldsText = new WeakMap<object, string>();
/** Trees' bytes at least this long are shared by kept encodings: a part costs some 30 bytes. */
const SHARED_FIELDS_MIN = 48;

function fieldsTextOf(tree: object, bytes: Uint8Array): string {
  let text = fieldsText.get(tree);
  if (text === undefined) {
    text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).latin1Slice(0, bytes.length);
    fieldsText.set(tree, text);
  }
  return text;
}

function frozenFieldsBytes(v: unknown): Uint8Array | undefined {
  if (v === null || typeof v !== "object" || !Object.isFrozen(v)) return undefined;
  let bytes = fieldsBytes.get(v);
  if (bytes === undefined) {
    // Only a tree frozen all the way down cannot change under the cached bytes.
    if (!deeplyFrozen(v)) return undefined;
    bytes = Buffer.from(JSON.stringify(v));
    fieldsBytes.set(v, bytes);
  }
  return bytes;
}

function deeplyFrozen(v: object): boolean {
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x === null || typeof x !== "object") continue;
    if (!Object.isFrozen(x)) return false;
    for (const k in x) stack.push((x as Record<string, unknown>)[k]);
  }
  return true;
}

function writeSpecial(w: Writer, plan: Plan, v: unknown, depth: number): void {
  switch (plan.special) {
    case Special.Time:
    case Special.MicroTime: {
      const t = seconds(v);
      if (!t) return;
      w.tag(1, 0);
      w.int(t.seconds);
      if (plan.special === Special.MicroTime && t.nanos !== 0) {
        w.tag(2, 0);
        w.int(t.nanos);
      }
      return;
    }
    case Special.Duration: {
      const ms = typeof v === "string" ? parseGoDuration(v) : undefined;
      if (ms === undefined) return;
      w.tag(1, 0);
      w.int(Math.round(ms * 1e6));
      return;
    }
    case Special.Quantity:
      w.string(1, String(v));
      return;
    case Special.IntOrString:
      if (typeof v === "number") {
        w.tag(1, 0);
        w.varint(0);
        w.tag(2, 0);
        w.int(Math.trunc(v));
      } else if (typeof v === "string") {
        w.tag(1, 0);
        w.varint(1);
        w.string(3, v);
      }
      return;
    case Special.FieldsV1: {
      const bytes = frozenFieldsBytes(v);
      if (!bytes) {
        w.string(1, JSON.stringify(v));
        return;
      }
      w.bytes(1, bytes);
      // A kept encoding holds the tree's bytes as text kept with the tree, which the objects a
      // manager wrote alike share, instead of a copy each.
      if (w.shared !== undefined && bytes.length >= SHARED_FIELDS_MIN)
        w.shared.push(w.pos, fieldsTextOf(v as object, bytes));
      return;
    }
    case Special.RawExtension:
      // The raw JSON's UTF-8 bytes: on the wire, a bytes field is a string field.
      w.string(1, JSON.stringify(v));
      return;
    case Special.GoList:
      if (Array.isArray(v)) for (const item of v) if (typeof item === "string") w.string(1, item);
      return;
    case Special.Json:
      // null (an enum item, a dependency) is Go's empty JSON: an empty message.
      if (v !== null) w.string(1, JSON.stringify(v));
      return;
    case Special.SchemaOrArray:
    case Special.SchemaOrBool:
    case Special.SchemaOrStringArray:
      writeSchemaUnion(w, plan, v, depth);
      return;
  }
}

/** A JSONSchemaPropsOr* value, as its UnmarshalJSON reads it and Go's protobuf encoder writes it. */
function writeSchemaUnion(w: Writer, plan: Plan, v: unknown, depth: number): void {
  // null is the union's zero value (Go's UnmarshalJSON reads it as such): an empty message.
  if (v === null) return;
  const schemaField = plan.fields[plan.byNumber[plan.special === Special.SchemaOrBool ? 2 : 1]!]!;
  const schema = planOf(schemaField.message!);
  if (plan.special === Special.SchemaOrBool) {
    // Allows is a plain bool, which Go always writes; a schema allows.
    if (typeof v !== "boolean" && !isObject(v)) {
      w.lossy = true;
      return;
    }
    w.tag(1, 0);
    w.varint(v === false ? 0 : 1);
    if (isObject(v)) {
      const at = w.open(2);
      writeFields(w, schema, v, 0, true, depth + 1);
      w.close(at);
    }
    return;
  }
  if (isObject(v)) {
    const at = w.open(1);
    writeFields(w, schema, v, 0, true, depth + 1);
    w.close(at);
  } else if (!Array.isArray(v)) w.lossy = true;
  else if (plan.special === Special.SchemaOrArray) {
    for (const item of v) {
      const at = w.open(2);
      writeFields(w, schema, item, 0, true, depth + 1);
      w.close(at);
    }
  } else for (const item of v) writeScalar(w, 2, Kind.String, item);
}

/** Whether kube has a protobuf message for `kind` in `apiVersion` (built-in kinds, meta/v1's). */
export function hasMessage(apiVersion: string, kind: string): boolean {
  return planOfType(apiVersion, kind) !== undefined;
}

/**
 * The message bytes of `obj` as `kind` in `apiVersion`, without the envelope (a list item as the
 * list writes it); undefined when kube has no message for it.
 */
export function encodeMessage(
  apiVersion: string,
  kind: string,
  obj: unknown,
  options: EncodeOptions = {},
): Buffer | undefined {
  const plan = planOfType(apiVersion, kind);
  if (!plan) return undefined;
  const w = scratch();
  if (!writeObject(w, plan, obj, options)) return undefined;
  return w.finish();
}

let shared: Writer | undefined;

/** The module's writer, emptied: encodings are synchronous, so one serves them all. */
function scratch(): Writer {
  shared ??= new Writer(64 * 1024);
  shared.pos = 0;
  shared.lossy = false;
  shared.shared = undefined;
  // A writer grown by one huge object is not kept.
  if (shared.buf.length > 16 * 1024 * 1024) shared = new Writer(64 * 1024);
  return shared;
}

function writeObject(w: Writer, plan: Plan, obj: unknown, options: EncodeOptions): boolean {
  // Only an exact encoding looks for keys the message does not know: counting every object's
  // keys again was a fifth of a server's encoding of stored objects, which it pruned already.
  w.exact = options.exact === true;
  let typeMeta = 0;
  if (isObject(obj)) typeMeta = (obj.apiVersion !== undefined ? 1 : 0) + (obj.kind !== undefined ? 1 : 0);
  writeFields(w, plan, obj, typeMeta);
  return !(w.lossy && options.exact);
}

export interface EncodeOptions {
  /**
   * Undefined instead of bytes when the message cannot hold the whole object: fields it does not
   * know, values of the wrong type. A client then sends JSON, so that the server validates what
   * it was given (unknown fields warned about or refused) rather than never seeing it.
   */
  exact?: boolean;
}

/** Frames message bytes as kube does: "k8s\0" and a runtime.Unknown naming the type. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const w = scratch();
  envelopeHead(w, apiVersion, kind);
  w.bytes(2, raw);
  envelopeTail(w);
  return w.finish();
}

function envelopeHead(w: Writer, apiVersion: string, kind: string): void {
  w.raw(MAGIC);
  const meta = w.open(1);
  w.string(1, apiVersion);
  w.string(2, kind);
  w.close(meta);
}

// contentEncoding and contentType, empty, as kube writes them.
function envelopeTail(w: Writer): void {
  w.string(3, "");
  w.string(4, "");
}

/** The object (with its apiVersion and kind) in kube's protobuf encoding; undefined when kube has no message for it. */
export function encodeProtobuf(obj: Obj, options: EncodeOptions = {}): Buffer | undefined {
  const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
  const kind = typeof obj.kind === "string" ? obj.kind : "";
  const plan = planOfType(apiVersion, kind);
  if (!plan) return undefined;
  const w = scratch();
  writeEnvelope(w, apiVersion, kind, plan, obj, options);
  return w.lossy && options.exact ? undefined : w.finish();
}

/** The envelope of `obj`, written in one pass (the raw message's length patched in place). */
function writeEnvelope(
  w: Writer,
  apiVersion: string,
  kind: string,
  plan: Plan,
  obj: unknown,
  options: EncodeOptions,
  shared?: (number | string)[],
): void {
  envelopeHead(w, apiVersion, kind);
  const reserve = plan.envelopeLengthBytes;
  const at = w.open(2, reserve);
  // Strings are recorded from the message on: the heads before it are the kept frame's first
  // part whole, where its message is found (messageStart).
  w.shared = shared;
  writeObject(w, plan, obj, options);
  plan.envelopeLengthBytes = w.close(at, reserve);
  envelopeTail(w);
}

/**
 * One frame of a protobuf watch for `obj` as `kind` in `apiVersion`, written in one pass;
 * undefined when kube has no message for it.
 */
export function encodeWatchFrameOf(
  type: string,
  apiVersion: string,
  kind: string,
  obj: unknown,
): Buffer | undefined {
  return writeWatchFrame(type, apiVersion, kind, obj)?.finish();
}

/**
 * {@link encodeWatchFrameOf}'s bytes as latin1 text (one character a byte), for a server that
 * keeps frames with text lines: copied once out of the encoder's buffer, not through a Buffer.
 */
export function encodeWatchFrameTextOf(
  type: string,
  apiVersion: string,
  kind: string,
  obj: unknown,
): string | undefined {
  const w = writeWatchFrame(type, apiVersion, kind, obj);
  return w?.buf.latin1Slice(0, w.pos);
}

/** The frame in the module's writer; undefined when kube has no message for the kind. */
function writeWatchFrame(
  type: string,
  apiVersion: string,
  kind: string,
  obj: unknown,
  shared?: (number | string)[],
): Writer | undefined {
  const plan = planOfType(apiVersion, kind);
  if (!plan) return undefined;
  const w = scratch();
  w.raw(FRAME_HEAD);
  w.string(1, type);
  const eventReserve = plan.eventLengthBytes;
  const event = w.open(2, eventReserve);
  // The object's RawExtension: its raw bytes are the object's envelope.
  const rawReserve = plan.rawLengthBytes;
  const raw = w.open(1, rawReserve);
  writeEnvelope(w, apiVersion, kind, plan, obj, {}, shared);
  plan.rawLengthBytes = w.close(raw, rawReserve);
  plan.eventLengthBytes = w.close(event, eventReserve);
  w.buf.writeUInt32BE(w.pos - 4, 0);
  return w;
}

const FRAME_HEAD = new Uint8Array(4);

/**
 * A list in protobuf from its items' message bytes (from {@link encodeMessage}, or as latin1 text
 * from {@link frozenMessageText}), so that a server that keeps each object's bytes writes a list
 * without encoding its items again.
 */
export function encodeList(
  apiVersion: string,
  listKind: string,
  metadata: Obj,
  items: readonly (Uint8Array | string | readonly string[])[],
): Buffer | undefined {
  const plan = planOfType(apiVersion, listKind);
  if (!plan) return undefined;
  const metaField = plan.fields.find((f) => f.key === "metadata");
  const itemsField = plan.fields.find((f) => f.key === "items");
  if (!metaField || !itemsField) return undefined;
  let size = 128 + apiVersion.length + listKind.length;
  for (const item of items) size += partsLength(item) + 6;
  const w = new Writer(size);
  envelopeHead(w, apiVersion, listKind);
  const rawReserve = plan.envelopeLengthBytes;
  const raw = w.open(2, rawReserve);
  const at = w.open(metaField.number);
  writeFields(w, planOf(metaField.message!), metadata);
  w.close(at);
  for (const item of items) {
    if (typeof item === "string") w.latin1(itemsField.number, item);
    else if (item instanceof Uint8Array) w.bytes(itemsField.number, item);
    else w.latin1Parts(itemsField.number, item, partsLength(item));
  }
  plan.envelopeLengthBytes = w.close(raw, rawReserve);
  envelopeTail(w);
  return w.buf.subarray(0, w.pos);
}

/** The bytes of an item given as bytes, as latin1 text or as parts of latin1 text. */
function partsLength(item: Uint8Array | string | readonly string[]): number {
  if (typeof item === "string" || item instanceof Uint8Array) return item.length;
  let n = 0;
  for (const part of item) n += part.length;
  return n;
}

/**
 * A list of `itemKind` objects in protobuf, encoded straight from the objects in one pass;
 * undefined when kube has no message for the list or its items. `sizeHint`, the bytes the list
 * will likely take (a server knows its items' JSON length, which is rarely less), spares the
 * buffer's growing copies.
 */
export function encodeListOf(
  apiVersion: string,
  listKind: string,
  itemKind: string,
  metadata: Obj,
  items: readonly unknown[],
  sizeHint = 64 * 1024,
): Buffer | undefined {
  const plan = planOfType(apiVersion, listKind);
  const itemPlan = planOfType(apiVersion, itemKind);
  if (!plan || !itemPlan) return undefined;
  const metaField = plan.fields.find((f) => f.key === "metadata");
  const itemsField = plan.fields.find((f) => f.key === "items");
  if (!metaField || !itemsField) return undefined;
  const w = new Writer(Math.max(1024, sizeHint));
  envelopeHead(w, apiVersion, listKind);
  const rawReserve = plan.envelopeLengthBytes;
  const raw = w.open(2, rawReserve);
  const at = w.open(metaField.number);
  writeFields(w, planOf(metaField.message!), metadata);
  w.close(at);
  for (const item of items) {
    const itemReserve = itemsField.lengthBytes;
    const itemAt = w.open(itemsField.number, itemReserve);
    writeObject(w, itemPlan, item, {});
    itemsField.lengthBytes = w.close(itemAt, itemReserve);
  }
  plan.envelopeLengthBytes = w.close(raw, rawReserve);
  envelopeTail(w);
  return w.buf.subarray(0, w.pos);
}

// ---- frozen objects: encoded once ---------------------------------------------------------------
// A server's stored objects are deep-frozen and never change (a write stores a new object), so
// their message bytes are kept, by object, from the first protobuf answer that encodes one:
// lists, watch events and gets of it then copy bytes instead of encoding it again (issue 43).
// The bytes are latin1 text (one character a byte): a server's watch keeps frames with its JSON
// lines as text, and text joins without copying. Held weakly: bytes go with their object.
// A long ASCII string value's bytes are its characters: the kept bytes hold the object's own
// string for it (the frame in parts) instead of a copy, so that keeping an object's encoding
// costs its small fields' bytes, not its data's again.

/**
 * An object's kept ADDED frame: its latin1 text, or that text in parts (the object's own long
 * string values between the encoder's bytes), which joined are the text.
 */
export type KeptFrame = string | readonly string[];
type Kept = KeptFrame;

/**
 * Bytes of frames kept in a generation before it becomes the old one and the old one is dropped
 * (the bytes a frame adds to its object's: its long string values are the object's): kept frames
 * stay under twice this. A frame read from the old generation moves to the young one: what is
 * read keeps being kept.
 */
const GENERATION_BYTES = 64 * 1024 * 1024;
let generation = 0;
let youngBytes = 0;

/** Kept frames of one type's frozen objects. */
interface FrozenOfType {
  apiVersion: string;
  kind: string;
  /** Each object's ADDED frame: what a watch's initial events send, and its message inside. */
  young: WeakMap<object, Kept>;
  old: WeakMap<object, Kept> | undefined;
  /** The generation `young` belongs to. */
  generation: number;
}

const frozenTypes = new Map<string, FrozenOfType>();
let lastFrozen: FrozenOfType | undefined;

function frozenOfType(apiVersion: string, kind: string): FrozenOfType {
  let found = lastFrozen;
  if (!found || found.kind !== kind || found.apiVersion !== apiVersion) {
    const key = `${apiVersion} ${kind}`;
    found = frozenTypes.get(key);
    if (found === undefined) {
      found = { apiVersion, kind, young: new WeakMap(), old: undefined, generation };
      frozenTypes.set(key, found);
    }
    lastFrozen = found;
  }
  if (found.generation !== generation) {
    // Generations went by since this type kept a frame: its young one is old now, or gone.
    found.old = found.generation === generation - 1 ? found.young : undefined;
    found.young = new WeakMap();
    found.generation = generation;
  }
  return found;
}

/** The bytes a kept frame holds besides its object's strings. */
export function keptFrameBytes(kept: KeptFrame): number {
  if (typeof kept === "string") return kept.length;
  let bytes = 0;
  for (let i = 0; i < kept.length; i += 2) bytes += kept[i]!.length;
  return bytes;
}

function keep(ofType: FrozenOfType, key: object, kept: Kept): void {
  ofType.young.set(key, kept);
  youngBytes += keptFrameBytes(kept);
  if (youngBytes > GENERATION_BYTES) {
    generation++;
    youngBytes = 0;
  }
}

/**
 * The ADDED watch frame of `obj` as `kind` in `apiVersion`, kept for a frozen object (see
 * {@link frozenMessageText}); undefined when kube has no message for it.
 */
function frozenAddedFrame(apiVersion: string, kind: string, obj: object, key: object): Kept | undefined {
  if (!planOfType(apiVersion, kind)) return undefined;
  const ofType = frozenOfType(apiVersion, kind);
  // Only frozen objects are ever kept, and stay frozen: a kept one needs no check (isFrozen
  // walks an object's properties, which cost a list of stored objects more than the lookup).
  const kept = ofType.young.get(key);
  if (kept !== undefined) return kept;
  const older = ofType.old?.get(key);
  if (older !== undefined) {
    keep(ofType, key, older);
    return older;
  }
  if (!Object.isFrozen(key) || !Object.isFrozen((key as Obj).metadata ?? key)) {
    return encodeWatchFrameTextOf("ADDED", apiVersion, kind, obj);
  }
  const frame = keptFrameOf(apiVersion, kind, obj);
  if (frame !== undefined) keep(ofType, key, frame);
  return frame;
}

/**
 * The ADDED watch frame of `obj` as `kind` in `apiVersion`, to be kept by a caller that knows
 * `obj` never changes (a server's stored object, deep-frozen): its long ASCII strings are held,
 * not copied. Undefined when kube has no message for it.
 */
export function keptFrameOf(apiVersion: string, kind: string, obj: object): KeptFrame | undefined {
  const w = writeWatchFrame("ADDED", apiVersion, kind, obj, []);
  return w === undefined ? undefined : keptOfWriter(w);
}

/**
 * The writer's bytes as kept: latin1 text, in parts around the long ASCII strings it recorded
 * (the strings themselves, whose characters are their bytes).
 */
function keptOfWriter(w: Writer): Kept {
  const shared = w.shared;
  if (shared === undefined || shared.length === 0) return w.buf.latin1Slice(0, w.pos);
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; i < shared.length; i += 2) {
    const end = shared[i] as number;
    const value = shared[i + 1] as string;
    parts.push(w.buf.latin1Slice(at, end - value.length), value);
    at = end;
  }
  const tail = w.buf.latin1Slice(at, w.pos);
  // Mostly the envelope's tail alone: one string for all.
  parts.push(tail === ENVELOPE_TAIL_TEXT ? ENVELOPE_TAIL_TEXT : tail);
  return parts;
}

/** A kept frame's text from `from` to `length - trim`, its parts joined (no copy: V8 joins lazily). */
function keptText(kept: Kept, from: number, trim: number): string {
  if (typeof kept === "string") return from === 0 && trim === 0 ? kept : kept.slice(from, kept.length - trim);
  const last = kept.length - 1;
  // The first and last parts are the encoder's: the heads before any value, the tail after.
  let text = from === 0 ? kept[0]! : kept[0]!.slice(from);
  for (let i = 1; i < last; i++) text += kept[i]!;
  const tail = kept[last]!;
  return text + (trim === 0 ? tail : tail.slice(0, tail.length - trim));
}

// The offsets below are read on every get, list item and watch event of a kept frame: no
// [value, index] pairs (an allocation each, when V8 does not inline them away).

/** Skips a length-delimited field's tag and length at `at` in latin1 text: the index of its content. */
function textContent(text: string, at: number): number {
  at++;
  while (text.charCodeAt(at++) >= 0x80);
  return at;
}

/** The index after the length-delimited field at `at` in latin1 text (its tag, length, content). */
function textFieldEnd(text: string, at: number): number {
  let length = 0;
  let scale = 1;
  at++;
  for (;;) {
    const b = text.charCodeAt(at++);
    length += (b & 0x7f) * scale;
    if (b < 0x80) return at + length;
    scale *= 128;
  }
}

/** Where the envelope starts in an ADDED frame (the frame's first part). */
function envelopeStart(head: string): number {
  // The frame's length, WatchEvent's type field, its object, the RawExtension's raw bytes.
  return textContent(head, textContent(head, textFieldEnd(head, 4)));
}

/** Where the message starts in an ADDED frame. */
function messageStart(head: string): number {
  // The envelope: "k8s\0", TypeMeta, then the raw message, then its tail.
  return textContent(head, textFieldEnd(head, envelopeStart(head) + 4));
}

const firstPart = (kept: Kept): string => (typeof kept === "string" ? kept : kept[0]!);

/** The message inside an ADDED frame. */
function messageOfFrame(frame: Kept): string {
  return keptText(frame, messageStart(firstPart(frame)), ENVELOPE_TAIL_TEXT.length);
}

/** A kept frame's message in parts (see {@link frozenMessageParts}). */
export function keptMessageParts(frame: KeptFrame): string | readonly string[] {
  const start = messageStart(firstPart(frame));
  const tail = ENVELOPE_TAIL_TEXT.length;
  if (typeof frame === "string") return frame.slice(start, frame.length - tail);
  const parts = frame.slice();
  const last = parts.length - 1;
  parts[0] = parts[0]!.slice(start);
  parts[last] = parts[last]!.slice(0, parts[last]!.length - tail);
  return parts;
}

/** A kept frame's envelope, as latin1 text (see {@link frozenEnvelopeText}). */
export function keptEnvelopeText(frame: KeptFrame): string {
  return keptText(frame, envelopeStart(firstPart(frame)), 0);
}

/** The watch frame of an event of `type` from a kept ADDED frame of an object of `kind` in `apiVersion`. */
export function keptFrameText(
  frame: KeptFrame,
  type: string,
  apiVersion: string,
  kind: string,
): string | undefined {
  if (type === "ADDED") return keptText(frame, 0, 0);
  return watchFrameTextOfMessage(type, apiVersion, kind, messageOfFrame(frame));
}

/**
 * The message bytes of `obj` as `kind` in `apiVersion` (as {@link encodeMessage}), as latin1 text;
 * undefined when kube has no message for it. An object frozen with its metadata is taken for
 * one frozen all the way down (a server's stored object: checking every level would cost what
 * the encoding costs) and encoded once, its bytes kept for its next reads (in its ADDED watch
 * frame, which a watch's initial events send as is); any other object is encoded each time.
 * Give it none frozen only part of the way below its metadata. `key`, when `obj` is made for the
 * call around a frozen object (a PartialObjectMetadata around a stored object's metadata), is
 * that object: the bytes are kept by it.
 */
export function frozenMessageText(
  apiVersion: string,
  kind: string,
  obj: object,
  key: object = obj,
): string | undefined {
  const frame = frozenAddedFrame(apiVersion, kind, obj, key);
  return frame === undefined ? undefined : messageOfFrame(frame);
}

/**
 * {@link frozenMessageText}'s bytes in parts whose texts joined are the message (one part, or
 * the object's long string values between the encoder's bytes): {@link encodeList} copies each
 * into the list, where the joined text would be copied once more.
 */
export function frozenMessageParts(
  apiVersion: string,
  kind: string,
  obj: object,
  key: object = obj,
): string | readonly string[] | undefined {
  const frame = frozenAddedFrame(apiVersion, kind, obj, key);
  return frame === undefined ? undefined : keptMessageParts(frame);
}

/**
 * The envelope of `obj` ("k8s\0", a runtime.Unknown: a get's answer, as {@link encodeProtobuf}
 * writes it), as latin1 text, from its kept bytes (see {@link frozenMessageText}): the end of
 * its ADDED frame.
 */
export function frozenEnvelopeText(
  apiVersion: string,
  kind: string,
  obj: object,
  key: object = obj,
): string | undefined {
  const frame = frozenAddedFrame(apiVersion, kind, obj, key);
  return frame === undefined ? undefined : keptEnvelopeText(frame);
}

/**
 * The watch frame of `obj` (as {@link encodeWatchFrameTextOf}), from its kept bytes (see
 * {@link frozenMessageText}): an ADDED frame is kept whole.
 */
export function frozenFrameText(
  type: string,
  apiVersion: string,
  kind: string,
  obj: object,
  key: object = obj,
): string | undefined {
  const frame = frozenAddedFrame(apiVersion, kind, obj, key);
  return frame === undefined ? undefined : keptFrameText(frame, type, apiVersion, kind);
}

/** The bytes a varint of `n` takes. */
function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** The envelope's contentEncoding and contentType, empty (envelopeTail's bytes). */
const ENVELOPE_TAIL_TEXT = "\x1a\x00\x22\x00";

/**
 * The envelope ("k8s\0", a runtime.Unknown) of message bytes `message` (latin1 text, from
 * {@link frozenMessageText}), as a get answers it, as latin1 text: its head, the message and its
 * tail joined (a text answer goes out in one write with the response's head, where Node writes
 * a Buffer's separately).
 */
export function envelopeTextOfMessage(apiVersion: string, kind: string, message: string): string {
  const w = scratch();
  envelopeHead(w, apiVersion, kind);
  w.tag(2, 2);
  w.varint(message.length);
  return w.buf.latin1Slice(0, w.pos) + message + ENVELOPE_TAIL_TEXT;
}

/** The parts of a watch frame that depend on its event's type and object's type only. */
interface FrameParts {
  type: string;
  apiVersion: string;
  kind: string;
  /** WatchEvent's type field. */
  typeField: Uint8Array;
  /** The envelope's "k8s\0" and TypeMeta field. */
  envelopeHead: Uint8Array;
}

/** The last frame's parts: a watch's frames are mostly of one event type and one kind. */
let lastFrame: FrameParts | undefined;

function framePartsOf(type: string, apiVersion: string, kind: string): FrameParts {
  const last = lastFrame;
  if (last && last.type === type && last.kind === kind && last.apiVersion === apiVersion) return last;
  const w = new Writer(64);
  w.string(1, type);
  const typeField = w.finish();
  w.pos = 0;
  envelopeHead(w, apiVersion, kind);
  lastFrame = { type, apiVersion, kind, typeField, envelopeHead: w.finish() };
  return lastFrame;
}

/**
 * One frame of a protobuf watch (as {@link encodeWatchFrameTextOf}) around message bytes
 * `message` (latin1 text, from {@link frozenMessageText}): the frame's head, the message and
 * the envelope's tail, joined as text. The head's lengths follow from the message's.
 */
export function watchFrameTextOfMessage(
  type: string,
  apiVersion: string,
  kind: string,
  message: string,
): string | undefined {
  if (!planOfType(apiVersion, kind)) return undefined;
  const parts = framePartsOf(type, apiVersion, kind);
  const envelopeLength =
    parts.envelopeHead.length + 1 + varintSize(message.length) + message.length + ENVELOPE_TAIL_TEXT.length;
  const rawLength = 1 + varintSize(envelopeLength) + envelopeLength;
  const w = scratch();
  w.raw(FRAME_HEAD);
  w.raw(parts.typeField);
  w.tag(2, 2);
  w.varint(rawLength);
  w.buf.writeUInt32BE(w.pos - 4 + rawLength, 0);
  w.tag(1, 2);
  w.varint(envelopeLength);
  w.raw(parts.envelopeHead);
  w.tag(2, 2);
  w.varint(message.length);
  return w.buf.latin1Slice(0, w.pos) + message + ENVELOPE_TAIL_TEXT;
}

/**
 * One frame of a protobuf watch: a 4-byte big-endian length, then a WatchEvent message whose
 * object is the object's envelope (`object` given as its envelope, or as the object).
 */
export function encodeWatchFrame(type: string, object: Obj | Uint8Array): Buffer | undefined {
  if (!(object instanceof Uint8Array)) {
    const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
    const kind = typeof object.kind === "string" ? object.kind : "";
    return encodeWatchFrameOf(type, apiVersion, kind, object);
  }
  const inner = object;
  const w = new Writer(inner.length + type.length + 16);
  w.raw(new Uint8Array(4));
  w.string(1, type);
  const at = w.open(2);
  w.bytes(1, inner);
  w.close(at);
  w.buf.writeUInt32BE(w.pos - 4, 0);
  return w.finish();
}

/** The descriptors' message of a full name, such as `k8s.io.api.core.v1.Pod`. */
export { message, messageOf };
