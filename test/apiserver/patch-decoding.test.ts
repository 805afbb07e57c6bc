// Patched objects that do not fit their kind, as kube-apiserver 1.37 answers them: an apply
// configuration with a field the schema lacks is refused by the typed merge (500, no reason,
// whatever fieldValidation says); a JSON or merge patch whose result does not decode is a 422 on
// `patch` (value: the patched object), and so is fieldValidation=Strict's refusal of a patch; a
// create's strict-decoding refusal is a 400 naming the kind.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, configMap, type Reply, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("pd");
  assert.equal(
    (await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c", { x: "1" }))).status,
    201,
  );
});
after(() => target.close());

const apply = (path: string, body: unknown) =>
  api.call("PATCH", path, body, { contentType: "application/apply-patch+yaml" });

/** A 422 on `patch`: its value the patched object (JSON), its detail `detail`. */
function patchRefused(r: Reply, detail: string) {
  assert.equal(r.status, 422, r.text);
  assert.equal(r.body.reason, "Invalid");
  const m = /^ "" is invalid: patch: Invalid value: ("(?:[^"\\]|\\.)*"): (.*)$/.exec(r.body.message);
  assert.ok(m, r.body.message);
  assert.equal(m[2], detail);
  assert.deepEqual(r.body.details, {
    causes: [{ reason: "FieldValueInvalid", message: `Invalid value: ${m[1]}: ${detail}`, field: "patch" }],
  });
  return JSON.parse(JSON.parse(m[1])) as { metadata: Record<string, unknown>; data?: unknown };
}

describe("server-side apply of a field the schema lacks", () => {
  for (const [where, extra, path] of [
    ["at the top", { foo: "bar" }, ".foo"],
    ["in metadata", { metadata: { name: "a", foo: 1 } }, ".metadata.foo"],
  ] as const) {
    test(`${where}: 500, field not declared in schema, whatever fieldValidation says`, async () => {
      for (const validation of ["", "&fieldValidation=Ignore", "&fieldValidation=Strict"]) {
        const r = await apply(`/api/v1/namespaces/${ns}/configmaps/a?fieldManager=m${validation}`, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "a" },
          data: { x: "1" },
          ...extra,
        });
        assert.equal(r.status, 500, r.text);
        assert.deepEqual(r.body, {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `failed to create typed patch object (/a; /v1, Kind=ConfigMap): ${path}: field not declared in schema`,
          code: 500,
        });
      }
      assert.equal((await api.get(`/api/v1/namespaces/${ns}/configmaps/a`)).status, 404);
    });
  }
});

describe("a patch whose result does not decode", () => {
  const path = () => `/api/v1/namespaces/${ns}/configmaps/c`;
  const annotationsNotStrings =
    "json: cannot unmarshal object into Go struct field ObjectMeta.metadata.annotations of type string";

  test("annotations made an object of objects by a JSON patch: 422 on patch", async () => {
    const r = await api.patch(
      path(),
      [{ op: "add", path: "/metadata/annotations", value: { a: { b: "c" } } }],
      "application/json-patch+json",
    );
    const patched = patchRefused(r, annotationsNotStrings);
    assert.deepEqual(patched.metadata.annotations, { a: { b: "c" } });
  });

  test("the same by a merge patch, and other fields of the wrong type", async () => {
    patchRefused(
      await api.patch(path(), { metadata: { annotations: { a: { b: "c" } } } }),
      annotationsNotStrings,
    );
    patchRefused(
      await api.patch(
        path(),
        [{ op: "add", path: "/data", value: { a: { b: "c" } } }],
        "application/json-patch+json",
      ),
      "json: cannot unmarshal object into Go struct field ConfigMap.data of type string",
    );
    patchRefused(
      await api.patch(
        path(),
        [{ op: "add", path: "/metadata/labels", value: 5 }],
        "application/json-patch+json",
      ),
      "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type map[string]string",
    );
    const unchanged = await api.get(path());
    assert.equal(unchanged.body.metadata.annotations, undefined);
  });

  test("fieldValidation=Strict refuses a patch's unknown field the same way", async () => {
    const r = await api.call(
      "PATCH",
      `${path()}?fieldValidation=Strict`,
      { foo: 1 },
      { contentType: "application/merge-patch+json" },
    );
    const patched = patchRefused(r, 'strict decoding error: unknown field "foo"');
    assert.equal((patched as Record<string, unknown>).foo, 1);
  });

  test("a create's strict decoding error is a 400 naming the kind", async () => {
    const r = await api.post(`/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`, {
      ...configMap("d"),
      foo: 1,
    });
    assert.equal(r.status, 400, r.text);
    assert.equal(
      r.body.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "foo"',
    );
  });
});
