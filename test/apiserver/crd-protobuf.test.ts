// CustomResourceDefinitions in protobuf, as client-go's apiextensions clientset (and so Kubernetes'
// own e2e tests) sends and reads them: kube-apiserver serves apiextensions.k8s.io in protobuf, and
// the JSON it answers for a CRD sent in protobuf is what Go's MarshalJSON of JSONSchemaProps writes
// (x-kubernetes-* names, raw JSON defaults and enums, schema-or-bool additionalProperties,
// doubles). The body is written by a generic protobuf encoder (@bufbuild/protobuf) from kube's
// descriptors with every zero a Go encoder writes; the answers in protobuf are read with the
// library's codec and must equal the JSON answers, object, list and watch event alike.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { create, type DescMessage, toBinary } from "@bufbuild/protobuf";
import { eventually } from "controller-runtime/envtest";
import { decodeProtobuf, decodeWatchEvent, encodeProtobuf } from "controller-runtime/protobuf";
import { message } from "../../packages/controller-runtime/src/protobuf/schema.js";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

const PROTOBUF = "application/vnd.kubernetes.protobuf";
const EXT = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1";
let target: Target;
let api: Api;

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

function desc(name: string): DescMessage {
  const d = message(name);
  assert.ok(d, name);
  return d;
}

/** "k8s\0" and a runtime.Unknown holding the message, as client-go's protobuf serializer frames it. */
function envelope(apiVersion: string, kind: string, typeName: string, init: object): Uint8Array {
  const d = desc(typeName);
  const raw = toBinary(d, create(d, init as never));
  const unknown = desc("k8s.io.apimachinery.pkg.runtime.Unknown");
  const framed = toBinary(
    unknown,
    create(unknown, { typeMeta: { apiVersion, kind }, raw, contentEncoding: "", contentType: "" } as never),
  );
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0]), framed]);
}

/** The schema as the CRD's author writes it in JSON, and as kube answers it. */
const SCHEMA = {
  type: "object",
  description: "A widget.",
  properties: {
    spec: {
      type: "object",
      required: ["size"],
      anyOf: [{ required: ["size"] }, { required: ["color"] }],
      properties: {
        size: {
          type: "number",
          format: "double",
          default: 2.5,
          maximum: 10.5,
          exclusiveMaximum: true,
          minimum: 1,
          multipleOf: 0.5,
        },
        color: {
          type: "string",
          default: "blue",
          maxLength: 10,
          pattern: "^[a-z]+$",
          enum: ["blue", "green"],
          example: "green",
        },
        tags: {
          type: "array",
          maxItems: 5,
          items: { type: "string", minLength: 1 },
          "x-kubernetes-list-type": "set",
        },
        ports: {
          type: "array",
          items: {
            type: "object",
            required: ["name"],
            properties: {
              name: { type: "string" },
              port: { anyOf: [{ type: "integer" }, { type: "string" }], "x-kubernetes-int-or-string": true },
            },
          },
          "x-kubernetes-list-map-keys": ["name"],
          "x-kubernetes-list-type": "map",
        },
        labels: {
          type: "object",
          maxProperties: 20,
          additionalProperties: { type: "string" },
          "x-kubernetes-map-type": "granular",
        },
        open: { type: "object", properties: { x: { type: "string" } }, additionalProperties: true },
        extra: {
          type: "object",
          default: { a: [1, "two", { three: true }] },
          nullable: true,
          "x-kubernetes-preserve-unknown-fields": true,
        },
        embedded: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          "x-kubernetes-embedded-resource": true,
        },
      },
      "x-kubernetes-validations": [
        { rule: "self.size <= 10.0", message: "too big", reason: "FieldValueInvalid", fieldPath: ".size" },
        { rule: "!has(self.color) || self.color != 'red'", messageExpression: "'no red: ' + self.color" },
      ],
    },
  },
};

/** What a Go encoder writes of a JSONSchemaProps besides its set fields: every non-pointer field. */
const GO_ZEROS = {
  id: "",
  schema: "",
  description: "",
  type: "",
  format: "",
  title: "",
  exclusiveMaximum: false,
  exclusiveMinimum: false,
  pattern: "",
  uniqueItems: false,
  nullable: false,
  xKubernetesEmbeddedResource: false,
  xKubernetesIntOrString: false,
};
const INT64 = new Set(["maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"]);
const rawJson = (v: unknown) => ({ raw: Buffer.from(JSON.stringify(v)) });
const mapValues = (o: object, f: (v: never) => unknown) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v as never)]));

/** A JSON schema as the protobuf message's fields (types.go's protobuf names, not its JSON names). */
// biome-ignore lint/suspicious/noExplicitAny: a JSON schema of any shape
function protoSchema(schema: any): Record<string, unknown> {
  const out: Record<string, unknown> = { ...GO_ZEROS };
  for (const [key, v] of Object.entries(schema)) {
    const name = key.startsWith("x-kubernetes-")
      ? `xKubernetes${key.slice(13).replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase())}`
      : key.replace(/^\$/, "");
    // biome-ignore lint/suspicious/noExplicitAny: as above
    const value = v as any;
    if (name === "default" || name === "example") out[name] = rawJson(value);
    else if (name === "enum") out[name] = value.map(rawJson);
    else if (INT64.has(name)) out[name] = BigInt(value);
    else if (name === "properties") out[name] = mapValues(value, protoSchema);
    else if (name === "allOf" || name === "anyOf" || name === "oneOf") out[name] = value.map(protoSchema);
    else if (name === "items") out[name] = { schema: protoSchema(value) };
    else if (name === "additionalProperties") {
      out[name] =
        typeof value === "boolean" ? { allows: value } : { allows: true, schema: protoSchema(value) };
    } else if (name === "xKubernetesValidations") {
      out[name] = value.map((rule: object) => ({
        message: "",
        messageExpression: "",
        fieldPath: "",
        ...rule,
      }));
    } else out[name] = value;
  }
  return out;
}

/** ObjectMeta as Go writes a struct with only a name set: every non-pointer field, zero. */
const goMeta = (name: string) => ({
  name,
  generateName: "",
  namespace: "",
  selfLink: "",
  uid: "",
  resourceVersion: "",
  generation: 0n,
  creationTimestamp: {},
});

function crdProto(group: string) {
  const names = (plural: string, kind: string) => ({
    plural,
    singular: "",
    shortNames: [],
    kind,
    listKind: "",
    categories: [],
  });
  return {
    metadata: goMeta(`widgets.${group}`),
    spec: {
      group,
      names: names("widgets", "Widget"),
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          deprecated: false,
          schema: { openAPIV3Schema: protoSchema(SCHEMA) },
          subresources: { status: {} },
        },
      ],
      preserveUnknownFields: false,
    },
    status: { acceptedNames: names("", "") },
  };
}

test("a CRD sent in protobuf reads back as the JSON schema it holds; its object, list and watch in protobuf read as JSON's", async () => {
  const group = `pb${Date.now().toString(36)}.example.com`;
  const name = `widgets.${group}`;
  const sent = await api.callBytes(
    "POST",
    CRDS,
    "application/json",
    envelope(
      "apiextensions.k8s.io/v1",
      "CustomResourceDefinition",
      `${EXT}.CustomResourceDefinition`,
      crdProto(group),
    ),
  );
  assert.equal(sent.status, 201, sent.bytes.toString());
  const created = JSON.parse(sent.bytes.toString());
  assert.deepEqual(created.spec.versions[0].schema.openAPIV3Schema, SCHEMA);
  assert.deepEqual(created.spec.versions[0].subresources, { status: {} });
  assert.equal(created.spec.scope, "Namespaced");
  assert.equal(created.spec.names.listKind, "WidgetList");
  assert.equal(created.spec.preserveUnknownFields, undefined);

  // Once established, the CRD stays as it is: its JSON and protobuf answers are of one version.
  const established = await eventually(
    "the CRD to be established",
    async () => {
      const r = await api.get(`${CRDS}/${name}`);
      const conditions: { type: string; status: string }[] = r.body?.status?.conditions ?? [];
      const ok = conditions.some((c) => c.type === "Established" && c.status === "True");
      return ok && r.body.status.acceptedNames?.kind === "Widget" ? r.body : undefined;
    },
    { timeoutMs: 60_000 },
  );
  const one = await api.callBytes("GET", `${CRDS}/${name}`, PROTOBUF);
  assert.equal(one.type, PROTOBUF);
  const asJson = (await api.get(`${CRDS}/${name}`)).body;
  assert.deepEqual(decodeProtobuf(one.bytes), asJson);
  assert.equal(asJson.metadata.resourceVersion, established.metadata.resourceVersion);

  const listed = await api.callBytes("GET", `${CRDS}?fieldSelector=metadata.name%3D${name}`, PROTOBUF);
  assert.equal(listed.type, PROTOBUF);
  const list = decodeProtobuf(listed.bytes);
  assert.equal(list.kind, "CustomResourceDefinitionList");
  // A list's items carry no TypeMeta in protobuf (Go's typed items have it empty).
  const { apiVersion: _, kind: __, ...item } = asJson;
  assert.deepEqual(list.items, [item]);

  // A watch in protobuf sees an update that was itself sent in protobuf, encoded by the library.
  const abort = new AbortController();
  const headers: Record<string, string> = { accept: PROTOBUF };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  const rv = (list.metadata as { resourceVersion: string }).resourceVersion;
  const watch = await fetch(
    `${target.url}${CRDS}?watch=1&fieldSelector=metadata.name%3D${name}&resourceVersion=${rv}`,
    { headers, signal: abort.signal, dispatcher: target.agent } as unknown as RequestInit,
  );
  assert.equal(watch.headers.get("content-type"), `${PROTOBUF};stream=watch`);
  const changed = { ...asJson, metadata: { ...asJson.metadata, labels: { touched: "yes" } } };
  const body = encodeProtobuf(changed, { exact: true });
  assert.ok(body, "the CRD as read encodes to protobuf without loss");
  const put = await api.callBytes("PUT", `${CRDS}/${name}`, "application/json", body);
  assert.equal(put.status, 200, put.bytes.toString());
  const updated = JSON.parse(put.bytes.toString());
  assert.deepEqual(updated.metadata.labels, { touched: "yes" });
  assert.deepEqual(updated.spec, asJson.spec);

  let buf = Buffer.alloc(0);
  let event: { type: string; object: Record<string, unknown> } | undefined;
  // Generous for a loaded machine; the assertion below then says what did not come.
  const deadline = setTimeout(() => abort.abort(), 60_000);
  try {
    for await (const chunk of watch.body as unknown as AsyncIterable<Uint8Array>) {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const frame = buf.subarray(4, 4 + buf.readUInt32BE(0));
        buf = buf.subarray(4 + frame.length);
        const e = decodeWatchEvent(frame);
        const meta = e.object.metadata as { resourceVersion: string };
        if (meta.resourceVersion === updated.metadata.resourceVersion) event = e;
      }
      if (event) break;
    }
  } catch (e) {
    if ((e as Error).name !== "AbortError") throw e;
  } finally {
    clearTimeout(deadline);
    abort.abort();
  }
  assert.equal(event?.type, "MODIFIED", "the update's watch event, in protobuf");
  assert.deepEqual(event.object, updated);

  const deleted = await api.delete(`${CRDS}/${name}`);
  assert.equal(deleted.status, 200, deleted.text);
});
