import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { startAPIServer } from "controller-runtime-apiserver";
import { newRESTClient, isNotFound } from "../rest/index.js";
import {
  ControlPlaneError,
  CRDFileError,
  Environment,
  EnvironmentStateError,
  resolveSettings,
} from "./index.js";

const run = promisify(execFile);

const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.example.com
spec:
  group: test.example.com
  names: { kind: Widget, listKind: WidgetList, plural: widgets, singular: widget }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: { type: integer }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: not-a-crd }
`;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "envtest-test-"));
}

test("the default environment is the embedded server, reachable through its config and kubeconfig", async () => {
  const env = new Environment({ env: {} });
  assert.throws(() => env.config, EnvironmentStateError);
  const config = await env.start();
  try {
    assert.equal(env.started.mode, "embedded");
    const client = newRESTClient(config);
    const version = await client.request<{ major: string }>({ path: "/version" });
    assert.equal(version.major, "1");
    await client.close();
    const { stdout } = await run("kubectl", [
      "--kubeconfig",
      env.started.kubeconfigPath,
      "get",
      "namespaces",
      "-o",
      "name",
    ]);
    assert.match(stdout, /namespace\/default/);
    await assert.rejects(env.start(), EnvironmentStateError);
  } finally {
    await env.stop();
  }
});

test("CRDs from a directory are installed and served before start() resolves", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "widgets.yaml"), widgetCRD);
  writeFileSync(join(dir, "notes.txt"), "not a manifest");
  // On the server the run selects (envtest's variables): kube-apiserver serves CRDs too.
  const env = new Environment({ crdDirectoryPaths: [dir, join(dir, "missing")] });
  await env.start();
  try {
    assert.deepEqual(
      env.started.crds.map((c) => c.metadata?.name),
      ["widgets.test.example.com"],
    );
    const client = newRESTClient(env.config);
    const widgets = { group: "test.example.com", version: "v1", resource: "widgets", namespaced: true };
    const created = await client.create(
      widgets,
      { apiVersion: "test.example.com/v1", kind: "Widget", metadata: { name: "w1" }, spec: { size: 3 } },
      { namespace: "default" },
    );
    assert.equal(created.metadata?.name, "w1");
    await env.uninstallCRDs(env.started.crds);
    await assert.rejects(client.get(widgets, "w1", { namespace: "default" }), isNotFound);
    await client.close();
  } finally {
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a missing CRD path fails start() when errorIfCRDPathMissing is set", async () => {
  // CRD files are read before any server starts, whichever the run selects.
  const env = new Environment({
    crdDirectoryPaths: ["/nonexistent/crds"],
    errorIfCRDPathMissing: true,
  });
  await assert.rejects(
    env.start(),
    (err) => err instanceof CRDFileError && /\/nonexistent\/crds/.test(err.message),
  );
});

test("KUBEBUILDER_ASSETS without the binaries names the missing binary", async () => {
  const dir = tempDir();
  try {
    const env = new Environment({ env: { KUBEBUILDER_ASSETS: dir } });
    await assert.rejects(
      env.start(),
      (err) => err instanceof ControlPlaneError && err.message.includes(join(dir, "etcd")),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("USE_EXISTING_CLUSTER uses the current kubeconfig's cluster", async () => {
  const dir = tempDir();
  const kubeconfigPath = join(dir, "config");
  const server = await startAPIServer({ kubeconfigPath });
  try {
    const env = new Environment({ env: { USE_EXISTING_CLUSTER: "true", KUBECONFIG: kubeconfigPath } });
    const config = await env.start();
    assert.equal(env.started.mode, "existing");
    assert.equal(config.host, server.url);
    const client = newRESTClient(config);
    const ns = await client.get({ group: "", version: "v1", resource: "namespaces" }, "kube-system");
    assert.equal(ns.metadata?.name, "kube-system");
    await client.close();
    await env.stop();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a kubeconfig written over an existing readable file is made private: it holds the admin's key", async () => {
  const dir = tempDir();
  const kubeconfigPath = join(dir, "config");
  writeFileSync(kubeconfigPath, "old", { mode: 0o644 });
  const server = await startAPIServer({ kubeconfigPath });
  try {
    assert.equal(statSync(kubeconfigPath).mode & 0o777, 0o600);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("settings follow controller-runtime's variables, options first", () => {
  assert.equal(resolveSettings({}, {}).mode, "embedded");
  assert.equal(
    resolveSettings({}, { USE_EXISTING_CLUSTER: "true", KUBEBUILDER_ASSETS: "/a" }).mode,
    "existing",
  );
  const binaries = resolveSettings({}, { KUBEBUILDER_ASSETS: "/assets" });
  assert.equal(binaries.mode, "binaries");
  assert.equal(binaries.etcdPath, "/assets/etcd");
  assert.equal(binaries.kubeApiserverPath, "/assets/kube-apiserver");
  const explicit = resolveSettings({}, { TEST_ASSET_ETCD: "/e", TEST_ASSET_KUBE_APISERVER: "/k" });
  assert.equal(explicit.mode, "binaries");
  assert.equal(explicit.kubeApiserverPath, "/k");
  assert.equal(
    resolveSettings({ useExistingCluster: false }, { USE_EXISTING_CLUSTER: "1" }).mode,
    "embedded",
  );
  assert.equal(resolveSettings({}, { KUBEBUILDER_CONTROLPLANE_START_TIMEOUT: "90s" }).startTimeoutMs, 90_000);
  assert.throws(() => resolveSettings({}, { KUBEBUILDER_CONTROLPLANE_START_TIMEOUT: "soon" }), /duration/);
});
