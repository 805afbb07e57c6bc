// End to end on the embedded API server (garbage collection on): the MarkdownView controller
// creates and updates its ConfigMap, Deployment and Service, restores what is deleted, and its
// status and Events follow the Deployment. In one namespace the simulator plays
// kube-controller-manager and the kubelet; elsewhere the tests write the Deployment's status.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import { type Kind, type KubeObject, kinds } from "controller-runtime/api";
import { type Client, newClient } from "controller-runtime/client";
import { eventually } from "controller-runtime/envtest";
import { nullLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import { isNotFound } from "controller-runtime/rest";
import { newNamespace, recordOperatorAccess } from "../shared/test-support.js";
import { setupWorkloadSimulation } from "controller-runtime/envtest";
import { MarkdownView, type MarkdownViewSpec } from "./api.js";
import { setupMarkdownViewController } from "./controller.js";
import { needs, testEnvironment } from "../../test/support/environment.js";

const rbacDir = fileURLToPath(new URL("./config/rbac", import.meta.url));
let access: ReturnType<typeof recordOperatorAccess>;
const env = testEnvironment({
  crdDirectoryPaths: [fileURLToPath(new URL("./config/crd", import.meta.url))],
  rbac: { manifestPaths: [rbacDir] },
  apiServer: { garbageCollection: true },
});
const simulated = "markdownview-simulated";
const stop = new AbortController();
let client: Client;
const running: Promise<void>[] = [];

before(async () => {
  const config = await env.start();
  client = newClient(config);
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: simulated } });

  access = recordOperatorAccess(env, rbacDir);
  // The operator runs as its ServiceAccount, with only what config/rbac grants it.
  const mgr = await Manager.create(env.rbacConfig, { logger: nullLogger(), metrics: { bindAddress: "0" } });
  await setupMarkdownViewController(mgr, mgr.getClient());
  const sim = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    cache: { defaultNamespaces: [simulated] },
  });
  setupWorkloadSimulation(sim, { podStartupMs: 200 });
  running.push(mgr.start(stop.signal), sim.start(stop.signal));
});

after(async () => {
  stop.abort();
  await Promise.all(running);
  await client.close();
  await env.stop();
});

const markdowns = { "SUMMARY.md": "# Summary\n\n- [Page1](page1.md)\n", "page1.md": "# Page 1\n" };

function createView(namespace: string, spec: MarkdownViewSpec) {
  return client.create<MarkdownView>({
    apiVersion: MarkdownView.apiVersion,
    kind: MarkdownView.kind,
    metadata: { name: "sample", namespace },
    spec,
  });
}

async function statusOf(namespace: string): Promise<string | undefined> {
  return (await client.get(MarkdownView, { namespace, name: "sample" })).status;
}

async function updatedEvents(namespace: string): Promise<string[]> {
  const events = await client.list(kinds.Event, { inNamespace: namespace });
  return events.items.filter((e) => e.reason === "Updated").map((e) => e.message ?? "");
}

async function get<T extends KubeObject>(kind: Kind<T>, namespace: string, name: string) {
  return client.get(kind, { namespace, name }).catch((err) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
}

/** Plays the Deployment controller: `available` of the Deployment's replicas are available. */
async function setAvailable(namespace: string, available: number): Promise<void> {
  await eventually("the Deployment's status written", async () => {
    const dep = await client.get(kinds.Deployment, { namespace, name: "viewer-sample" });
    return client.status().update<Deployment>({
      ...dep,
      status: { replicas: dep.spec?.replicas, availableReplicas: available, readyReplicas: available },
    });
  });
}

test("a MarkdownView gets a ConfigMap, a Deployment and a Service it controls", async () => {
  const ns = await newNamespace(client, "mdview");
  const view = await createView(ns, { markdowns });
  assert.equal(view.spec?.replicas, 1, "the CRD defaults replicas");

  const cm = await eventually("the ConfigMap", () => get(kinds.ConfigMap, ns, "markdowns-sample"));
  assert.deepEqual(cm.data, markdowns);
  const dep = await eventually("the Deployment", () => get(kinds.Deployment, ns, "viewer-sample"));
  const svc = await eventually("the Service", () => get(kinds.Service, ns, "viewer-sample"));
  for (const obj of [cm, dep, svc]) {
    assert.deepEqual(
      obj.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]),
      [["MarkdownView", "sample", view.metadata?.uid, true]],
    );
  }
  const container = dep.spec?.template.spec?.containers[0];
  assert.equal(container?.image, "peaceiris/mdbook:latest");
  assert.equal(dep.spec?.template.spec?.volumes?.[0].configMap?.name, "markdowns-sample");
  assert.deepEqual(
    svc.spec?.ports?.map((p) => [p.port, p.targetPort]),
    [[80, 3000]],
  );
  await eventually("status NotReady", async () => (await statusOf(ns)) === "NotReady");
});

test("spec changes reach the owned objects, and a deleted ConfigMap comes back", async () => {
  const ns = await newNamespace(client, "mdview-update");
  await createView(ns, { markdowns });
  await eventually("the Deployment", () => get(kinds.Deployment, ns, "viewer-sample"));

  // The controller writes the status meanwhile: an update from a stale read is refused (409), so retry.
  await eventually("the spec updated", async () => {
    const view = await client.get(MarkdownView, { namespace: ns, name: "sample" });
    return client.update<MarkdownView>({
      ...view,
      spec: { markdowns: { ...markdowns, "page2.md": "# Page 2\n" }, replicas: 3, viewerImage: "mdbook:v2" },
    });
  });
  await eventually("the new page in the ConfigMap", async () => {
    const cm = await get(kinds.ConfigMap, ns, "markdowns-sample");
    return cm?.data?.["page2.md"] === "# Page 2\n";
  });
  const dep = await eventually("the Deployment scaled and on the new image", async () => {
    const d = await get(kinds.Deployment, ns, "viewer-sample");
    return d?.spec?.replicas === 3 && d.spec.template.spec?.containers[0].image === "mdbook:v2"
      ? d
      : undefined;
  });
  assert.equal(dep.spec?.template.spec?.containers.length, 1);

  const cm = await client.get(kinds.ConfigMap, { namespace: ns, name: "markdowns-sample" });
  await client.delete(cm);
  const restored = await eventually("the ConfigMap restored", async () => {
    const c = await get(kinds.ConfigMap, ns, "markdowns-sample");
    return c && c.metadata?.uid !== cm.metadata?.uid ? c : undefined;
  });
  assert.equal(restored.data?.["page2.md"], "# Page 2\n");
});

test("ConfigMaps the view controls under another name are removed (found through the field index)", async () => {
  const ns = await newNamespace(client, "mdview-stale");
  const view = await createView(ns, { markdowns });
  await eventually("the ConfigMap", () => get(kinds.ConfigMap, ns, "markdowns-sample"));
  await client.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "sample-old-markdowns",
      namespace: ns,
      ownerReferences: [
        {
          apiVersion: MarkdownView.apiVersion,
          kind: "MarkdownView",
          name: "sample",
          uid: view.metadata!.uid!,
          controller: true,
        },
      ],
    },
  });
  // Not controlled by the view: left alone.
  await client.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "unrelated", namespace: ns },
  });
  await eventually(
    "the stale ConfigMap gone",
    async () => !(await get(kinds.ConfigMap, ns, "sample-old-markdowns")),
  );
  assert.ok(await get(kinds.ConfigMap, ns, "unrelated"));
});

test("the status follows the Deployment's available replicas, with an Event per change", async () => {
  const ns = await newNamespace(client, "mdview-status");
  await createView(ns, { markdowns, replicas: 2 });
  await eventually("status NotReady", async () => (await statusOf(ns)) === "NotReady");
  await setAvailable(ns, 1);
  await eventually("status Available", async () => (await statusOf(ns)) === "Available");
  await setAvailable(ns, 2);
  await eventually("status Healthy", async () => (await statusOf(ns)) === "Healthy");
  await setAvailable(ns, 0);
  await eventually("status NotReady again", async () => (await statusOf(ns)) === "NotReady");

  const messages = await eventually("three kinds of Updated Events", async () => {
    const m = await updatedEvents(ns);
    return m.length >= 3 ? m : undefined;
  });
  for (const s of ["NotReady", "Available", "Healthy"]) {
    assert.ok(
      messages.includes(`MarkdownView(${ns}:sample) updated: ${s}`),
      `${s} in ${messages.join("; ")}`,
    );
  }
});

test(
  "with the simulator running Pods, the view goes from NotReady to Healthy, as in the seed",
  needs("garbage-collector"),
  async () => {
    await createView(simulated, { markdowns, replicas: 2 });
    await eventually("status Healthy", async () => (await statusOf(simulated)) === "Healthy");
    const messages = await eventually("two Updated Events", async () => {
      const m = await updatedEvents(simulated);
      return m.length >= 2 ? m : undefined;
    });
    assert.ok(messages.includes(`MarkdownView(${simulated}:sample) updated: NotReady`));
    assert.ok(messages.includes(`MarkdownView(${simulated}:sample) updated: Healthy`));
    const pods = await client.list(kinds.Pod, { inNamespace: simulated });
    assert.equal(pods.items.length, 2);

    // Deleting the view deletes what it owned, down to the Pods (the garbage collector's work).
    const view = await client.get(MarkdownView, { namespace: simulated, name: "sample" });
    await client.delete(view);
    await eventually(
      "the Pods gone",
      async () => (await client.list(kinds.Pod, { inNamespace: simulated })).items.length === 0,
    );
  },
);

// Last: everything above ran as the operator's ServiceAccount.
test("config/rbac grants everything the operator did (checked from the embedded server's access record)", () => {
  access.check();
});
