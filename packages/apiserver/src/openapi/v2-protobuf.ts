// The swagger 2.0 document in gnostic's protobuf form (`openapi.v2.Document`), which is what
// kubectl ≤ 1.26 asks `/openapi/v2` for (Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf)
// and decodes with proto.Unmarshal: a JSON answer would not parse. Only the messages kube's
// documents use are encoded; field numbers follow gnostic's OpenAPIv2.proto. Values that gnostic
// keeps as `Any` (defaults, enums, vendor extensions) carry YAML text; JSON is valid YAML.

import { stringifyJson } from "../object/deep-json.js";
import { trampoline, type Walk } from "../object/trampoline.js";

type Json = Record<string, unknown>;

/**
 * A protobuf message being written: fields appended in order, nested messages length-prefixed.
 * A nested message is kept as itself, its length known, and every byte is copied once, by the
 * outermost `finish`: copying each message's bytes into its parent's at every level was quadratic
 * in a CRD schema's depth (2.6 s for 4 990 levels of `properties`). A message is complete when it
 * is nested (each builder adds its children before it is added itself).
 */
class Message {
  readonly #parts: (Buffer | Message)[] = [];
  /** The bytes of the parts, nested messages whole. */
  #length = 0;

  #push(b: Buffer): void {
    this.#parts.push(b);
    this.#length += b.length;
  }

  #key(no: number, wire: number): void {
    this.#varint(no * 8 + wire);
  }

  #varint(n: number): void {
    const bytes: number[] = [];
    let v = n;
    while (v > 0x7f) {
      bytes.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    bytes.push(v);
    this.#push(Buffer.from(bytes));
  }

  string(no: number, value: unknown): this {
    if (typeof value !== "string" || value === "") return this;
    return this.bytes(no, Buffer.from(value, "utf8"));
  }

  strings(no: number, values: unknown): this {
    if (Array.isArray(values))
      for (const v of values) if (typeof v === "string") this.bytes(no, Buffer.from(v));
    return this;
  }

  bool(no: number, value: unknown): this {
    if (value !== true) return this;
    this.#key(no, 0);
    this.#varint(1);
    return this;
  }

  int(no: number, value: unknown): this {
    if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) return this;
    this.#key(no, 0);
    this.#varint(value);
    return this;
  }

  double(no: number, value: unknown): this {
    if (typeof value !== "number" || value === 0) return this;
    this.#key(no, 1);
    const b = Buffer.alloc(8);
    b.writeDoubleLE(value);
    this.#push(b);
    return this;
  }

  message(no: number, m: Message | undefined): this {
    if (m === undefined) return this;
    this.#key(no, 2);
    this.#varint(m.#length);
    this.#parts.push(m);
    this.#length += m.#length;
    return this;
  }

  bytes(no: number, b: Buffer): this {
    this.#key(no, 2);
    this.#varint(b.length);
    this.#push(b);
    return this;
  }

  /** The message's bytes: its parts copied in order, nested messages walked without recursion. */
  finish(): Buffer {
    const out = Buffer.allocUnsafe(this.#length);
    let at = 0;
    const stack: { message: Message; next: number }[] = [{ message: this, next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const part = top.message.#parts[top.next++];
      if (part === undefined) stack.pop();
      else if (part instanceof Message) stack.push({ message: part, next: 0 });
      else at += part.copy(out, at);
    }
    return out;
  }
}

const isObj = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

/** gnostic's `Any`: the value as YAML text (field 2). */
function any(value: unknown): Message {
  return new Message().string(2, stringifyJson(value));
}

/** Fields named `x-...`, as repeated `NamedAny` under `no`. */
function vendorExtensions(m: Message, no: number, o: Json): void {
  for (const [k, v] of Object.entries(o)) {
    if (k.startsWith("x-")) m.message(no, new Message().string(1, k).message(2, any(v)));
  }
}

/** A schema's message, walked through a trampoline: a CRD's schema may nest 10 000 levels. */
function schema(s: Json): Message {
  return trampoline(schemaWalk(s));
}

function* schemaWalk(s: Json): Walk<Message> {
  const m = new Message().string(1, s.$ref).string(2, s.format).string(3, s.title).string(4, s.description);
  if (s.default !== undefined) m.message(5, any(s.default));
  m.double(6, s.multipleOf)
    .double(7, s.maximum)
    .bool(8, s.exclusiveMaximum)
    .double(9, s.minimum)
    .bool(10, s.exclusiveMinimum)
    .int(11, s.maxLength)
    .int(12, s.minLength)
    .string(13, s.pattern)
    .int(14, s.maxItems)
    .int(15, s.minItems)
    .bool(16, s.uniqueItems)
    .int(17, s.maxProperties)
    .int(18, s.minProperties)
    .strings(19, s.required);
  if (Array.isArray(s.enum)) for (const e of s.enum) m.message(20, any(e));
  if (isObj(s.additionalProperties))
    m.message(21, new Message().message(1, yield schemaWalk(s.additionalProperties)));
  else if (typeof s.additionalProperties === "boolean") {
    // oneof boolean: false must still be written, so encode it by hand.
    m.bytes(21, Buffer.from([0x10, s.additionalProperties ? 1 : 0]));
  }
  if (typeof s.type === "string") m.message(22, new Message().string(1, s.type));
  else if (Array.isArray(s.type)) m.message(22, new Message().strings(1, s.type));
  if (isObj(s.items)) m.message(23, new Message().message(1, yield schemaWalk(s.items)));
  else if (Array.isArray(s.items)) {
    const items = new Message();
    for (const i of s.items) if (isObj(i)) items.message(1, yield schemaWalk(i));
    m.message(23, items);
  }
  if (Array.isArray(s.allOf)) for (const a of s.allOf) if (isObj(a)) m.message(24, yield schemaWalk(a));
  if (isObj(s.properties)) {
    const props = new Message();
    for (const [k, v] of Object.entries(s.properties))
      if (isObj(v)) props.message(1, new Message().string(1, k).message(2, yield schemaWalk(v)));
    m.message(25, props);
  }
  m.string(26, s.discriminator).bool(27, s.readOnly);
  if (s.example !== undefined) m.message(30, any(s.example));
  vendorExtensions(m, 31, s);
  return m;
}

/** A non-body parameter (query, path, header): the shared fields of gnostic's *SubSchema messages. */
function simpleParameter(p: Json, layout: "query" | "path" | "header"): Message {
  const m = new Message().bool(1, p.required).string(2, p.in).string(3, p.description).string(4, p.name);
  // Query parameters have allow_empty_value at 5, shifting the rest by one.
  const shift = layout === "query" ? 1 : 0;
  if (layout === "query") m.bool(5, p.allowEmptyValue);
  m.string(5 + shift, p.type).string(6 + shift, p.format);
  m.bool(19 + shift, p.uniqueItems);
  vendorExtensions(m, 22 + shift, p);
  return m;
}

function parametersItem(p: Json): Message {
  if (typeof p.$ref === "string") return new Message().message(2, new Message().string(1, p.$ref));
  let parameter: Message;
  if (p.in === "body") {
    const body = new Message().string(1, p.description).string(2, p.name).string(3, p.in).bool(4, p.required);
    if (isObj(p.schema)) body.message(5, schema(p.schema));
    vendorExtensions(body, 6, p);
    parameter = new Message().message(1, body);
  } else {
    const nonBody = new Message();
    if (p.in === "query") nonBody.message(3, simpleParameter(p, "query"));
    else if (p.in === "path") nonBody.message(4, simpleParameter(p, "path"));
    else if (p.in === "header") nonBody.message(1, simpleParameter(p, "header"));
    parameter = new Message().message(2, nonBody);
  }
  return new Message().message(1, parameter);
}

function operation(op: Json): Message {
  const m = new Message()
    .strings(1, op.tags)
    .string(2, op.summary)
    .string(3, op.description)
    .string(5, op.operationId)
    .strings(6, op.produces)
    .strings(7, op.consumes);
  if (Array.isArray(op.parameters))
    for (const p of op.parameters) if (isObj(p)) m.message(8, parametersItem(p));
  if (isObj(op.responses)) {
    const responses = new Message();
    for (const [code, r] of Object.entries(op.responses)) {
      if (!isObj(r)) continue;
      const response = new Message().string(1, r.description);
      if (isObj(r.schema)) response.message(2, new Message().message(1, schema(r.schema)));
      responses.message(1, new Message().string(1, code).message(2, new Message().message(1, response)));
    }
    m.message(9, responses);
  }
  m.strings(10, op.schemes).bool(11, op.deprecated);
  vendorExtensions(m, 13, op);
  return m;
}

const METHODS: [string, number][] = [
  ["get", 2],
  ["put", 3],
  ["post", 4],
  ["delete", 5],
  ["options", 6],
  ["head", 7],
  ["patch", 8],
];

function pathItem(item: Json): Message {
  const m = new Message().string(1, item.$ref);
  for (const [method, no] of METHODS) if (isObj(item[method])) m.message(no, operation(item[method]));
  if (Array.isArray(item.parameters))
    for (const p of item.parameters) if (isObj(p)) m.message(9, parametersItem(p));
  vendorExtensions(m, 10, item);
  return m;
}

/** Encodes a swagger 2.0 document (as JSON) as gnostic's `openapi.v2.Document`. */
export function openAPIV2Protobuf(doc: Json): Buffer {
  const m = new Message().string(1, doc.swagger);
  if (isObj(doc.info)) {
    const info = new Message()
      .string(1, doc.info.title)
      .string(2, doc.info.version)
      .string(3, doc.info.description);
    vendorExtensions(info, 7, doc.info);
    m.message(2, info);
  }
  m.string(3, doc.host)
    .string(4, doc.basePath)
    .strings(5, doc.schemes)
    .strings(6, doc.consumes)
    .strings(7, doc.produces);
  if (isObj(doc.paths)) {
    const paths = new Message();
    for (const [p, item] of Object.entries(doc.paths))
      if (isObj(item)) paths.message(2, new Message().string(1, p).message(2, pathItem(item)));
    m.message(8, paths);
  }
  if (isObj(doc.definitions)) {
    const defs = new Message();
    for (const [name, s] of Object.entries(doc.definitions))
      if (isObj(s)) defs.message(1, new Message().string(1, name).message(2, schema(s)));
    m.message(9, defs);
  }
  if (Array.isArray(doc.security)) {
    for (const req of doc.security) {
      if (!isObj(req)) continue;
      const sr = new Message();
      for (const [name, scopes] of Object.entries(req))
        sr.message(1, new Message().string(1, name).message(2, new Message().strings(1, scopes)));
      m.message(12, sr);
    }
  }
  if (isObj(doc.securityDefinitions)) {
    const sd = new Message();
    for (const [name, d] of Object.entries(doc.securityDefinitions)) {
      if (!isObj(d) || d.type !== "apiKey") continue;
      const apiKey = new Message()
        .string(1, d.type)
        .string(2, d.name)
        .string(3, d.in)
        .string(4, d.description);
      sd.message(1, new Message().string(1, name).message(2, new Message().message(2, apiKey)));
    }
    m.message(13, sd);
  }
  vendorExtensions(m, 16, doc);
  return m.finish();
}
