// Answers in protobuf of objects the server keeps: the embedded server encodes a stored object's
// message once, on its first protobuf read, and copies those bytes into later lists, watch
// events and gets (issue 43). An object changed is a new revision: its answers must be the new
// content, never bytes kept for the old one. Each protobuf answer must read as the JSON answer
// to the same request (and on the embedded server be, byte for byte, its fresh encoding: kube's
// Go encoder writes zero fields ours leaves out), and the metadata-only and Table forms of a
// changed object must show the change too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { decodeProtobuf, decodeWatchEvent, encodeProtobuf } from "controller-runtime/protobuf";
import { Api, startTarget, type Target } from "./harness.js";

const PROTOBUF = "application/vnd.kubernetes.protobuf";
const META = ";g=meta.k8s.io;v=v1";
let target: Target;
let api: Api;
let ns: string;

/** On the embedded server: `bytes` are the fresh encoding of `json`, the same request's JSON answer. */
function freshlyEncoded(bytes: Buffer, json: Record<string, unknown>): void {
  if (target.embedded) assert.deepEqual(bytes, encodeProtobuf(json));
}

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("pbkept");
});
after(() => target.close());

/** A GET's media type and raw bytes, checked to be an answer. */
async function getBytes(path: string, accept: string) {
  const r = await api.getBytes(path, accept);
  assert.equal(r.status, 200, `${path}: ${r.bytes.toString().slice(0, 300)}`);
  return r;
}

/** The protobuf answer to `path`, checked to be protobuf; decoded, with its bytes. */
async function protobuf(path: string, accept = PROTOBUF) {
  const r = await getBytes(path, accept);
  assert.equal(r.type, PROTOBUF, `${path}: ${r.bytes.toString().slice(0, 200)}`);
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  const body: any = decodeProtobuf(r.bytes, { apiVersion: "", kind: "" });
  return { bytes: r.bytes, body };
}

/** The watch's first `n` events in protobuf frames. */
async function watchFrames(path: string, n: number) {
  const headers: Record<string, string> = { accept: PROTOBUF };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  const abort = new AbortController();
  const res = await fetch(`${target.url}${path}`, {
    headers,
    signal: abort.signal,
    dispatcher: target.agent,
  } as unknown as RequestInit);
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  const events: { type: string; object: any }[] = [];
  let buf = Buffer.alloc(0);
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const len = buf.readUInt32BE(0);
        events.push(decodeWatchEvent(buf.subarray(4, 4 + len)));
        buf = buf.subarray(4 + len);
      }
      if (events.length >= n) break;
    }
  } finally {
    abort.abort();
  }
  return events;
}

const configMap = (name: string, value: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, labels: { app: "kept" } },
  // Long ASCII values (kept as the object's own strings in its kept frame), one with newlines
  // (escaped in JSON, not in protobuf); a long non-ASCII one (its UTF-8 bytes copied).
  data: { value, filler: "f".repeat(200), lines: "a line\n".repeat(40), utf: "ü".repeat(150) },
});

test("a changed object's protobuf GET, LIST and watch are its new revision, as fresh encodings of its JSON", async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  assert.equal((await api.post(path, configMap("kept", "one"))).status, 201);
  assert.equal((await api.post(path, configMap("other", "two"))).status, 201);

  // Read in protobuf (and so kept by the embedded server), then changed.
  const first = await protobuf(`${path}/kept`);
  assert.equal(first.body.data.value, "one");
  await protobuf(path);
  const updated = await api.put(`${path}/kept`, {
    ...first.body,
    data: { ...first.body.data, value: "three" },
  });
  assert.equal(updated.status, 200, updated.text);
  const rv = updated.body.metadata.resourceVersion;
  assert.notEqual(rv, first.body.metadata.resourceVersion);

  for (let round = 0; round < 2; round++) {
    const json = await api.get(`${path}/kept`);
    const get = await protobuf(`${path}/kept`);
    assert.deepEqual(get.body, json.body);
    assert.equal(get.body.data.value, "three");
    freshlyEncoded(get.bytes, json.body);

    const jsonList = await api.get(path);
    const list = await protobuf(path);
    assert.deepEqual(list.body, jsonList.body);
    freshlyEncoded(list.bytes, jsonList.body);
    const item = list.body.items.find((i: { metadata: { name: string } }) => i.metadata.name === "kept");
    assert.equal(item.metadata.resourceVersion, rv);
    assert.equal(item.data.value, "three");
  }

  // The watch's initial event: the new revision too.
  const events = await watchFrames(
    `${path}?watch=true&fieldSelector=metadata.name%3Dkept&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    1,
  );
  assert.equal(events[0]!.type, "ADDED");
  assert.deepEqual(events[0]!.object, (await api.get(`${path}/kept`)).body);

  // A live event of a further change, then the list again.
  const watching = watchFrames(
    `${path}?watch=true&fieldSelector=metadata.name%3Dkept&resourceVersion=${rv}`,
    1,
  );
  const again = await api.patch(`${path}/kept`, { data: { value: "four" } });
  assert.equal(again.status, 200, again.text);
  const [modified] = await watching;
  assert.equal(modified!.type, "MODIFIED");
  assert.deepEqual(modified!.object, again.body);
  const list = await protobuf(path);
  const item = list.body.items.find((i: { metadata: { name: string } }) => i.metadata.name === "kept");
  assert.equal(item.data.value, "four");
  freshlyEncoded(list.bytes, (await api.get(path)).body);
});

test("a changed object's metadata-only and Table answers show the change", async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  assert.equal((await api.post(path, configMap("meta", "one"))).status, 201);
  await protobuf(`${path}/meta`);
  await protobuf(path);
  const labelled = await api.patch(`${path}/meta`, { metadata: { labels: { app: "relabelled" } } });
  assert.equal(labelled.status, 200, labelled.text);

  const metaOne = await protobuf(`${path}/meta`, `${PROTOBUF};as=PartialObjectMetadata${META}`);
  assert.equal(metaOne.body.kind, "PartialObjectMetadata");
  assert.deepEqual(metaOne.body.metadata, labelled.body.metadata);
  const metaList = await protobuf(path, `${PROTOBUF};as=PartialObjectMetadataList${META}`);
  assert.equal(metaList.body.kind, "PartialObjectMetadataList");
  const item = metaList.body.items.find((i: { metadata: { name: string } }) => i.metadata.name === "meta");
  assert.deepEqual(item.metadata, labelled.body.metadata);

  const table = await api.get(`${path}/meta`, { accept: `application/json;as=Table${META}` });
  assert.equal(table.body.kind, "Table");
  assert.equal(table.body.rows[0].object.metadata.resourceVersion, labelled.body.metadata.resourceVersion);
  // A full object in protobuf again: the relabelled revision.
  assert.deepEqual((await protobuf(`${path}/meta`)).body, labelled.body);
});
