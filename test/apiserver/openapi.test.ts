// /openapi/v2 and /openapi/v3 as kubectl reads them: documents with kube's definition names and
// GVKs, ETags and 304s, the protobuf form of v2 (kubectl ≤ 1.26), 406 for what cannot be served,
// and v3 documents addressed by hash (immutable caching, a stale hash redirected).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";
import { versionDifference } from "../support/environment.js";
import { eventually } from "controller-runtime/envtest";

let target: Target;
let api: Api;

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

/** A fetch that does not follow redirects and keeps the body as bytes. */
async function raw(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${target.url}${path}`, {
    headers: { ...(target.token ? { authorization: `Bearer ${target.token}` } : {}), ...headers },
    redirect: "manual",
    dispatcher: target.agent,
  } as unknown as RequestInit);
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe("openapi v2", () => {
  test("a swagger 2.0 document with every kind under kube's name and its GVK", async () => {
    const r = await api.get("/openapi/v2", { accept: "application/json" });
    assert.equal(r.status, 200);
    if (versionDifference("kube 1.26 serves /openapi/v2 JSON as text/plain (sniffed by Go's ServeContent)")) {
      assert.match(r.headers.get("content-type") ?? "", /^application\/json/);
    }
    assert.equal(r.body.swagger, "2.0");
    const deployment = r.body.definitions["io.k8s.api.apps.v1.Deployment"];
    assert.deepEqual(deployment["x-kubernetes-group-version-kind"], [
      { group: "apps", kind: "Deployment", version: "v1" },
    ]);
    assert.ok(r.body.definitions["io.k8s.api.core.v1.ConfigMap"]);
    assert.ok(r.body.paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]);
  });

  test("an ETag that a conditional GET answers with 304", async () => {
    const first = await raw("/openapi/v2", { accept: "application/json" });
    const etag = first.headers.get("etag");
    assert.match(etag ?? "", /^"[0-9A-F]{128}"$/);
    const again = await raw("/openapi/v2", { accept: "application/json", "if-none-match": etag! });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
  });

  test("the protobuf form kubectl 1.20 asks for; 406 for a type it cannot serve", async () => {
    const pb = await raw("/openapi/v2", {
      accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
    });
    assert.equal(pb.status, 200);
    if (versionDifference("kube 1.26 labels the protobuf OpenAPI application/octet-stream")) {
      assert.equal(
        pb.headers.get("content-type"),
        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
      );
    }
    // Field 1 (swagger) is a length-delimited "2.0": 0x0a 0x03 '2' '.' '0'.
    assert.deepEqual([...pb.body.subarray(0, 5)], [0x0a, 0x03, 0x32, 0x2e, 0x30]);
    assert.ok(pb.body.includes(Buffer.from("io.k8s.api.apps.v1.Deployment")));
    const none = await raw("/openapi/v2", { accept: "text/html" });
    assert.equal(none.status, 406);
  });
});

describe("openapi v3", () => {
  test("the index lists group-versions; a document fetched by its hash is immutable", async () => {
    const index = await api.get("/openapi/v3");
    assert.equal(index.status, 200);
    const url: string = index.body.paths["apis/apps/v1"].serverRelativeURL;
    assert.match(url, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
    assert.ok(index.body.paths["api/v1"]);

    const doc = await raw(url);
    assert.equal(doc.status, 200);
    assert.equal(doc.headers.get("cache-control"), "public, immutable");
    assert.ok(doc.headers.get("expires"));
    assert.equal(doc.headers.get("etag"), `"${url.split("hash=")[1]}"`);
    const body = JSON.parse(doc.body.toString());
    assert.equal(body.openapi, "3.0.0");
    assert.ok(body.components.schemas["io.k8s.api.apps.v1.Deployment"]);

    const plain = await raw("/openapi/v3/apis/apps/v1");
    assert.equal(plain.status, 200);
    assert.notEqual(plain.headers.get("cache-control"), "public, immutable");
  });

  test("a stale hash is redirected to the current document", async () => {
    const stale = await raw(`/openapi/v3/api/v1?hash=${"0".repeat(128)}`);
    assert.equal(stale.status, 301);
    assert.match(stale.headers.get("location") ?? "", /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
  });

  test("a CRD's group-version appears in the index with its schema, and goes with it", async () => {
    const name = `openapis.oa${Date.now().toString(36)}.example.com`;
    const group = name.slice("openapis.".length);
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name },
      spec: {
        group,
        names: { kind: "OpenAPIThing", plural: "openapis" },
        scope: "Namespaced",
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
              },
            },
          },
        ],
      },
    };
    assert.equal(
      (await api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status,
      201,
    );
    try {
      let url: string | undefined;
      for (let i = 0; i < 100 && !url; i++) {
        const index = await api.get("/openapi/v3");
        url = index.body.paths[`apis/${group}/v1`]?.serverRelativeURL;
        if (!url) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(url, "the CRD's group-version is listed");
      const doc = JSON.parse((await raw(url)).body.toString());
      const schemaName = `${group.split(".").reverse().join(".")}.v1.OpenAPIThing`;
      assert.equal(doc.components.schemas[schemaName].properties.spec.properties.size.type, "integer");
      // kube rebuilds the v2 document from CRDs in the background: wait for it.
      await eventually(
        "the CRD's schema in /openapi/v2",
        async () =>
          (await api.get("/openapi/v2", { accept: "application/json" })).body.definitions[schemaName],
        { timeoutMs: 30_000, intervalMs: 200 },
      );
    } finally {
      await api.delete(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    }
    let listed = true;
    for (let i = 0; i < 100 && listed; i++) {
      listed = (await api.get("/openapi/v3")).body.paths[`apis/${group}/v1`] !== undefined;
      if (listed) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(listed, false);
  });
});

describe("a CRD's definitions as kube's CRD OpenAPI builder publishes them", () => {
  const DOC = "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md";
  const META_DOC = `Standard object's metadata. More info: ${DOC}#metadata`;
  const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

  async function publish(group: string, openAPIV3Schema: object) {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `waldos.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { plural: "waldos", singular: "waldo", kind: "Waldo", listKind: "WaldoList" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema } }],
      },
    };
    assert.equal(
      (await api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status,
      201,
    );
    const name = `${group.split(".").reverse().join(".")}.v1.Waldo`;
    const v2 = await eventually(
      `${name} in /openapi/v2`,
      async () => (await api.get("/openapi/v2")).body?.definitions?.[name],
      { timeoutMs: 30_000 },
    );
    const v3 = await eventually(
      `${name} in /openapi/v3`,
      async () => (await api.get(`/openapi/v3/apis/${group}/v1`)).body?.components?.schemas?.[name],
      { timeoutMs: 30_000 },
    );
    return { v2, v3 };
  }

  test("unknown fields kept at the root: v2 says only `type: object`, v3 the whole schema", async () => {
    const group = `root${Date.now().toString(36)}.example.com`;
    const { v2, v3 } = await publish(group, {
      description: "preserve-unknown-properties at root",
      "x-kubernetes-preserve-unknown-fields": true,
      type: "object",
      properties: { spec: { type: "object", properties: { dummy: { type: "object" } } } },
    });
    assert.deepEqual(v2, {
      type: "object",
      "x-kubernetes-group-version-kind": [{ group, kind: "Waldo", version: "v1" }],
    });
    assert.equal(v3.description, "preserve-unknown-properties at root");
    assert.equal(v3["x-kubernetes-preserve-unknown-fields"], true);
    assert.deepEqual(v3.properties.spec, { type: "object", properties: { dummy: { type: "object" } } });
    assert.deepEqual(v3.properties.metadata, {
      description: META_DOC,
      allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }],
    });
    await api.delete(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/waldos.${group}`);
  });

  test("ObjectMeta and its fields carry kube's descriptions, which kubectl explain <resource>.metadata shows", async () => {
    const group = `meta${Date.now().toString(36)}.example.com`;
    await publish(group, { type: "object" });
    const v3 = (await api.get(`/openapi/v3/apis/${group}/v1`)).body.components.schemas[OBJECT_META];
    assert.match(v3.description, /^ObjectMeta is metadata that all persisted resources must have/);
    assert.deepEqual(v3.properties.creationTimestamp.allOf, [
      { $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time" },
    ]);
    assert.match(v3.properties.creationTimestamp.description, /^CreationTimestamp is a timestamp/);
    assert.match(v3.properties.name.description, /^Name must be unique within a namespace/);
    const v2 = (await api.get("/openapi/v2")).body.definitions[OBJECT_META];
    assert.equal(
      v2.properties.creationTimestamp.$ref,
      "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time",
    );
    assert.equal(v2.properties.creationTimestamp.description, v3.properties.creationTimestamp.description);
    await api.delete(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/waldos.${group}`);
  });

  test("v2 is made structural: nullable, preserved and embedded fields as kube writes them", async () => {
    const group = `nested${Date.now().toString(36)}.example.com`;
    const { v2, v3 } = await publish(group, {
      type: "object",
      properties: {
        spec: {
          type: "object",
          required: ["n", "m"],
          properties: {
            n: { type: "object", nullable: true, properties: { x: { type: "string" } } },
            m: { type: "string" },
            kept: {
              type: "object",
              "x-kubernetes-preserve-unknown-fields": true,
              properties: { d: { type: "string" } },
            },
            emb: {
              type: "object",
              "x-kubernetes-embedded-resource": true,
              properties: { foo: { type: "string" } },
            },
          },
        },
      },
    });
    const spec = v2.properties.spec;
    assert.deepEqual(spec.required, ["m"], "a nullable field is not required in v2");
    assert.deepEqual(spec.properties.n, {});
    assert.deepEqual(spec.properties.kept, { "x-kubernetes-preserve-unknown-fields": true });
    assert.deepEqual(spec.properties.emb.required, ["kind", "apiVersion"]);
    assert.deepEqual(Object.keys(spec.properties.emb.properties).sort(), [
      "apiVersion",
      "foo",
      "kind",
      "metadata",
    ]);
    assert.deepEqual(v2.properties.metadata, { description: META_DOC, $ref: `#/definitions/${OBJECT_META}` });
    assert.match(v2.properties.apiVersion.description, /^APIVersion defines the versioned schema/);
    // v3 keeps what v2 cannot say.
    assert.deepEqual(v3.properties.spec.required, ["n", "m"]);
    assert.equal(v3.properties.spec.properties.n.nullable, true);
    assert.deepEqual(v3.properties.spec.properties.kept.properties, { d: { type: "string" } });
    await api.delete(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/waldos.${group}`);
  });
});
