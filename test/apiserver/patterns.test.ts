// Schema patterns are RE2, as kube-apiserver evaluates them: linear in the input whatever the
// pattern, and a pattern RE2 refuses is refused when the CRD is created, in Go's words.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, CRDS, customResourceDefinition, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

const group = `patterns${Date.now().toString(36)}.example.com`;

function crd(plural: string, kind: string, pattern: string) {
  return customResourceDefinition(
    group,
    { plural, kind },
    {
      type: "object",
      properties: { spec: { type: "object", properties: { word: { type: "string", pattern } } } },
    },
  );
}

test("a pattern that backtracks exponentially is matched in linear time", async () => {
  assert.equal((await api.post(CRDS, crd("nested", "Nested", "^(a+)+$"))).status, 201);
  const ns = await api.namespace("re2");
  const path = `/apis/${group}/v1/namespaces/${ns}/nested`;
  const object = (name: string, word: string) => ({
    apiVersion: `${group}/v1`,
    kind: "Nested",
    metadata: { name },
    spec: { word },
  });
  let created: { status: number } = { status: 0 };
  for (let i = 0; i < 100 && created.status !== 201; i++) {
    created = await api.post(path, object("ok", "aaaa"));
    if (created.status === 404) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(created.status, 201);

  // A backtracking engine takes seconds on this, doubling with each "a"; RE2 answers at once, as
  // fast as a value that matches. Timed against such a value (the slowest of three) so that a
  // busy machine slows both alike.
  let benign = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await api.post(path, object(`benign-${i}`, "a".repeat(30)));
    benign = Math.max(benign, performance.now() - t0);
  }
  const started = performance.now();
  const r = await api.post(path, object("evil", `${"a".repeat(30)}!`));
  const took = performance.now() - started;
  assert.equal(r.status, 422, r.text);
  assert.equal(r.body.details.causes[0].field, "spec.word");
  assert.match(r.body.details.causes[0].message, /should match '\^\(a\+\)\+\$'/);
  const bound = Math.max(1_000, 20 * benign);
  assert.ok(took < bound, `the request took ${took} ms (a matching value ${benign} ms; bound ${bound} ms)`);
  await api.delete(`/api/v1/namespaces/${ns}`);
});

test("a pattern RE2 does not accept is refused with the CRD, in Go's words", async () => {
  for (const [pattern, why] of [
    ["^(?=x)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"],
    ["(a)\\1", "error parsing regexp: invalid escape sequence: `\\1`"],
  ]) {
    const r = await api.post(CRDS, crd("refused", "Refused", pattern));
    assert.equal(r.status, 422, r.text);
    const cause = r.body.details.causes.find((c: { field: string }) => c.field.endsWith(".pattern"));
    assert.ok(cause, r.text);
    assert.equal(cause.field, "spec.validation.openAPIV3Schema.properties[spec].properties[word].pattern");
    assert.equal(
      cause.message,
      `Invalid value: ${JSON.stringify(pattern)}: must be a valid regular expression, but isn't: ${why}`,
    );
  }
});

test("errors in parts every version shares are reported once, where kube hoists them", async () => {
  const bad = {
    openAPIV3Schema: {
      type: "object",
      properties: { spec: { type: "object", properties: { w: { type: "string", pattern: "(?=x)" } } } },
    },
  };
  const other = {
    openAPIV3Schema: {
      type: "object",
      properties: { spec: { type: "object", properties: { w: { type: "string", pattern: "(?!y)" } } } },
    },
  };
  const subresources = { scale: { specReplicasPath: "spec.replicas", statusReplicasPath: ".status.r" } };
  const columns = [{ name: "", type: "text", jsonPath: ".spec.x" }];
  const version = (name: string, storage: boolean, schema: object, extra: object = {}) => ({
    name,
    served: true,
    storage,
    schema,
    ...extra,
  });
  const fieldsOf = async (versions: object[]) => {
    const body = crd("hoisted", "Hoisted", "x") as { spec: { versions: object[] } };
    body.spec.versions = versions;
    const r = await api.post(CRDS, body);
    assert.equal(r.status, 422, r.text);
    return r.body.details.causes.map((c: { field: string }) => c.field);
  };
  const alike = await fieldsOf([
    version("v1", true, bad, { subresources, additionalPrinterColumns: columns }),
    version("v2", false, bad, { subresources, additionalPrinterColumns: columns }),
  ]);
  assert.deepEqual(alike, [
    "spec.validation.openAPIV3Schema.properties[spec].properties[w].pattern",
    "spec.subresources.scale.specReplicasPath",
    "spec.additionalPrinterColumns[0].name",
    "spec.additionalPrinterColumns[0].type",
  ]);
  const differing = await fieldsOf([
    version("v1", true, bad, { subresources, additionalPrinterColumns: columns }),
    version("v2", false, other),
  ]);
  assert.deepEqual(differing, [
    "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[w].pattern",
    "spec.versions[0].subresources.scale.specReplicasPath",
    "spec.versions[0].additionalPrinterColumns[0].name",
    "spec.versions[0].additionalPrinterColumns[0].type",
    "spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[w].pattern",
  ]);
});
