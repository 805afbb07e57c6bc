// Real kubectl (the one on PATH) drives the embedded server: create, apply, get -o yaml, get -w,
// patch (three types), delete, api-resources, and wait --for=condition on a CRD.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { parse } from "yaml";
import { type RunningApiServer, startApiServer } from "../../src/apiserver/index.js";

const run = promisify(execFile);
let server: RunningApiServer;
let dir: string;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run("kubectl", ["--cache-dir", join(dir, "cache"), ...args], {
    env: { ...process.env, KUBECONFIG: join(dir, "config") },
  });
  return stdout;
}

let available = true;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "kubectl-"));
  server = await startApiServer({ kubeconfigPath: join(dir, "config") });
  try {
    await run("kubectl", ["version", "--client"]);
  } catch {
    available = false;
  }
});
after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

test("kubectl create, get -o yaml, patch (strategic, json, merge) and delete", async (t) => {
  if (!available) return t.skip("kubectl not on PATH");
  await kubectl("create", "namespace", "k1");
  assert.match(
    await kubectl("-n", "k1", "create", "configmap", "c1", "--from-literal=a=b"),
    /configmap\/c1 created/,
  );
  await kubectl("-n", "k1", "patch", "configmap", "c1", "-p", '{"data":{"s":"1"}}');
  await kubectl(
    "-n",
    "k1",
    "patch",
    "configmap",
    "c1",
    "--type=json",
    "-p",
    '[{"op":"add","path":"/data/j","value":"2"}]',
  );
  await kubectl("-n", "k1", "patch", "configmap", "c1", "--type=merge", "-p", '{"data":{"m":"3"}}');
  const cm = parse(await kubectl("-n", "k1", "get", "configmap", "c1", "-o", "yaml"));
  assert.deepEqual(cm.data, { a: "b", s: "1", j: "2", m: "3" });
  assert.equal(cm.metadata.namespace, "k1");
  assert.match(await kubectl("-n", "k1", "delete", "configmap", "c1"), /deleted/);
  const list = await kubectl("-n", "k1", "get", "configmaps", "-o", "name");
  assert.doesNotMatch(list, /c1/);
});

test("kubectl apply creates then configures a Deployment; api-resources lists short names", async (t) => {
  if (!available) return t.skip("kubectl not on PATH");
  const file = join(dir, "deploy.yaml");
  const manifest = (replicas: number) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: ${replicas}\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n`;
  await writeFile(file, manifest(1));
  assert.match(await kubectl("apply", "-f", file), /created/);
  await writeFile(file, manifest(2));
  assert.match(await kubectl("apply", "-f", file), /configured/);
  const d = JSON.parse(await kubectl("get", "deploy", "web", "-o", "json"));
  assert.equal(d.spec.replicas, 2);
  assert.equal(d.metadata.generation, 2);
  const resources = await kubectl("api-resources");
  assert.match(resources, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
  assert.match(resources, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
});

test("kubectl get -w prints changes as they happen", async (t) => {
  if (!available) return t.skip("kubectl not on PATH");
  await kubectl("create", "namespace", "kw");
  const child = spawn(
    "kubectl",
    ["--cache-dir", join(dir, "cache"), "-n", "kw", "get", "configmaps", "-w", "-o", "name"],
    {
      env: { ...process.env, KUBECONFIG: join(dir, "config") },
    },
  );
  let out = "";
  const seen = new Promise<void>((resolve) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("configmap/late")) resolve();
    });
  });
  // Once the initial list is printed the watch is open; a create after it must appear.
  await new Promise<void>((resolve) => {
    const check = () =>
      out.includes("configmap/kube-root-ca.crt") || out.length > 0 ? resolve() : undefined;
    child.stdout.once("data", check);
    setImmediate(async () => {
      await kubectl("-n", "kw", "create", "configmap", "early");
    });
  });
  await kubectl("-n", "kw", "create", "configmap", "late");
  await seen;
  child.kill();
  assert.match(out, /configmap\/late/);
});

test("kubectl wait --for=condition=Established on a CRD, then uses its resource", async (t) => {
  if (!available) return t.skip("kubectl not on PATH");
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "gadgets.example.com" },
    spec: {
      group: "example.com",
      names: { kind: "Gadget", plural: "gadgets", singular: "gadget", shortNames: ["gd"] },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", properties: { size: { type: "integer", default: 3 } } } },
            },
          },
        },
      ],
    },
  };
  const file = join(dir, "crd.json");
  await writeFile(file, JSON.stringify(crd));
  await kubectl("create", "-f", file);
  assert.match(
    await kubectl("wait", "--for=condition=Established", "crd/gadgets.example.com", "--timeout=20s"),
    /condition met/,
  );
  const cr = join(dir, "cr.json");
  await writeFile(
    cr,
    JSON.stringify({
      apiVersion: "example.com/v1",
      kind: "Gadget",
      metadata: { name: "g1", namespace: "default" },
      spec: {},
    }),
  );
  await kubectl("create", "-f", cr);
  const got = JSON.parse(await kubectl("get", "gd", "g1", "-o", "json"));
  assert.equal(got.spec.size, 3);
  assert.match(await kubectl("delete", "crd", "gadgets.example.com"), /deleted/);
});
