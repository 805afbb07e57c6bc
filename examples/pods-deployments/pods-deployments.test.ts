// End to end on the embedded API server: the pod and deployment reconcilers are called for
// creates and deletes, and say so in the log, as the seed's output shows.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { kinds } from "controller-runtime/api";
import { type Client, newClient } from "controller-runtime/client";
import { eventually } from "controller-runtime/envtest";
import { newLogger, nullLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import { fileURLToPath } from "node:url";
import { newNamespace, recordOperatorAccess } from "../shared/test-support.js";
import { setupPodsAndDeployments } from "./controllers.js";
import { testEnvironment } from "../../test/support/environment.js";

const rbacDir = fileURLToPath(new URL("./config/rbac", import.meta.url));
const env = testEnvironment({ rbac: { manifestPaths: [rbacDir] } });
let access: ReturnType<typeof recordOperatorAccess>;
const stop = new AbortController();
const lines: { msg: string; req?: string }[] = [];
let client: Client;
let managerDone: Promise<void>;

before(async () => {
  const config = await env.start();
  client = newClient(config);
  // The examples' log lines, as JSON, kept for the tests to read.
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  access = recordOperatorAccess(env, rbacDir);
  // The operator runs as its ServiceAccount, with only what config/rbac grants it.
  const mgr = await Manager.create(env.rbacConfig, { logger: nullLogger(), metrics: { bindAddress: "0" } });
  setupPodsAndDeployments(mgr, newLogger({ destination }));
  managerDone = mgr.start(stop.signal);
});

after(async () => {
  stop.abort();
  await managerDone;
  await client.close();
  await env.stop();
});

const calls = (msg: string, req: string) => lines.filter((l) => l.msg === msg && l.req === req).length;

test("the RunnableFunc is called once the manager runs", async () => {
  await eventually("RunnableFunc is called", () => lines.some((l) => l.msg === "RunnableFunc is called"));
});

test("the pod reconciler is called when a Pod is created and when it is deleted", async () => {
  const ns = await newNamespace(client, "pods");
  const key = `${ns}/nginx`;
  const pod = await client.create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "nginx", namespace: ns },
    spec: { containers: [{ name: "nginx", image: "nginx" }] },
  });
  await eventually("a call for the new Pod", () => calls("podReconciler is called", key) >= 1);
  const before = calls("podReconciler is called", key);
  await client.delete(pod);
  await eventually("a call for the deleted Pod", () => calls("podReconciler is called", key) > before);
});

test("the deployment reconciler is called when a Deployment is created and when it is deleted", async () => {
  const ns = await newNamespace(client, "deployments");
  const key = `${ns}/nginx`;
  const labels = { app: "nginx" };
  const dep = await client.create({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "nginx", namespace: ns },
    spec: {
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "nginx", image: "nginx" }] } },
    },
  });
  await eventually("a call for the new Deployment", () => calls("deploymentReconciler is called", key) >= 1);
  const before = calls("deploymentReconciler is called", key);
  await client.delete(dep);
  await eventually(
    "a call for the deleted Deployment",
    () => calls("deploymentReconciler is called", key) > before,
  );
  assert.equal(calls("podReconciler is called", key), 0, "Deployments do not reach the pod reconciler");
  assert.ok((await client.list(kinds.Deployment, { inNamespace: ns })).items.length === 0);
});

// Last: everything above ran as the operator's ServiceAccount.
test("config/rbac grants everything the operator did (checked from the embedded server's access record)", () => {
  access.check();
});
