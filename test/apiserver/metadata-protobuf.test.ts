// Metadata-only clients (client-go's metadata client, controller-runtime's metadata informers)
// ask for PartialObjectMetadata in protobuf first, then in JSON. kube's negotiation takes the
// first clause it can serve, so they are answered in protobuf: PartialObjectMetadata,
// PartialObjectMetadataList (meta.k8s.io/v1 or v1beta1) and watch frames holding them, for
// built-in kinds and custom resources alike. The decoded protobuf must read as the JSON answer.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { decodeProtobuf, decodeWatchEvent } from "controller-runtime/protobuf";
import { Api, CRDS, customResourceDefinition, startTarget, type Target } from "./harness.js";

const PROTOBUF = "application/vnd.kubernetes.protobuf";
const meta = (as: string, v = "v1") => `;as=${as};g=meta.k8s.io;v=${v}`;
/** What client-go's metadata client sends. */
const METADATA_CLIENT = `${PROTOBUF}${meta("PartialObjectMetadata")},application/json${meta("PartialObjectMetadata")},application/json`;
const LIST_CLIENT = `${PROTOBUF}${meta("PartialObjectMetadataList")},application/json${meta("PartialObjectMetadataList")},application/json`;

let target: Target;
let api: Api;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("pom");
});
after(() => target.close());

/** The decoded protobuf answer to `path`, after checking it is protobuf. */
async function protobuf(path: string, accept: string) {
  const r = await api.getBytes(path, accept);
  assert.equal(r.type, PROTOBUF, `${path} ${accept}: ${r.bytes.toString().slice(0, 200)}`);
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  const body: any = decodeProtobuf(r.bytes, { apiVersion: "", kind: "" });
  return { status: r.status, body };
}

function deployment(name: string) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels: { app: name }, annotations: { note: "kept" } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "c", image: "nginx" }] },
      },
    },
  };
}

/** Reads length-prefixed protobuf watch frames until `enough` says stop. */
async function protobufWatch(path: string, accept: string, enough: (events: { type: string }[]) => boolean) {
  const headers: Record<string, string> = { accept };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  const abort = new AbortController();
  const res = await fetch(`${target.url}${path}`, {
    headers,
    signal: abort.signal,
    dispatcher: target.agent,
  } as unknown as RequestInit);
  const type = res.headers.get("content-type");
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  const events: { type: string; object: any }[] = [];
  let buf = Buffer.alloc(0);
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const n = buf.readUInt32BE(0);
        events.push(decodeWatchEvent(buf.subarray(4, 4 + n)));
        buf = buf.subarray(4 + n);
      }
      if (enough(events)) break;
    }
  } finally {
    abort.abort();
  }
  return { status: res.status, type, events };
}

describe("PartialObjectMetadata in protobuf", () => {
  test("a metadata client's GET and LIST are answered in protobuf that reads as the JSON answer", async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await api.post(path, deployment("meta-one"));
    assert.equal(created.status, 201, created.text);

    const one = await protobuf(`${path}/meta-one`, METADATA_CLIENT);
    assert.equal(one.status, 200);
    assert.equal(one.body.kind, "PartialObjectMetadata");
    assert.equal(one.body.apiVersion, "meta.k8s.io/v1");
    const json = await api.get(`${path}/meta-one`, {
      accept: `application/json${meta("PartialObjectMetadata")}`,
    });
    assert.deepEqual(one.body, json.body);
    assert.equal(one.body.spec, undefined);

    // The protobuf clause alone is served too: kube can give it.
    const only = await protobuf(`${path}/meta-one`, `${PROTOBUF}${meta("PartialObjectMetadata")}`);
    assert.deepEqual(only.body, json.body);

    const list = await protobuf(path, LIST_CLIENT);
    assert.equal(list.body.kind, "PartialObjectMetadataList");
    assert.equal(list.body.apiVersion, "meta.k8s.io/v1");
    const jsonList = await api.get(path, { accept: `application/json${meta("PartialObjectMetadataList")}` });
    // Items carry no type in protobuf (the message has none): their metadata is the JSON's.
    const metadataOf = (items: { metadata: unknown }[]) => items.map((i) => i.metadata);
    assert.deepEqual(metadataOf(list.body.items), metadataOf(jsonList.body.items));
    assert.equal(list.body.items[0].metadata.annotations.note, "kept");

    // meta.k8s.io/v1beta1's list is another message (its fields numbered the other way round).
    const beta = await protobuf(path, `${PROTOBUF}${meta("PartialObjectMetadataList", "v1beta1")}`);
    assert.equal(beta.body.apiVersion, "meta.k8s.io/v1beta1");
    assert.deepEqual(metadataOf(beta.body.items), metadataOf(jsonList.body.items));
    const betaJson = await api.get(`${path}/meta-one`, {
      accept: `application/json${meta("PartialObjectMetadata", "v1beta1")}`,
    });
    assert.equal(betaJson.body.apiVersion, "meta.k8s.io/v1beta1");
  });

  test("a metadata informer's watch: protobuf frames of PartialObjectMetadata, bookmarks included", async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await api.post(path, deployment("meta-watched"));
    assert.equal(created.status, 201, created.text);
    const query =
      "?watch=true&fieldSelector=metadata.name%3Dmeta-watched&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan";
    const watch = await protobufWatch(`${path}${query}`, METADATA_CLIENT, (events) =>
      events.some((e) => e.type === "BOOKMARK"),
    );
    assert.equal(watch.status, 200);
    assert.equal(watch.type, `${PROTOBUF};stream=watch`);
    const [added, bookmark] = watch.events;
    assert.equal(added.type, "ADDED");
    assert.equal(added.object.kind, "PartialObjectMetadata");
    const json = await api.get(`${path}/meta-watched`, {
      accept: `application/json${meta("PartialObjectMetadata")}`,
    });
    assert.deepEqual(added.object, json.body);
    assert.equal(bookmark.type, "BOOKMARK");
    assert.equal(bookmark.object.kind, "PartialObjectMetadata");
    assert.deepEqual(bookmark.object.metadata.annotations, { "k8s.io/initial-events-end": "true" });
  });

  test("custom resources: their metadata in protobuf, their objects never", async () => {
    const group = "pom.example.com";
    const crd = await api.post(CRDS, customResourceDefinition(group, { plural: "gizmos", kind: "Gizmo" }));
    assert.equal(crd.status, 201, crd.text);
    const path = `/apis/${group}/v1/namespaces/${ns}/gizmos`;
    await eventually("the CRD served", async () => (await api.get(path)).status === 200, {
      timeoutMs: 30_000,
    });
    try {
      const created = await api.post(path, {
        apiVersion: `${group}/v1`,
        kind: "Gizmo",
        metadata: { name: "g1" },
        spec: { size: 1 },
      });
      assert.equal(created.status, 201, created.text);
      const one = await protobuf(`${path}/g1`, METADATA_CLIENT);
      const json = await api.get(`${path}/g1`, {
        accept: `application/json${meta("PartialObjectMetadata")}`,
      });
      assert.deepEqual(one.body, json.body);
      const list = await protobuf(path, LIST_CLIENT);
      assert.deepEqual(
        list.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
        ["g1"],
      );
      // A client preferring protobuf gets JSON objects; asking only for protobuf is a 406, whose
      // Status is itself written in protobuf.
      const preferred = await api.getBytes(`${path}/g1`, `${PROTOBUF}, application/json`);
      assert.equal(preferred.type, "application/json");
      const refused = await protobuf(`${path}/g1`, PROTOBUF);
      assert.equal(refused.status, 406);
      assert.equal(
        refused.body.message,
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
      );
    } finally {
      await api.delete(`${CRDS}/gizmos.${group}`);
    }
  });
});

describe("kube's negotiation, clause by clause", () => {
  test("the first clause the endpoint can serve is taken, in goautoneg's order", async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    await api.post(path, deployment("meta-order"));
    // A Table has no protobuf form: the next clause is taken.
    const table = await api.getBytes(`${path}/meta-order`, `${PROTOBUF}${meta("Table")}, application/json`);
    assert.equal(table.type, "application/json");
    assert.equal(JSON.parse(table.bytes.toString()).kind, "Deployment");
    // A higher q comes first, whatever the order.
    const q = await api.getBytes(
      `${path}/meta-order`,
      `application/json;q=0.5, ${PROTOBUF}${meta("PartialObjectMetadata")}`,
    );
    assert.equal(q.type, PROTOBUF);
    // q=0 does not refuse a type: kube's parser keeps it.
    assert.equal((await api.get(`${path}/meta-order`, { accept: "application/json;q=0" })).status, 200);
    // A stream parameter needs a serializer that streams; a server version must be meta's.
    for (const accept of ["application/yaml;stream=watch", "application/json;sv=v2"]) {
      const r = await api.get(`${path}/meta-order`, { accept });
      assert.equal(r.status, 406, accept);
      assert.match(r.body.message, /^only the following media types are accepted: application\/json, /);
    }
    assert.equal(
      (await api.get(`${path}/meta-order`, { accept: "application/json;stream=watch" })).status,
      200,
    );
    // A watch in YAML cannot be written: the 406 names the stream types (its Status in the
    // JSON clause: a Status is no PartialObjectMetadata).
    const yamlWatch = await api.get(`${path}?watch=true`, {
      accept: `application/yaml${meta("PartialObjectMetadata")}, application/json;q=0.1`,
    });
    assert.equal(yamlWatch.status, 406);
    assert.equal(
      yamlWatch.body.message,
      "only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch",
    );
  });

  test("a watch asked for PartialObjectMetadataList ends at its first event, with nothing written", async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    await api.post(path, deployment("meta-list-watch"));
    const headers: Record<string, string> = {
      accept: `application/json${meta("PartialObjectMetadataList")}`,
    };
    if (target.token) headers.authorization = `Bearer ${target.token}`;
    const res = await fetch(`${target.url}${path}?watch=true&fieldSelector=metadata.name%3Dmeta-list-watch`, {
      headers,
      dispatcher: target.agent,
    } as unknown as RequestInit);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "");
  });

  test("errors are written in the serializer negotiated for a Status: protobuf, JSON, or indented JSON", async () => {
    const missing = `/apis/apps/v1/namespaces/${ns}/deployments/missing`;
    for (const accept of [
      `${PROTOBUF};stream=watch`,
      `application/yaml${meta("Table")}, ${PROTOBUF}`,
      `${PROTOBUF}, */*`,
    ]) {
      const r = await protobuf(missing, accept);
      assert.equal(r.status, 404, accept);
      assert.equal(r.body.kind, "Status");
      assert.equal(r.body.reason, "NotFound");
    }
    // A Status is no PartialObjectMetadata: the plain JSON clause serves it.
    const json = await api.getBytes(missing, METADATA_CLIENT);
    assert.equal(json.type, "application/json");
    assert.ok(json.bytes.toString().startsWith('{"kind":"Status"'));
    // Nothing serves it: json.MarshalIndent's output.
    const raw = await api.getBytes(missing, `${PROTOBUF}${meta("PartialObjectMetadata")}`);
    assert.equal(raw.status, 404);
    assert.ok(raw.bytes.toString().startsWith('{\n  "kind": "Status",'));
    // Refused before any resource is found: an unknown resource's 404 too.
    const unknown = await protobuf("/apis/apps/v1/no-such-resources", `${PROTOBUF}, */*`);
    assert.equal(unknown.status, 404);
  });

  test("componentstatuses are negotiated like any resource: Table, metadata, protobuf", async () => {
    const table = await api.get("/api/v1/componentstatuses", { accept: `application/json${meta("Table")}` });
    assert.equal(table.body.kind, "Table");
    assert.deepEqual(
      table.body.columnDefinitions.map((c: { name: string }) => c.name),
      ["Name", "Status", "Message", "Error"],
    );
    const etcd = table.body.rows.find((row: { cells: string[] }) => row.cells[0] === "etcd-0");
    assert.deepEqual(etcd.cells, ["etcd-0", "Healthy", "ok", ""]);
    const list = await api.get("/api/v1/componentstatuses", {
      accept: `application/json${meta("PartialObjectMetadataList")}`,
    });
    assert.deepEqual(list.body.metadata, {});
    assert.deepEqual(list.body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), [
      "controller-manager",
      "etcd-0",
      "scheduler",
    ]);
    const one = await protobuf("/api/v1/componentstatuses/etcd-0", METADATA_CLIENT);
    assert.deepEqual(one.body, {
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: { name: "etcd-0" },
    });
    const asObject = await api.get("/api/v1/componentstatuses", {
      accept: `application/json${meta("PartialObjectMetadata")}`,
    });
    assert.equal(asObject.status, 406);
    assert.equal(
      asObject.body.message,
      "you requested PartialObjectMetadata, but the requested object is a list (*core.ComponentStatusList)",
    );
  });
});
