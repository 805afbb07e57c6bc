// The embedded API server as its package ships it (scripts/bundle-apiserver.mjs): its code one
// script run with a V8 code cache, the libraries some requests need imported on their first use.
// The other tests run the server from its sources, so what only the bundle does is checked here,
// in fresh processes: each lazily imported library at work (CEL, protobuf, YAML), a fault rule
// made with the caller's controller-runtime, the bin, and the cache written once, then used,
// and never needed.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { installBuiltPackage } from "../support/built-package.js";

const run = promisify(execFile);
let dir = "";

// What a user's process does with the package: first uses of each lazily loaded library.
const SCRIPT = `
import { request } from "node:https";
import { startAPIServer } from "controller-runtime-apiserver";
import { error } from "controller-runtime/envtest/faults";

const s = await startAPIServer();
const cfg = s.restConfig();
const call = (method, path, body, headers = {}) =>
  new Promise((resolve, reject) => {
    const headersOut = { authorization: "Bearer " + cfg.auth.bearerToken, ...headers };
    const r = request(cfg.host + path, { method, ca: cfg.tls.ca, headers: headersOut }, (m) => {
      const chunks = [];
      m.on("data", (c) => chunks.push(c));
      m.on("end", () => resolve({ status: m.statusCode, body: Buffer.concat(chunks) }));
    });
    r.on("error", reject);
    r.end(body);
  });
const json = { "content-type": "application/json" };
const out = {};
out.readyz = (await call("GET", "/readyz")).status;
const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: {
      type: "object",
      properties: { spec: { type: "object", properties: { size: { type: "integer" } },
        "x-kubernetes-validations": [{ rule: "self.size > 1", message: "size must be > 1" }] } },
    } } }],
  },
};
out.crd = (await call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", JSON.stringify(crd), json)).status;
for (let i = 0; i < 200 && (await call("GET", "/apis/example.com/v1")).status !== 200; i++) {
  await new Promise((r) => setTimeout(r, 50));
}
const widget = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } };
const cel = await call("POST", "/apis/example.com/v1/namespaces/default/widgets", JSON.stringify(widget), json);
out.cel = [cel.status, JSON.parse(cel.body).message.includes("size must be > 1")];
const pb = await call("GET", "/api/v1/namespaces", undefined, { accept: "application/vnd.kubernetes.protobuf" });
out.protobuf = [pb.status, pb.body.subarray(0, 4).toString("latin1")];
// Quoted: a plain y is the boolean true in YAML 1.1, as kube reads it (a 400 for a name).
const yaml = "apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: 'y'\\ndata:\\n  a: b\\n";
out.yaml = (await call("POST", "/api/v1/namespaces/default/configmaps", yaml, { "content-type": "application/yaml" })).status;
const patched = await call("PATCH", "/api/v1/namespaces/default/configmaps/y", JSON.stringify({ data: { c: "d" } }), {
  "content-type": "application/strategic-merge-patch+json",
});
out.patch = [patched.status, JSON.parse(patched.body).data];
const fault = s.faults.inject({ match: { resource: "configmaps", verbs: ["get"] }, action: error({ code: 503 }) });
out.fault = (await call("GET", "/api/v1/namespaces/default/configmaps/y")).status;
fault.clear();
await s.stop();
console.log(JSON.stringify(out));
`;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "cr-bundle-"));
  await installBuiltPackage(dir, [], { server: true });
  writeFileSync(join(dir, "use.mjs"), SCRIPT);
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function use(env: Record<string, string>): Promise<unknown> {
  const { stdout } = await run(process.execPath, ["use.mjs"], {
    cwd: dir,
    env: { ...process.env, NODE_OPTIONS: "", ...env },
  });
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}");
}

const expected = {
  readyz: 200,
  crd: 201,
  cel: [422, true],
  protobuf: [200, "k8s\0"],
  yaml: 201,
  patch: [200, { a: "b", c: "d" }],
  fault: 503,
};

test("the bundle serves each library's first use; its code cache is written once, then read", async () => {
  const cacheHome = join(dir, "cache");
  const caches = () => readdirSync(join(cacheHome, "controller-runtime-ts", "apiserver-code"));
  const first = await use({ XDG_CACHE_HOME: cacheHome });
  assert.deepEqual(first, expected);
  const [file, ...more] = caches();
  assert.ok(file?.endsWith(".v8cache") && more.length === 0, `one cache written: ${caches().join(", ")}`);
  const written = statSync(join(cacheHome, "controller-runtime-ts", "apiserver-code", file)).mtimeMs;
  assert.deepEqual(await use({ XDG_CACHE_HOME: cacheHome }), expected);
  assert.deepEqual(caches(), [file]);
  assert.equal(
    statSync(join(cacheHome, "controller-runtime-ts", "apiserver-code", file)).mtimeMs,
    written,
    "a cache V8 accepted is not written again",
  );
});

test("without a usable cache directory the bundle starts all the same", async () => {
  // A file where the directories would be: nothing can be made under it.
  const blocked = join(dir, "not-a-directory");
  writeFileSync(blocked, "");
  assert.deepEqual(await use({ XDG_CACHE_HOME: join(blocked, "x"), TMPDIR: join(blocked, "y") }), expected);
  assert.deepEqual(await use({ CONTROLLER_RUNTIME_APISERVER_CODE_CACHE: "off" }), expected);
});

test("the bin serves until it is stopped", async () => {
  const bin = spawn(join(dir, "node_modules", ".bin", "controller-runtime-apiserver"), ["--port", "0"], {
    cwd: dir,
    env: { ...process.env, NODE_OPTIONS: "", XDG_CACHE_HOME: join(dir, "cache") },
  });
  let out = "";
  const listening = await new Promise<boolean>((resolve) => {
    bin.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      if (out.includes("admin token")) resolve(true);
    });
    bin.on("exit", () => resolve(false));
  });
  assert.ok(listening, out);
  assert.match(out, /embedded API server listening on https:\/\/127\.0\.0\.1:\d+/);
  const exited = new Promise<number | null>((resolve) => bin.on("exit", resolve));
  bin.kill("SIGTERM");
  assert.equal(await exited, 0);
});
