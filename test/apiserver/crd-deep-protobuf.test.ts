// CRDs nested as deep as kube-apiserver 1.37 serves them, read and written in protobuf (the form
// client-go, and the library's client, ask built-in kinds in by default): a GET, a LIST and a
// watch event in protobuf decode with the library's codec to the JSON answer, and the CRD encoded
// by the library's codec is read back whole by the server. Against kube this checks the library's
// decoder on kube's bytes and kube's decoder on the library's; on the embedded server, both ways
// of the codec the server uses. kube takes seconds to serve each deep CRD (more on lists and maps:
// see crd-deep-schema.test.ts), so these are the depths it serves quickly.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { kinds } from "controller-runtime/api";
import { newCache } from "controller-runtime/cache";
import { newClient } from "controller-runtime/client";
import { eventually } from "controller-runtime/envtest";
import { decodeProtobuf, decodeWatchEvent, encodeProtobuf } from "controller-runtime/protobuf";
import { around, deepCrdText, firstDifference } from "./deep-crds.js";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

const PROTOBUF = "application/vnd.kubernetes.protobuf";
let target: Target;
let api: Api;
const group = `deeppb${Date.now().toString(36)}.example.com`;
const crds: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(async () => {
  for (const name of crds) await api.delete(`${CRDS}/${name}`);
  await target.close();
});

/**
 * Fails with where `actual` parts from `expected` (assert.deepEqual recurses, and its message would
 * be megabytes). Key order too against kube, whose JSON and protobuf both follow the Go structs; the
 * embedded server's JSON keeps the order a CRD was sent in.
 */
function sameTree(actual: unknown, expected: unknown, what: string): void {
  const difference = firstDifference(actual, expected, !target.embedded);
  if (difference !== undefined) assert.fail(`${what}: ${difference}`);
}

/** The first watch event in protobuf on `path` that `pick` takes, within a generous deadline. */
async function watchFor(
  path: string,
  pick: (e: { type: string; object: Record<string, unknown> }) => boolean,
): Promise<{ type: string; object: Record<string, unknown> } | undefined> {
  const abort = new AbortController();
  const headers: Record<string, string> = { accept: PROTOBUF };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  const deadline = setTimeout(() => abort.abort(), 120_000);
  try {
    const res = await fetch(`${target.url}${path}`, {
      headers,
      signal: abort.signal,
      dispatcher: target.agent,
    } as unknown as RequestInit);
    assert.equal(res.status, 200, `watch ${path}`);
    assert.equal(res.headers.get("content-type"), `${PROTOBUF};stream=watch`);
    let buf = Buffer.alloc(0);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const frame = buf.subarray(4, 4 + buf.readUInt32BE(0));
        buf = buf.subarray(4 + frame.length);
        const e = decodeWatchEvent(frame);
        if (pick(e)) return e;
      }
    }
  } catch (e) {
    if ((e as Error).name !== "AbortError") throw e;
  } finally {
    clearTimeout(deadline);
    abort.abort();
  }
  return undefined;
}

/** Creates the CRD and waits until it is established and no longer changes (kube takes seconds). */
async function establish(plural: string, spec: string) {
  const name = `${plural}.${group}`;
  const r = await api.post(CRDS, deepCrdText(group, plural, `D${plural}`, spec));
  assert.equal(r.status, 201, r.text.slice(0, 300));
  crds.push(name);
  return eventually(
    `${name} established`,
    async () => {
      const got = await api.get(`${CRDS}/${name}`);
      const conditions: { type: string; status: string }[] = got.body?.status?.conditions ?? [];
      const ok = conditions.some((c) => c.type === "Established" && c.status === "True");
      return ok && got.body.status.acceptedNames?.kind === `D${plural}` ? got.body : undefined;
    },
    { timeoutMs: 120_000 },
  );
}

/** GET, LIST, watch in protobuf equal the JSON; a PUT in protobuf encoded by the library is read whole. */
async function roundTrip(plural: string, spec: string): Promise<void> {
  const name = `${plural}.${group}`;
  await establish(plural, spec);
  // The JSON and protobuf answers of one version (kube may still write the CRD's status).
  const [asJson, decoded] = await eventually(
    `${name} of one version in JSON and protobuf`,
    async () => {
      const json = (await api.get(`${CRDS}/${name}`)).body;
      const one = await api.callBytes("GET", `${CRDS}/${name}`, PROTOBUF);
      if (one.status !== 200)
        throw new Error(`GET in protobuf: ${one.status} ${one.bytes.toString().slice(0, 300)}`);
      assert.equal(one.type, PROTOBUF);
      const decoded = decodeProtobuf(one.bytes);
      const rv = (decoded.metadata as { resourceVersion: string }).resourceVersion;
      return rv === json.metadata.resourceVersion ? [json, decoded] : undefined;
    },
    { timeoutMs: 120_000 },
  );
  sameTree(decoded, asJson, "GET in protobuf");

  const listed = await api.callBytes("GET", `${CRDS}?fieldSelector=metadata.name%3D${name}`, PROTOBUF);
  assert.equal(listed.status, 200, listed.bytes.toString().slice(0, 300));
  const list = decodeProtobuf(listed.bytes);
  // A list's items carry no TypeMeta in protobuf (Go's typed items have it empty).
  const { apiVersion: _, kind: __, ...item } = asJson;
  assert.equal((list.items as unknown[]).length, 1);
  sameTree((list.items as unknown[])[0], item, "LIST in protobuf");

  // A watch from the list sees the CRD written back in protobuf by the library's encoder.
  const rv = (list.metadata as { resourceVersion: string }).resourceVersion;
  const changed = { ...asJson, metadata: { ...asJson.metadata, labels: { touched: "yes" } } };
  const body = encodeProtobuf(changed, { exact: true });
  assert.ok(body, "the CRD as read encodes to protobuf without loss");
  const event = watchFor(
    `${CRDS}?watch=1&fieldSelector=metadata.name%3D${name}&resourceVersion=${rv}`,
    (e) => (e.object.metadata as { labels?: Record<string, string> }).labels?.touched === "yes",
  );
  const put = await api.callBytes("PUT", `${CRDS}/${name}`, "application/json", body);
  assert.equal(put.status, 200, put.bytes.toString().slice(0, 300));
  const updated = JSON.parse(put.bytes.toString());
  sameTree(updated.spec, asJson.spec, "the spec written in protobuf, read back");
  const seen = await event;
  assert.equal(seen?.type, "MODIFIED", "the update's watch event, in protobuf");
  sameTree(seen.object, updated, "the watch event in protobuf");

  // The library's client, which asks for CRDs in protobuf, reads it whole.
  const client = newClient(target.env!.config);
  try {
    const got = await client.get(kinds.CustomResourceDefinition, { name });
    const now = (await api.get(`${CRDS}/${name}`)).body;
    if (got.metadata?.resourceVersion === now.metadata.resourceVersion)
      sameTree(got, now, "the client's GET");
    const listed = await client.list(kinds.CustomResourceDefinition, {
      fieldSelector: `metadata.name=${name}`,
    });
    assert.equal(listed.items.length, 1);
    sameTree(listed.items[0]!.spec, now.spec, "the client's LIST");
  } finally {
    await client.close();
  }

  // And its cache (a streaming list and a watch in protobuf, every object frozen).
  const cache = newCache(target.env!.config);
  const stop = new AbortController();
  const running = cache.start(stop.signal);
  try {
    await eventually(
      `the cache holds ${name} as labelled`,
      async () => {
        const cached = await cache.get(kinds.CustomResourceDefinition, { name });
        return cached.metadata?.labels?.touched === "yes";
      },
      { timeoutMs: 120_000 },
    );
    const cached = await cache.get(kinds.CustomResourceDefinition, { name });
    assert.ok(Object.isFrozen(cached.spec.versions[0]!.schema!.openAPIV3Schema));
    sameTree(cached.spec, updated.spec, "the cache's object");
  } finally {
    stop.abort();
    await running;
  }
}

describe("deep CRDs in protobuf", () => {
  test("properties nested 4 990 levels (the most a CRD's body holds)", { timeout: 400_000 }, async () => {
    await roundTrip(
      "props",
      around(4_990, '{"type":"object","properties":{"a":', '{"type":"string","default":"x"}', "}}"),
    );
  });

  test("not nested 5 000 levels, and items, additionalProperties and allOf mixed 300", {
    timeout: 400_000,
  }, async () => {
    await roundTrip(
      "nots",
      `{"type":"object","x-kubernetes-preserve-unknown-fields":true,${around(5_000, '{"not":', '{"minProperties":1}', "}").slice(1, -1)}}`,
    );
    await roundTrip(
      "mixed",
      around(
        300,
        '{"type":"array","items":{"type":"object","additionalProperties":{"type":"object","allOf":[{"maxProperties":3}],"properties":{"a":',
        '{"type":"string"}',
        "}}}}",
      ),
    );
  });
});
