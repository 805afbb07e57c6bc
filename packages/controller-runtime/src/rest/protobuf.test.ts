// The REST client in kube's protobuf, against a real API server (embedded, or kube-apiserver with
// KUBEBUILDER_ASSETS): every verb on built-in kinds goes over the wire as protobuf (the
// transport records the headers), and what it reads is exactly what a JSON client reads of the
// same object: times, quantities, int-or-strings, bytes, managedFields, empty and unset fields.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap, Namespace, Pod, Secret, Service } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import type { RESTConfig } from "./config.js";
import { isAlreadyExists, isConflict, isNotFound } from "./status-reasons.js";
import { resourceOf } from "./resource-path.js";
import { newRESTClient, type RESTClient } from "./rest-client.js";
import { ACCEPT_PARTIAL_METADATA, ACCEPT_PARTIAL_METADATA_LIST } from "./rest-options.js";
import { newTransport, type Transport } from "./transport.js";
import type { Warning } from "./warnings.js";
import type { WatchEvent } from "./watch.js";

const PB = "application/vnd.kubernetes.protobuf";
const cms = resourceOf(kinds.ConfigMap);
const pods = resourceOf(kinds.Pod);
const secrets = resourceOf(kinds.Secret);
const services = resourceOf(kinds.Service);
const deployments = resourceOf(kinds.Deployment);
const namespaces = resourceOf(kinds.Namespace);
const resourceQuotas = { group: "", version: "v1", resource: "resourcequotas" };

interface Exchange {
  method: string;
  path: string;
  accept?: string;
  requestType?: string;
  responseType?: string;
}

/** A transport that records each exchange's media types, as they go over the wire. */
function recordingTransport(config: RESTConfig): { transport: Transport; seen: Exchange[] } {
  const inner = newTransport(config);
  const seen: Exchange[] = [];
  const transport: Transport = Object.create(inner);
  transport.send = async (req) => {
    const res = await inner.send(req);
    seen.push({
      method: req.method,
      path: req.path,
      accept: req.headers?.accept,
      requestType: req.headers?.["content-type"],
      responseType: String(res.headers["content-type"]),
    });
    return res;
  };
  return { transport, seen };
}

const env = testEnvironment();
let config: RESTConfig;
let pb: RESTClient;
let json: RESTClient;
let seen: Exchange[];
let warnings: Warning[];

before(async () => {
  config = await env.start();
  const rec = recordingTransport(config);
  seen = rec.seen;
  warnings = [];
  pb = newRESTClient(config, { transport: rec.transport, onWarning: (w) => warnings.push(w) });
  json = newRESTClient(config, { contentType: "application/json", onWarning: null });
});
after(async () => {
  await pb?.close();
  await json?.close();
  await env.stop();
});

async function namespace(name: string): Promise<string> {
  await json.create<Namespace>(namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

/** The last exchange of `method` on a path containing `part`. */
function last(method: string, part: string): Exchange {
  const found = seen.filter((e) => e.method === method && e.path.includes(part)).at(-1);
  assert.ok(found, `no ${method} of ${part} went over the wire`);
  return found;
}

const deployment = (name: string): Deployment => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, labels: { app: name }, annotations: { note: "ünïcödé ✓" } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 1 } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          {
            name: "c",
            image: "nginx",
            ports: [{ containerPort: 80, name: "http" }],
            resources: { limits: { cpu: "500m", memory: "1Gi" }, requests: { cpu: "0.1", memory: "64Mi" } },
            readinessProbe: { httpGet: { path: "/", port: "http" }, periodSeconds: 5 },
            livenessProbe: { tcpSocket: { port: 80 } },
          },
        ],
        terminationGracePeriodSeconds: 0,
      },
    },
  },
});

test("create, get, list, update, patch and delete of a Deployment go in protobuf and read as JSON does", async () => {
  const ns = await namespace("pb-deployments");
  const created = await pb.create<Deployment>(deployments, deployment("web"), { namespace: ns });
  const post = last("POST", `/namespaces/${ns}/deployments`);
  assert.equal(post.requestType, PB);
  assert.equal(post.accept, `${PB}, */*`);
  assert.equal(post.responseType, PB);
  // What protobuf read is what JSON reads of the same version of the object.
  const viaJson = await json.get<Deployment>(deployments, "web", { namespace: ns });
  assert.deepEqual(created, viaJson);
  assert.equal(created.spec?.strategy?.rollingUpdate?.maxSurge, "25%");
  assert.equal(created.spec?.strategy?.rollingUpdate?.maxUnavailable, 1);
  assert.equal(created.spec?.template.spec?.containers[0]?.readinessProbe?.httpGet?.port, "http");
  assert.equal(created.spec?.template.spec?.containers[0]?.livenessProbe?.tcpSocket?.port, 80);
  assert.equal(created.spec?.template.spec?.containers[0]?.resources?.limits?.memory, "1Gi");
  assert.equal(created.metadata?.annotations?.note, "ünïcödé ✓");
  assert.match(String(created.metadata?.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.ok(created.metadata?.managedFields?.[0]?.fieldsV1, "managedFields with their fieldsV1 JSON");

  const got = await pb.get<Deployment>(deployments, "web", { namespace: ns });
  assert.equal(last("GET", `/deployments/web`).responseType, PB);
  assert.deepEqual(got, viaJson);

  const list = await pb.list<Deployment>(deployments, { namespace: ns });
  assert.equal(last("GET", `/namespaces/${ns}/deployments`).responseType, PB);
  const listJson = await json.list<Deployment>(deployments, { namespace: ns });
  assert.deepEqual(list, { ...listJson, metadata: list.metadata });
  assert.equal(list.kind, "DeploymentList");
  assert.equal(list.apiVersion, "apps/v1");

  const updated = await pb.update<Deployment>(deployments, { ...got, spec: { ...got.spec!, replicas: 3 } });
  assert.equal(last("PUT", "/deployments/web").requestType, PB);
  assert.equal(updated.spec?.replicas, 3);

  // Patches stay JSON (kube reads no protobuf patch); the answer is protobuf.
  const patched = await pb.patch<Deployment>(
    deployments,
    "web",
    [{ op: "replace", path: "/spec/replicas", value: 0 }],
    { namespace: ns, patchType: "json" },
  );
  const patch = last("PATCH", "/deployments/web");
  assert.equal(patch.requestType, "application/json-patch+json");
  assert.equal(patch.responseType, PB);
  // replicas is a pointer: a zero is kept, as JSON has it.
  assert.equal(patched.spec?.replicas, 0);
  assert.deepEqual(patched, await json.get<Deployment>(deployments, "web", { namespace: ns }));

  await pb.delete(deployments, "web", { namespace: ns, gracePeriodSeconds: 0 });
  const del = last("DELETE", "/deployments/web");
  assert.equal(del.requestType, PB, "DeleteOptions in protobuf, as client-go sends them");
  await assert.rejects(pb.get(deployments, "web", { namespace: ns }), isNotFound);
});

test("errors come back as protobuf Status: NotFound, AlreadyExists, Conflict", async () => {
  const ns = await namespace("pb-errors");
  const err = await pb.get(pods, "missing", { namespace: ns }).catch((e: unknown) => e);
  assert.ok(isNotFound(err), String(err));
  assert.equal(last("GET", "/pods/missing").responseType, PB);
  assert.match((err as Error).message, /pods "missing" not found/);

  const cm: ConfigMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "once" }, data: { a: "1" } };
  const first = await pb.create<ConfigMap>(cms, cm, { namespace: ns });
  await assert.rejects(pb.create(cms, cm, { namespace: ns }), isAlreadyExists);
  assert.equal(last("POST", `/namespaces/${ns}/configmaps`).responseType, PB);
  await pb.update<ConfigMap>(cms, { ...first, data: { a: "2" } });
  await assert.rejects(pb.update<ConfigMap>(cms, { ...first, data: { a: "3" } }), isConflict);
});

test("Pods and ConfigMaps: empty and unset fields, unicode, and what JSON reads", async () => {
  const ns = await namespace("pb-pods");
  const cmEmpty = await pb.create<ConfigMap>(
    cms,
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "empty", labels: {} }, data: {} },
    { namespace: ns },
  );
  const cmFull = await pb.create<ConfigMap>(
    cms,
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "full" }, data: { e: "", k: "v\n✓" } },
    { namespace: ns },
  );
  assert.deepEqual(cmEmpty, await json.get(cms, "empty", { namespace: ns }));
  assert.deepEqual(cmFull, await json.get(cms, "full", { namespace: ns }));
  assert.equal(cmEmpty.data, undefined, "an empty map is left out, as JSON leaves it out");
  assert.deepEqual(cmFull.data, { e: "", k: "v\n✓" });

  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", finalizers: [] },
    spec: {
      containers: [
        { name: "c", image: "busybox", command: ["sh", "-c", ""], env: [{ name: "E", value: "" }] },
      ],
      securityContext: { runAsUser: 0, runAsNonRoot: false },
      activeDeadlineSeconds: 10,
    },
  };
  const created = await pb.create<Pod>(pods, pod, { namespace: ns });
  const viaJson = await json.get<Pod>(pods, "p", { namespace: ns });
  assert.deepEqual(created, viaJson);
  // Pointers to zero values stay set; empty strings in lists stay.
  assert.equal(created.spec?.securityContext?.runAsUser, 0);
  assert.equal(created.spec?.securityContext?.runAsNonRoot, false);
  assert.deepEqual(created.spec?.containers[0]?.command, ["sh", "-c", ""]);
  const pods1 = await pb.list<Pod>(pods, { namespace: ns });
  assert.deepEqual(pods1.items, (await json.list<Pod>(pods, { namespace: ns })).items);
});

test("Secret data are bytes: any byte survives protobuf both ways", async () => {
  const ns = await namespace("pb-secrets");
  const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const secret: Secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s" },
    type: "Opaque",
    data: { all: bytes.toString("base64"), empty: "" },
    stringData: { text: "plain ✓" },
  };
  const created = await pb.create<Secret>(secrets, secret, { namespace: ns });
  assert.equal(last("POST", `/namespaces/${ns}/secrets`).requestType, PB);
  assert.equal(created.data?.all, bytes.toString("base64"));
  assert.equal(created.data?.empty, "");
  assert.equal(Buffer.from(String(created.data?.text), "base64").toString("utf8"), "plain ✓");
  assert.deepEqual(created, await json.get(secrets, "s", { namespace: ns }));
});

test("a Service's int-or-string ports and a quantity written as a number", async () => {
  const ns = await namespace("pb-services");
  const svc: Service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "svc" },
    spec: {
      selector: { app: "x" },
      ports: [
        { name: "a", port: 80, targetPort: 8080 },
        { name: "b", port: 81, targetPort: "named" },
      ],
    },
  };
  const created = await pb.create<Service>(services, svc, { namespace: ns });
  assert.deepEqual(
    created.spec?.ports?.map((p) => p.targetPort),
    [8080, "named"],
  );
  assert.deepEqual(created, await json.get(services, "svc", { namespace: ns }));
  const quota = {
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: { name: "q" },
    spec: { hard: { pods: 10, "requests.cpu": "1.5" } },
  };
  const q = await pb.create<typeof quota>(resourceQuotas, quota as never, { namespace: ns });
  assert.equal((q.spec as unknown as { hard: Record<string, string> }).hard.pods, "10");
  assert.deepEqual(q, await json.get(resourceQuotas, "q", { namespace: ns }));
});

test("a field kube's message does not know goes as JSON, so the server warns about it", async () => {
  const ns = await namespace("pb-unknown");
  warnings.length = 0;
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "u" }, data: { a: "1" }, extra: 1 };
  await pb.create(cms, cm as never, { namespace: ns });
  assert.equal(last("POST", `/namespaces/${ns}/configmaps`).requestType, "application/json");
  assert.ok(
    warnings.some((w) => /unknown field "extra"/.test(w.text)),
    `warnings: ${JSON.stringify(warnings)}`,
  );
  await assert.rejects(
    pb.create(cms, { ...cm, metadata: { name: "strict" } } as never, {
      namespace: ns,
      fieldValidation: "Strict",
    }),
    /unknown field "extra"/,
  );
});

test("metadata-only get and list ask for protobuf first, as client-go's metadata client", async () => {
  const ns = await namespace("pb-metadata");
  await pb.create<ConfigMap>(
    cms,
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "m", labels: { a: "b" } }, data: { big: "x" } },
    { namespace: ns },
  );
  const one = await pb.get(cms, "m", { namespace: ns, accept: ACCEPT_PARTIAL_METADATA });
  const getEx = last("GET", "/configmaps/m");
  assert.match(String(getEx.accept), /^application\/vnd\.kubernetes\.protobuf;as=PartialObjectMetadata;/);
  assert.equal(getEx.responseType, PB);
  assert.deepEqual(one, await json.get(cms, "m", { namespace: ns, accept: ACCEPT_PARTIAL_METADATA }));
  const list = await pb.list(cms, { namespace: ns, accept: ACCEPT_PARTIAL_METADATA_LIST });
  assert.equal(last("GET", `/namespaces/${ns}/configmaps`).responseType, PB);
  const listJson = await json.list(cms, { namespace: ns, accept: ACCEPT_PARTIAL_METADATA_LIST });
  assert.deepEqual(list.items, listJson.items);
  assert.equal(list.kind, "PartialObjectMetadataList");
  const empty = await pb.list(cms, {
    namespace: "default",
    accept: ACCEPT_PARTIAL_METADATA_LIST,
    labelSelector: "none=none",
  });
  assert.deepEqual(empty.items, []);
});

test("a watch in protobuf: length-prefixed frames whose events read as the JSON watch's", async () => {
  const ns = await namespace("pb-watch");
  const start = await json.list(cms, { namespace: ns });
  const rv = start.metadata?.resourceVersion;
  const pbWatch = await pb.watch<ConfigMap>(cms, { namespace: ns, resourceVersion: rv });
  assert.equal(last("GET", `/namespaces/${ns}/configmaps?`).responseType, `${PB};stream=watch`);
  const jsonWatch = await json.watch<ConfigMap>(cms, { namespace: ns, resourceVersion: rv });
  const cm = await pb.create<ConfigMap>(
    cms,
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "w" }, data: { a: "1" } },
    { namespace: ns },
  );
  await pb.update<ConfigMap>(cms, { ...cm, data: { a: "2" }, binaryData: { b: "AAE=" } });
  await pb.delete(cms, "w", { namespace: ns });
  const take = async (w: AsyncIterator<WatchEvent<ConfigMap>>) => {
    const out: WatchEvent<ConfigMap>[] = [];
    while (out.length < 3) {
      const r = await w.next();
      if (r.done) break;
      out.push(r.value);
    }
    return out;
  };
  const [viaPb, viaJson] = await Promise.all([take(pbWatch), take(jsonWatch)]);
  await pbWatch.return();
  await jsonWatch.return();
  assert.deepEqual(
    viaPb.map((e) => e.type),
    ["ADDED", "MODIFIED", "DELETED"],
  );
  assert.deepEqual(viaPb, viaJson);
  assert.equal(viaPb[1]?.object.kind, "ConfigMap");
  assert.equal((viaPb[1]!.object as ConfigMap).binaryData?.b, "AAE=");
});

test("omitManagedFields: a protobuf list and watch leave managedFields undecoded, the rest as read", async () => {
  const ns = await namespace("pb-omit-managed");
  const cm = await pb.create<ConfigMap>(
    cms,
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "m", labels: { a: "b" } }, data: { a: "1" } },
    { namespace: ns },
  );
  assert.ok(cm.metadata?.managedFields);
  const list = await pb.list<ConfigMap>(cms, { namespace: ns, omitManagedFields: true });
  const { managedFields: _, ...meta } = cm.metadata!;
  const { apiVersion: _v, kind: _k, ...item } = cm;
  assert.deepEqual(list.items[0], { ...item, metadata: meta });
  assert.equal((list.items[0]!.metadata as { managedFields?: unknown }).managedFields, undefined);
  assert.deepEqual(list.items[0]?.data, cm.data);
  const w = await pb.watch<ConfigMap>(cms, {
    namespace: ns,
    resourceVersion: list.metadata?.resourceVersion,
    omitManagedFields: true,
  });
  await pb.update<ConfigMap>(cms, { ...cm, data: { a: "2" } });
  const ev = await w.next();
  await w.return();
  assert.equal(ev.done, false);
  const obj = (ev.value as WatchEvent<ConfigMap>).object as ConfigMap;
  assert.equal(obj.metadata?.managedFields, undefined);
  assert.deepEqual(obj.data, { a: "2" });
  assert.deepEqual(obj.metadata?.labels, { a: "b" });
});
