// YAML keys repeated in one map, as kube-apiserver 1.37 reads them with go-yaml: accepted (the
// last value wins), each repeat a warning under Warn (the default), all of them a 400 under Strict,
// in go-yaml's words with their lines; for apply, checked after the merge.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, configMap, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("yk");
  assert.equal((await api.post(cms(), configMap("c", { x: "1" }))).status, 201);
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const cms = () => `/api/v1/namespaces/${ns}/configmaps`;
const body = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  a: "2"\n  b: "3"\n  b: "4"\n`;
const YAML = { contentType: "application/yaml" };
const APPLY = { contentType: "application/apply-patch+yaml" };
const warnings = [
  '299 - "line 7: key \\"a\\" already set in map"',
  '299 - "line 9: key \\"b\\" already set in map"',
];
const repeats =
  'yaml: unmarshal errors:\n  line 7: key "a" already set in map\n  line 9: key "b" already set in map';

test("a create takes the last value, with a warning for each repeat; Ignore says nothing", async () => {
  const r = await api.call("POST", cms(), body("warned"), YAML);
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.body.data, { a: "2", b: "4" });
  assert.deepEqual(r.headers.get("warning")?.split(", "), warnings);
  const quiet = await api.call("POST", `${cms()}?fieldValidation=Ignore`, body("quiet"), YAML);
  assert.equal(quiet.status, 201, quiet.text);
  assert.equal(quiet.headers.get("warning"), null);
});

test("under Strict a create is refused, naming every repeat", async () => {
  const r = await api.call("POST", `${cms()}?fieldValidation=Strict`, body("strict"), YAML);
  assert.equal(r.status, 400, r.text);
  assert.equal(
    r.body.message,
    `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: ${repeats}`,
  );
});

test("an apply: warned, or under Strict refused as the patcher's strict decoding", async () => {
  const warned = await api.call("PATCH", `${cms()}/c?fieldManager=m`, body("c"), APPLY);
  assert.equal(warned.status, 200, warned.text);
  assert.deepEqual(warned.body.data, { a: "2", b: "4", x: "1" });
  assert.deepEqual(warned.headers.get("warning")?.split(", "), warnings);
  const strict = await api.call(
    "PATCH",
    `${cms()}/c?fieldManager=m&fieldValidation=Strict`,
    body("c"),
    APPLY,
  );
  assert.equal(strict.status, 400, strict.text);
  assert.equal(strict.body.message, `error strict decoding patch: error converting YAML to JSON: ${repeats}`);
});

test("an apply configuration that is a list: the patcher's JSON decoding refuses it", async () => {
  const r = await api.call("PATCH", `${cms()}/c?fieldManager=m`, "- a\n- b\n", APPLY);
  assert.equal(r.status, 400, r.text);
  assert.equal(
    r.body.message,
    "error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}",
  );
});
