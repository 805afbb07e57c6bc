// The protobuf form of /openapi/v2, read back with a minimal decoder along gnostic's field
// numbers: what kube-openapi's proto parser (kubectl ≤ 1.26) reads must be there.
import assert from "node:assert/strict";
import { test } from "node:test";
import { builtinResources } from "../registry/index.js";
import { openAPIV2 } from "../schema/index.js";
import { openAPIV2Protobuf } from "./v2-protobuf.js";

type Fields = Map<number, (Buffer | number)[]>;

function decode(buf: Buffer): Fields {
  const out: Fields = new Map();
  let i = 0;
  const varint = () => {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = buf[i++];
      n += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return n;
      mul *= 128;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const no = Math.floor(key / 8);
    const wire = key & 7;
    let value: Buffer | number;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const len = varint();
      value = buf.subarray(i, i + len);
      i += len;
    } else if (wire === 1) {
      value = buf.readDoubleLE(i);
      i += 8;
    } else throw new Error(`wire type ${wire}`);
    out.set(no, [...(out.get(no) ?? []), value]);
  }
  return out;
}

const str = (f: Fields, no: number) => (f.get(no)?.[0] as Buffer | undefined)?.toString();
const msg = (f: Fields, no: number) => decode((f.get(no)?.[0] as Buffer) ?? Buffer.alloc(0));
const all = (f: Fields, no: number) => (f.get(no) ?? []).map((b) => decode(b as Buffer));

/** Named entries (name = 1, value = 2) as a map of decoded values. */
function named(entries: Fields[]): Map<string, Fields> {
  return new Map(entries.map((e) => [str(e, 1)!, msg(e, 2)]));
}

test("definitions carry types, properties, refs, required fields and the GVK extension", () => {
  const doc = openAPIV2(builtinResources());
  const pb = decode(openAPIV2Protobuf(doc));
  assert.equal(str(pb, 1), "2.0");
  assert.equal(str(msg(pb, 2), 1), "Kubernetes");

  const definitions = named(all(msg(pb, 9), 1));
  const deployment = definitions.get("io.k8s.api.apps.v1.Deployment")!;
  assert.ok(deployment, "Deployment is defined");
  assert.deepEqual(
    (msg(deployment, 22).get(1) as Buffer[]).map((b) => b.toString()),
    ["object"],
  );
  const props = named(all(msg(deployment, 25), 1));
  assert.equal(str(props.get("spec")!, 1), "#/definitions/io.k8s.api.apps.v1.DeploymentSpec");
  const ext = named(all(deployment, 31));
  const gvk = JSON.parse(str(ext.get("x-kubernetes-group-version-kind")!, 2)!);
  assert.deepEqual(gvk, [{ group: "apps", kind: "Deployment", version: "v1" }]);

  const container = definitions.get("io.k8s.api.core.v1.Container")!;
  assert.deepEqual(
    (container.get(19) as Buffer[]).map((b) => b.toString()),
    ["name"],
  );
  const ports = named(all(msg(container, 25), 1)).get("ports")!;
  assert.equal(str(msg(ports, 22), 1), "array");
  assert.equal(str(msg(msg(ports, 23), 1), 1), "#/definitions/io.k8s.api.core.v1.ContainerPort");
  const portsExt = named(all(ports, 31));
  assert.equal(JSON.parse(str(portsExt.get("x-kubernetes-patch-merge-key")!, 2)!), "containerPort");

  // A map: additionalProperties holds a schema (oneof field 1).
  const configMap = definitions.get("io.k8s.api.core.v1.ConfigMap")!;
  const data = named(all(msg(configMap, 25), 1)).get("data")!;
  assert.equal(str(msg(msg(msg(data, 21), 1), 22), 1), "string");
});

test("paths carry operations with their parameters and GVK", () => {
  const doc = openAPIV2(builtinResources());
  const pb = decode(openAPIV2Protobuf(doc));
  const paths = named(all(msg(pb, 8), 2));
  const item = paths.get("/apis/apps/v1/namespaces/{namespace}/deployments/{name}")!;
  assert.ok(item);
  const patch = msg(item, 8);
  assert.equal(str(patch, 5), "patchDeployment");
  const ext = named(all(patch, 13));
  assert.equal(JSON.parse(str(ext.get("x-kubernetes-action")!, 2)!), "patch");
  const queryNames = all(patch, 8)
    .map((p) => msg(msg(p, 1), 2))
    .map((nonBody) => str(msg(nonBody, 3), 4))
    .filter((n) => n !== undefined);
  assert.ok(queryNames.includes("fieldValidation"));
});

test("a CRD schema 4 990 levels of properties deep encodes whole, its leaf at the bottom", () => {
  const d = 4_990;
  const deep = JSON.parse(
    `${'{"type":"object","properties":{"a":'.repeat(d)}{"type":"string","description":"leaf"}${"}}".repeat(d)}`,
  );
  const pb = decode(openAPIV2Protobuf({ swagger: "2.0", definitions: { deep } }));
  let schema = named(all(msg(pb, 9), 1)).get("deep")!;
  for (let i = 0; i < d; i++) {
    assert.equal(str(msg(schema, 22), 1), "object", `level ${i}`);
    // properties (25): one NamedSchema (1), named "a" (1), its schema (2).
    const property = msg(msg(schema, 25), 1);
    assert.equal(str(property, 1), "a", `level ${i}`);
    schema = msg(property, 2);
  }
  assert.equal(str(msg(schema, 22), 1), "string");
  assert.equal(str(schema, 4), "leaf");
});
