// Bodies nested deeper than any decoder accepts: kube's decoders stop at 10 000 levels, the
// embedded server at 1 000 (JSON) and 500 (YAML), where its recursive walks are still safe.
// Before the limits, a YAML body 100 000 deep crashed the embedded server's process.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { embedded, needs } from "../support/environment.js";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("deep");
  const r = await api.post(`/api/v1/namespaces/${ns}/configmaps`, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "target" },
  });
  assert.equal(r.status, 201, r.text);
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const nestJson = (d: number) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`;
const configMapJson = (name: string, x: string) =>
  `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"x":${x}}`;
const configMapYaml = (name: string, x: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\nx:${x}\n`;
const flowYaml = (d: number) => ` ${"[".repeat(d)}1${"]".repeat(d)}`;
const blockYaml = (d: number) => `\n${"- ".repeat(d)}1`;

function bodies(depth: number) {
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  return [
    {
      what: "JSON create",
      method: "POST",
      path: cms,
      ct: "application/json",
      body: configMapJson("deep", nestJson(depth)),
      message:
        /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: invalid character '\{' exceeded max depth \(\{"apiVersion":"v1","kind":"Con \.\.\.\)$/,
    },
    {
      what: "JSON update",
      method: "PUT",
      path: `${cms}/target`,
      ct: "application/json",
      body: configMapJson("target", nestJson(depth)),
      message: /json parse error: invalid character '\{' exceeded max depth/,
    },
    {
      what: "YAML create, flow",
      method: "POST",
      path: cms,
      ct: "application/yaml",
      body: configMapYaml("deep", flowYaml(depth)),
      message:
        /^the object provided is unrecognized \(must be of type ConfigMap\): yaml: (line \d+: )?exceeded max depth of \d+ \([0-9a-f]{60} \.\.\.\)$/,
    },
    {
      what: "YAML create, compact block",
      method: "POST",
      path: cms,
      ct: "application/yaml",
      body: configMapYaml("deep", blockYaml(depth)),
      message: /yaml: (line \d+: )?exceeded max depth of \d+/,
    },
    // kube 1.37 checks a JSON, merge or strategic patch with Go's json.Valid (10 000 levels at
    // most) before decoding it.
    {
      what: "merge patch",
      method: "PATCH",
      path: `${cms}/target`,
      ct: "application/merge-patch+json",
      body: `{"x":${nestJson(depth)}}`,
      message: /^invalid JSON patch$/,
    },
    {
      what: "JSON patch",
      method: "PATCH",
      path: `${cms}/target`,
      ct: "application/json-patch+json",
      body: `[{"op":"add","path":"/x","value":${nestJson(depth)}}]`,
      message: /^invalid JSON patch$/,
    },
    {
      what: "strategic merge patch",
      method: "PATCH",
      path: `${cms}/target`,
      ct: "application/strategic-merge-patch+json",
      body: `{"x":${nestJson(depth)}}`,
      message: /^invalid JSON patch$/,
    },
    {
      what: "apply, JSON",
      method: "PATCH",
      path: `${cms}/target?fieldManager=m`,
      ct: "application/apply-patch+yaml",
      body: configMapJson("target", nestJson(depth)),
      message: /^error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of \d+$/,
    },
    {
      what: "apply, YAML",
      method: "PATCH",
      path: `${cms}/target?fieldManager=m`,
      ct: "application/apply-patch+yaml",
      body: configMapYaml("target", flowYaml(depth)),
      message:
        /^error decoding YAML: error converting YAML to JSON: yaml: (line \d+: )?exceeded max depth of \d+$/,
    },
  ];
}

async function assertRefused(depth: number): Promise<void> {
  for (const b of bodies(depth)) {
    const r = await api.call(b.method, b.path, b.body, { contentType: b.ct });
    assert.equal(r.status, 400, `${b.what}: ${r.text.slice(0, 300)}`);
    assert.equal(r.body.reason, "BadRequest", b.what);
    assert.match(r.body.message, b.message, b.what);
  }
  assert.equal((await api.get("/readyz")).status, 200);
}

test("bodies nested 100 000 deep are a 400 with the decoders' words, however the body is decoded", async () => {
  await assertRefused(100_000);
});

test(
  "the embedded server refuses past its own limits in the same words",
  needs("embedded-behaviour"),
  async () => {
    assert.ok(embedded);
    await assertRefused(1_001);
    // Within the limits every way of writing succeeds.
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    assert.equal((await api.call("POST", cms, configMapJson("ok", nestJson(990)))).status, 201);
    const yaml = configMapYaml("ok-yaml", blockYaml(490));
    assert.equal((await api.call("POST", cms, yaml, { contentType: "application/yaml" })).status, 201);
    assert.equal(
      (
        await api.call("PATCH", `${cms}/target`, `{"x":${nestJson(990)}}`, {
          contentType: "application/merge-patch+json",
        })
      ).status,
      200,
    );
  },
);
