// ObjectMeta's finalizers and owner references, as kube-apiserver 1.37 checks them on every write:
// each finalizer a qualified name; on most built-in kinds also a standard name or one with a domain
// ("foo" on a ConfigMap is a 422), while Leases, PDBs, admission configurations and custom resources
// take it (a custom resource with a warning); an owner reference needs apiVersion, kind, name and
// uid, at most one is the controller, an Event owns nothing; duplicates are dropped with a warning.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import {
  Api,
  CRDS,
  configMap,
  customResourceDefinition,
  type Reply,
  startTarget,
  type Target,
} from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
const group = `fo${process.pid}.example.com`;
const M = "application/merge-patch+json";
const cms = () => `/api/v1/namespaces/${ns}/configmaps`;
const things = () => `/apis/${group}/v1/namespaces/${ns}/things`;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("fo");
  const crd = customResourceDefinition(group, { plural: "things", kind: "Thing" });
  (crd.spec.versions[0] as Record<string, unknown>).subresources = { status: {} };
  assert.equal((await api.post(CRDS, crd)).status, 201);
  await eventually("the custom resource to be served", async () => (await api.get(things())).status === 200, {
    timeoutMs: 30_000,
  });
});
after(async () => {
  // Objects still holding finalizers would keep the namespace.
  for (const path of [
    `${cms()}/kept`,
    `${things()}/t`,
    `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l`,
  ])
    await api.call("PATCH", path, JSON.stringify({ metadata: { finalizers: null } }), { contentType: M });
  await api.delete(`/api/v1/namespaces/${ns}`);
  await api.delete(`${CRDS}/things.${group}`);
  await target.close();
});

const ref = (o: Record<string, unknown> = {}) => ({ apiVersion: "v1", kind: "X", name: "n", uid: "u", ...o });
const warning = (r: Reply) => r.headers.get("warning") ?? "";

function refused(r: Reply, message: string, causes: [string, string][]) {
  assert.equal(r.status, 422, r.text);
  assert.equal(r.body.message, message);
  assert.deepEqual(
    r.body.details.causes.map((c: { reason: string; field: string }) => [c.reason, c.field]),
    causes,
  );
}

const NOT_QUALIFIED = "name is neither a standard finalizer name nor is it fully qualified";
const KEY_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe("finalizers", () => {
  test("a built-in kind takes a standard name or one with a domain", async () => {
    const create = (name: string, finalizers: string[]) =>
      api.post(cms(), { ...configMap(name), metadata: { name, finalizers } });
    refused(
      await create("f1", ["foo"]),
      `ConfigMap "f1" is invalid: metadata.finalizers[0]: Invalid value: "foo": ${NOT_QUALIFIED}`,
      [["FieldValueInvalid", "metadata.finalizers[0]"]],
    );
    refused(
      await create("f2", ["x".repeat(64)]),
      `ConfigMap "f2" is invalid: [metadata.finalizers: Invalid value: "${"x".repeat(64)}": name part must be no more than 63 bytes, metadata.finalizers[0]: Invalid value: "${"x".repeat(64)}": ${NOT_QUALIFIED}]`,
      [
        ["FieldValueInvalid", "metadata.finalizers"],
        ["FieldValueInvalid", "metadata.finalizers[0]"],
      ],
    );
    refused(
      await create("f3", ["a/b/c"]),
      `ConfigMap "f3" is invalid: metadata.finalizers: Invalid value: "a/b/c": a valid label key ${KEY_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      [["FieldValueInvalid", "metadata.finalizers"]],
    );
    const both = await api.post(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d", finalizers: ["orphan", "foregroundDeletion"] },
      spec: {
        selector: { matchLabels: { a: "b" } },
        template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x" }] } },
      },
    });
    refused(
      both,
      `Deployment.apps "d" is invalid: metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set`,
      [["FieldValueInvalid", "metadata.finalizers"]],
    );
    const kept = await create("kept", ["kubernetes", "example.com/x", "a/b", "a/b"]);
    assert.equal(kept.status, 201, kept.text);
    assert.deepEqual(kept.body.metadata.finalizers, ["kubernetes", "example.com/x", "a/b", "a/b"]);
    // An update is held to the same rules.
    const patched = await api.call(
      "PATCH",
      `${cms()}/kept`,
      JSON.stringify({ metadata: { finalizers: ["foo"] } }),
      { contentType: M },
    );
    refused(
      patched,
      `ConfigMap "kept" is invalid: metadata.finalizers[0]: Invalid value: "foo": ${NOT_QUALIFIED}`,
      [["FieldValueInvalid", "metadata.finalizers[0]"]],
    );
  });

  test("a Lease takes any qualified name", async () => {
    const r = await api.post(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "l", finalizers: ["foo"] },
    });
    assert.equal(r.status, 201, r.text);
  });

  test("a custom resource takes it with a warning for each finalizer it adds", async () => {
    const created = await api.post(things(), {
      apiVersion: `${group}/v1`,
      kind: "Thing",
      metadata: { name: "t", finalizers: ["zz", "foo", "x.y", "a/b", "kubernetes"] },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(
      warning(created),
      [
        `299 - "metadata.finalizers: \\"foo\\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"`,
        `299 - "metadata.finalizers: \\"x.y\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"`,
        `299 - "metadata.finalizers: \\"zz\\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"`,
      ].join(", "),
    );
    const added = await api.call(
      "PATCH",
      `${things()}/t`,
      JSON.stringify({ metadata: { finalizers: ["zz", "foo", "x.y", "a/b", "kubernetes", "bar"] } }),
      { contentType: M },
    );
    assert.equal(added.status, 200, added.text);
    assert.equal(
      warning(added),
      `299 - "metadata.finalizers: \\"bar\\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"`,
    );
    // A write through /status keeps metadata's finalizers as stored, and warns of nothing.
    const status = await api.call(
      "PATCH",
      `${things()}/t/status`,
      JSON.stringify({ metadata: { finalizers: ["baz"] } }),
      { contentType: M },
    );
    assert.equal(status.status, 200, status.text);
    assert.equal(warning(status), "");
    assert.deepEqual(status.body.metadata.finalizers, ["zz", "foo", "x.y", "a/b", "kubernetes", "bar"]);
    const bad = await api.call(
      "PATCH",
      `${things()}/t`,
      JSON.stringify({ metadata: { finalizers: ["Bad/x/y"] } }),
      {
        contentType: M,
      },
    );
    refused(
      bad,
      `Thing.${group} "t" is invalid: metadata.finalizers: Invalid value: "Bad/x/y": a valid label key ${KEY_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      [["FieldValueInvalid", "metadata.finalizers"]],
    );
  });
});

describe("owner references", () => {
  const create = (name: string, ownerReferences: unknown[]) =>
    api.post(cms(), { ...configMap(name), metadata: { name, ownerReferences } });

  test("each needs apiVersion, kind, name and uid", async () => {
    const r = await create("o1", [{}]);
    const at = "metadata.ownerReferences[0]";
    refused(
      r,
      `ConfigMap "o1" is invalid: [${at}.apiVersion: Required value: must not be empty, ${at}.kind: Required value: must not be empty, ${at}.name: Required value: must not be empty, ${at}.uid: Required value: must not be empty]`,
      [
        ["FieldValueRequired", `${at}.apiVersion`],
        ["FieldValueRequired", `${at}.kind`],
        ["FieldValueRequired", `${at}.name`],
        ["FieldValueRequired", `${at}.uid`],
      ],
    );
    refused(
      await create("o2", [ref({ apiVersion: "apps/" })]),
      `ConfigMap "o2" is invalid: ${at}.apiVersion: Invalid value: "apps/": must be <group>/<version> or <version>`,
      [["FieldValueInvalid", `${at}.apiVersion`]],
    );
    // A group without a version is refused; a version after an empty group is core's.
    assert.equal((await create("o3", [ref({ apiVersion: "/v1" })])).status, 201);
  });

  test("an Event owns nothing, and one reference at most is the controller", async () => {
    refused(
      await create("o4", [ref({ kind: "Event" })]),
      `ConfigMap "o4" is invalid: metadata.ownerReferences[0]: Invalid value: {"apiVersion":"v1","kind":"Event","name":"n","uid":"u"}: /v1, Kind=Event is disallowed from being an owner`,
      [["FieldValueInvalid", "metadata.ownerReferences[0]"]],
    );
    const two = [ref({ controller: true }), ref({ name: "m", uid: "w", controller: true })];
    refused(
      await create("o5", two),
      `ConfigMap "o5" is invalid: metadata.ownerReferences: Invalid value: ${JSON.stringify(two)}: Only one reference can have Controller set to true. Found "true" in references for X/n and X/m`,
      [["FieldValueInvalid", "metadata.ownerReferences"]],
    );
    // A custom resource's references are checked the same, and printed in Go's field order.
    const r = await api.post(things(), {
      apiVersion: `${group}/v1`,
      kind: "Thing",
      metadata: {
        name: "t2",
        ownerReferences: [
          { uid: "w", controller: true, name: "m", kind: "X", apiVersion: "v1" },
          ref({ controller: true }),
        ],
      },
    });
    assert.equal(r.status, 422, r.text);
    assert.match(
      r.body.message,
      /Invalid value: \[\{"apiVersion":"v1","kind":"X","name":"m","uid":"w","controller":true\},/,
    );
  });

  test("duplicates are dropped, with kube's warning: before admission on create and update, after it on a patch", async () => {
    const created = await create("o6", [ref(), ref(), ref({ name: "m" })]);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.metadata.ownerReferences, [ref(), ref({ name: "m" })]);
    const tail =
      "API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed:";
    assert.equal(warning(created), `299 - ".metadata.ownerReferences contains duplicate entries; ${tail} u"`);
    const got = (await api.get(`${cms()}/o6`)).body;
    got.metadata.ownerReferences = [
      ref({ uid: "v" }),
      ref({ uid: "v" }),
      ref({ uid: "w" }),
      ref({ uid: "w" }),
    ];
    const put = await api.call("PUT", `${cms()}/o6`, JSON.stringify(got), {
      contentType: "application/json",
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.metadata.ownerReferences, [ref({ uid: "v" }), ref({ uid: "w" })]);
    assert.equal(warning(put), `299 - ".metadata.ownerReferences contains duplicate entries; ${tail} v, w"`);
    const patched = await api.call(
      "PATCH",
      `${cms()}/o6`,
      JSON.stringify({ metadata: { ownerReferences: [ref(), ref()] } }),
      { contentType: M },
    );
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.metadata.ownerReferences, [ref()]);
    assert.equal(
      warning(patched),
      `299 - ".metadata.ownerReferences contains duplicate entries after mutating admission happens; ${tail} u"`,
    );
  });
});

describe("generateName", () => {
  test("the base is cut to 58 characters, and checked before the name made of it", async () => {
    const long = await api.post(cms(), { ...configMap(""), metadata: { generateName: "a".repeat(60) } });
    assert.equal(long.status, 201, long.text);
    assert.match(long.body.metadata.name, /^a{58}[a-z0-9]{5}$/);
    const bad = await api.post(cms(), { ...configMap(""), metadata: { generateName: "Bad_" } });
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(
      bad.body.details.causes.map((c: { field: string }) => c.field),
      ["metadata.generateName", "metadata.name"],
    );
    // A base past a name's length is refused for itself; the name made of its first 58 is fine.
    const huge = await api.post(cms(), { ...configMap(""), metadata: { generateName: "a".repeat(300) } });
    assert.equal(huge.status, 422, huge.text);
    assert.deepEqual(
      huge.body.details.causes.map((c: { field: string }) => c.field),
      ["metadata.generateName"],
    );
  });
});
