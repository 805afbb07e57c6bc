// Request bodies in kube's protobuf encoding, as client-go's typed clients and controller-runtime's
// client send built-in kinds. The bodies are written as Go's (gogo) encoder writes them: every
// non-pointer field, zero or not, so the server must know which zeros Go would leave out of JSON.
// Each object created through protobuf must equal the same object created through JSON.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { create, type DescMessage, toBinary } from "@bufbuild/protobuf";
import { decodeProtobuf, decodeWatchEvent } from "controller-runtime/protobuf";
import { message } from "../../packages/controller-runtime/src/protobuf/schema.js";
import { Api, startTarget, type Target } from "./harness.js";

const PROTOBUF = "application/vnd.kubernetes.protobuf";
let target: Target;
let api: Api;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("pb");
});
after(() => target.close());

function desc(name: string): DescMessage {
  const d = message(name);
  assert.ok(d, name);
  return d;
}

/** "k8s\0" and a runtime.Unknown holding the message, as client-go's protobuf serializer frames it. */
function envelope(
  apiVersion: string,
  kind: string,
  typeName: string,
  init: Record<string, unknown>,
): Uint8Array {
  const d = desc(typeName);
  return framed(apiVersion, kind, toBinary(d, create(d, init as never)));
}

/** `raw`, a message's bytes, in the envelope client-go's protobuf serializer writes. */
function framed(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const unknown = desc("k8s.io.apimachinery.pkg.runtime.Unknown");
  const message = toBinary(
    unknown,
    create(unknown, { typeMeta: { apiVersion, kind }, raw, contentEncoding: "", contentType: "" } as never),
  );
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0]), message]);
}

/** ObjectMeta as Go writes a struct with only a name set: every non-pointer field, zero. */
const goMeta = (name: string) => ({
  name,
  generateName: "",
  namespace: "",
  selfLink: "",
  uid: "",
  resourceVersion: "",
  generation: 0n,
  creationTimestamp: {},
});

const intOrString = (v: number | string) =>
  typeof v === "number" ? { type: 0n, intVal: v, strVal: "" } : { type: 1n, intVal: 0, strVal: v };

function deploymentProto(name: string) {
  return {
    metadata: goMeta(name),
    spec: {
      replicas: 0, // a pointer: zero is kept
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { ...goMeta(""), labels: { app: name } },
        spec: {
          containers: [
            {
              name: "c",
              image: "nginx",
              workingDir: "",
              ports: [{ name: "", hostPort: 0, containerPort: 80, protocol: "TCP", hostIP: "" }],
              resources: { limits: { cpu: { string: "100m" } }, requests: { memory: { string: "64Mi" } } },
              readinessProbe: {
                handler: { httpGet: { path: "/", port: intOrString("http"), host: "", scheme: "HTTP" } },
                initialDelaySeconds: 0,
                timeoutSeconds: 3,
                periodSeconds: 10,
                successThreshold: 1,
                failureThreshold: 3,
              },
              terminationMessagePath: "",
              imagePullPolicy: "",
              stdin: false,
              stdinOnce: false,
              tty: false,
            },
          ],
          volumes: [
            { name: "scratch", volumeSource: { emptyDir: { medium: "", sizeLimit: { string: "1Gi" } } } },
          ],
          restartPolicy: "",
          dnsPolicy: "",
          serviceAccountName: "",
          hostNetwork: false,
          hostPID: false,
          hostIPC: false,
          hostname: "",
          subdomain: "",
          schedulerName: "",
          priorityClassName: "",
        },
      },
      strategy: {
        type: "RollingUpdate",
        rollingUpdate: { maxUnavailable: intOrString(1), maxSurge: intOrString("50%") },
      },
      minReadySeconds: 0,
      paused: false,
    },
    status: {},
  };
}

function deploymentJson(name: string) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: "c",
              image: "nginx",
              ports: [{ containerPort: 80, protocol: "TCP" }],
              resources: { limits: { cpu: "100m" }, requests: { memory: "64Mi" } },
              readinessProbe: {
                httpGet: { path: "/", port: "http", scheme: "HTTP" },
                timeoutSeconds: 3,
                periodSeconds: 10,
                successThreshold: 1,
                failureThreshold: 3,
              },
            },
          ],
          volumes: [{ name: "scratch", emptyDir: { sizeLimit: "1Gi" } }],
        },
      },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: "50%" } },
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: comparing JSON answers
const withoutIdentity = (obj: any) => {
  const { uid, resourceVersion, creationTimestamp, name, managedFields, ...meta } = obj.metadata;
  return { ...obj, metadata: meta, spec: JSON.parse(JSON.stringify(obj.spec).replaceAll(name, "NAME")) };
};

test("a Deployment sent as protobuf is the Deployment sent as JSON: Go's zeros, quantities, int-or-strings, inlined structs", async () => {
  const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const viaProto = await api.post(
    path,
    envelope("apps/v1", "Deployment", "k8s.io.api.apps.v1.Deployment", deploymentProto("pb")),
    {
      contentType: PROTOBUF,
    },
  );
  assert.equal(viaProto.status, 201, viaProto.text);
  const viaJson = await api.post(path, deploymentJson("js"));
  assert.equal(viaJson.status, 201, viaJson.text);
  assert.deepEqual(withoutIdentity(viaProto.body), withoutIdentity(viaJson.body));
  assert.equal(viaProto.body.spec.replicas, 0);
  assert.equal(viaProto.body.metadata.generateName, undefined);
  assert.deepEqual(
    viaProto.body.metadata.managedFields[0].fieldsV1,
    viaJson.body.metadata.managedFields[0].fieldsV1,
  );
});

test("Secret bytes, a status-less kind, and an update sent as protobuf", async () => {
  const path = `/api/v1/namespaces/${ns}/secrets`;
  const secret = {
    metadata: goMeta("s"),
    data: { key: new Uint8Array([0, 1, 2, 255]) },
    type: "Opaque",
  };
  const created = await api.post(path, envelope("v1", "Secret", "k8s.io.api.core.v1.Secret", secret), {
    contentType: PROTOBUF,
  });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.body.data, { key: Buffer.from([0, 1, 2, 255]).toString("base64") });
  assert.equal(created.body.type, "Opaque");

  const update = {
    ...secret,
    metadata: { ...goMeta("s"), resourceVersion: created.body.metadata.resourceVersion, labels: { a: "b" } },
  };
  const updated = await api.put(`${path}/s`, envelope("v1", "Secret", "k8s.io.api.core.v1.Secret", update), {
    contentType: PROTOBUF,
  });
  assert.equal(updated.status, 200, updated.text);
  assert.deepEqual(updated.body.metadata.labels, { a: "b" });
});

test("DeleteOptions sent as protobuf: preconditions are checked", async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  assert.equal(
    (await api.post(path, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "d" } })).status,
    201,
  );
  const options = (uid: string) =>
    envelope("v1", "DeleteOptions", "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions", {
      preconditions: { uid },
      propagationPolicy: "Background",
    });
  const refused = await api.call("DELETE", `${path}/d`, options("not-its-uid"), { contentType: PROTOBUF });
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.body.message, /the UID in the precondition \(not-its-uid\) does not match/);
  const uid = (await api.get(`${path}/d`)).body.metadata.uid;
  const deleted = await api.call("DELETE", `${path}/d`, options(uid), { contentType: PROTOBUF });
  assert.equal(deleted.status, 200, deleted.text);
});

test("a Scale sent as protobuf sets the replicas", async () => {
  const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
  assert.equal((await api.post(path, deploymentJson("scaled"))).status, 201);
  const scale = envelope("autoscaling/v1", "Scale", "k8s.io.api.autoscaling.v1.Scale", {
    metadata: goMeta("scaled"),
    spec: { replicas: 3 },
  });
  const r = await api.put(`${path}/scaled/scale`, scale, { contentType: PROTOBUF });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.spec.replicas, 3);
  assert.equal((await api.get(`${path}/scaled`)).body.spec.replicas, 3);
});

test("protobuf that is not a kube object is a 400 Status, never a crash", async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const garbage = [
    Buffer.from("not protobuf at all"),
    Buffer.from([0x6b, 0x38, 0x73, 0, 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
    envelope("v1", "NoSuchKind", "k8s.io.api.core.v1.ConfigMap", { metadata: goMeta("x") }),
  ];
  for (const body of garbage) {
    const r = await api.post(path, body, { contentType: PROTOBUF });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.kind, "Status");
  }
  assert.equal((await api.get("/readyz")).status, 200);
});

const PREFERS_PROTOBUF = "application/vnd.kubernetes.protobuf, */*";

test("a client that prefers protobuf is answered in protobuf, which reads as the JSON answer", async () => {
  const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const created = await api.post(deployments, deploymentJson("answered"));
  assert.equal(created.status, 201, created.text);
  const secrets = `/api/v1/namespaces/${ns}/secrets`;
  await api.post(secrets, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "bytes" },
    data: { k: "AAEC/w==" },
  });
  for (const path of [
    `${deployments}/answered`,
    deployments,
    `${secrets}/bytes`,
    `/api/v1/namespaces/${ns}`,
    "/api/v1/namespaces/default/services/kubernetes",
    `${secrets}/no-such-secret`,
  ]) {
    const pb = await api.getBytes(path, PREFERS_PROTOBUF);
    const json = await api.get(path);
    assert.equal(pb.status, json.status, path);
    assert.equal(pb.type, PROTOBUF, path);
    const decoded = decodeProtobuf(pb.bytes, { apiVersion: "", kind: "" });
    assert.deepEqual(decoded, json.body, path);
  }
  // JSON first, or a custom resource: JSON.
  const jsonFirst = await api.getBytes(deployments, "application/json, application/vnd.kubernetes.protobuf");
  assert.equal(jsonFirst.type, "application/json");
});

test("a watch in protobuf sends length-prefixed WatchEvents whose objects read as JSON's", async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const listed = await api.get(path);
  const headers: Record<string, string> = { accept: PROTOBUF };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  const abort = new AbortController();
  const res = await fetch(
    `${target.url}${path}?watch=1&resourceVersion=${listed.body.metadata.resourceVersion}`,
    {
      headers,
      signal: abort.signal,
      dispatcher: target.agent,
    } as unknown as RequestInit,
  );
  assert.equal(res.headers.get("content-type"), `${PROTOBUF};stream=watch`);
  const created = await api.post(path, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "watched" },
    data: { a: "1" },
  });
  let buf = Buffer.alloc(0);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf = Buffer.concat([buf, chunk]);
    if (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) break;
  }
  abort.abort();
  const frame = buf.subarray(4, 4 + buf.readUInt32BE(0));
  const event = decodeWatchEvent(frame);
  assert.equal(event.type, "ADDED");
  assert.deepEqual(event.object, created.body);
});

test("a map key __proto__ in protobuf is a key like any other, as in JSON", async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const body = envelope("v1", "ConfigMap", "k8s.io.api.core.v1.ConfigMap", {
    metadata: goMeta("proto-key"),
    data: { ["__proto__"]: "value", plain: "x" },
  });
  const r = await api.post(path, body, { contentType: PROTOBUF });
  assert.equal(r.status, 201, r.text);
  assert.equal(JSON.stringify(r.body.data), '{"__proto__":"value","plain":"x"}');
  const viaJson = await api.post(
    path,
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"proto-json"},"data":{"__proto__":"value"}}',
  );
  assert.equal(viaJson.status, 201, viaJson.text);
  assert.equal(JSON.stringify(viaJson.body.data), '{"__proto__":"value"}');
});

test("a protobuf body's unknown field is skipped unseen, even under fieldValidation=Strict", async () => {
  // kube's protobuf decoder has no strict form: an unknown field number is neither an error nor a warning.
  const path = `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`;
  const d = desc("k8s.io.api.core.v1.ConfigMap");
  const known = toBinary(d, create(d, { metadata: goMeta("unknown-field"), data: { a: "b" } } as never));
  // Field 99, varint 1: a number no ConfigMap field has.
  const raw = Buffer.concat([known, Buffer.from([0x98, 0x06, 0x01])]);
  const r = await api.post(path, framed("v1", "ConfigMap", raw), { contentType: PROTOBUF });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.headers.get("warning"), null);
  assert.deepEqual(r.body.data, { a: "b" });
});
