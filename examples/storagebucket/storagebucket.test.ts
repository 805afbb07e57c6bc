// End to end on the embedded API server: a local HTTP server plays S3 and the StorageBucket's
// status and Events follow it as it answers 200, stops answering, then answers 404, 403 and 200.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Condition } from "kubernetes-types/meta/v1.js";
import { type Client, newClient } from "controller-runtime/client";
import { eventually } from "controller-runtime/envtest";
import { nullLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import { eventReasons, newNamespace, recordOperatorAccess } from "../shared/test-support.js";
import { conditionAvailable, StorageBucket } from "./api.js";
import { setupStorageBucketController } from "./controller.js";
import { FakeS3 } from "./fake-s3.js";
import { testEnvironment } from "../../test/support/environment.js";

const rbacDir = fileURLToPath(new URL("./config/rbac", import.meta.url));
let access: ReturnType<typeof recordOperatorAccess>;
const env = testEnvironment({
  crdDirectoryPaths: [fileURLToPath(new URL("./config/crd", import.meta.url))],
  rbac: { manifestPaths: [rbacDir] },
});
const s3 = new FakeS3();
const stop = new AbortController();
let client: Client;
let managerDone: Promise<void>;

before(async () => {
  const config = await env.start();
  client = newClient(config);
  await s3.start();
  for (const bucket of ["photos", "logs", "assets"]) s3.buckets.set(bucket, "ok");
  access = recordOperatorAccess(env, rbacDir);
  // The operator runs as its ServiceAccount, with only what config/rbac grants it.
  const mgr = await Manager.create(env.rbacConfig, { logger: nullLogger(), metrics: { bindAddress: "0" } });
  // A short interval keeps the test quick; the test waits on states, never on the clock.
  setupStorageBucketController(mgr, mgr.getClient(), { probeIntervalMs: 100 });
  managerDone = mgr.start(stop.signal);
});

after(async () => {
  stop.abort();
  await managerDone;
  await s3.stop();
  await client.close();
  await env.stop();
});

async function availableOf(namespace: string, name: string): Promise<Condition | undefined> {
  const bucket = await client.get(StorageBucket, { namespace, name });
  return bucket.status?.conditions?.find((c) => c.type === conditionAvailable);
}

function waitForReason(namespace: string, name: string, reason: string): Promise<Condition> {
  return eventually(`Available reason ${reason}`, async () => {
    const c = await availableOf(namespace, name);
    return c?.reason === reason ? c : undefined;
  });
}

test("the status follows the bucket as the storage answers, with an Event on every change", async () => {
  const ns = await newNamespace(client, "storagebucket");
  const created = await client.create<StorageBucket>({
    apiVersion: StorageBucket.apiVersion,
    kind: StorageBucket.kind,
    metadata: { name: "photos", namespace: ns },
    spec: { endpoint: s3.endpoint, bucketName: "photos" },
  });
  // The CRD's schema defaults the probe timeout.
  assert.equal(created.spec?.probe?.timeoutSeconds, 5);

  const up = await waitForReason(ns, "photos", "BucketExists");
  assert.equal(up.status, "True");
  assert.equal(up.observedGeneration, created.metadata?.generation);
  const bucket = await client.get(StorageBucket, { namespace: ns, name: "photos" });
  assert.equal(bucket.status?.observedGeneration, created.metadata?.generation);

  s3.down = true;
  const down = await waitForReason(ns, "photos", "Unreachable");
  assert.equal(down.status, "Unknown");
  assert.match(down.message ?? "", /HEAD http:\/\/127\.0\.0\.1:\d+\/photos/);

  s3.down = false;
  s3.buckets.delete("photos");
  const missing = await waitForReason(ns, "photos", "NoSuchBucket");
  assert.equal(missing.status, "False");

  // Still False, for another reason: the transition time stays that of the change to False.
  s3.buckets.set("photos", "denied");
  const denied = await waitForReason(ns, "photos", "AccessDenied");
  assert.equal(denied.status, "False");
  assert.equal(denied.lastTransitionTime, missing.lastTransitionTime);

  s3.buckets.set("photos", "ok");
  await waitForReason(ns, "photos", "BucketExists");

  const reasons = await eventually("an Event for every change", async () => {
    const r = await eventReasons(client, ns, "photos");
    return r.length >= 4 ? r : undefined;
  });
  for (const reason of ["BucketExists", "Unreachable", "NoSuchBucket", "AccessDenied"]) {
    assert.ok(reasons.includes(reason), `an Event with reason ${reason} in ${reasons.join(", ")}`);
  }
});

test("probes that find nothing new write nothing", async () => {
  const ns = await newNamespace(client, "storagebucket-quiet");
  await client.create<StorageBucket>({
    apiVersion: StorageBucket.apiVersion,
    kind: StorageBucket.kind,
    metadata: { name: "logs", namespace: ns },
    spec: { endpoint: s3.endpoint, bucketName: "logs" },
  });
  await waitForReason(ns, "logs", "BucketExists");
  const before = await client.get(StorageBucket, { namespace: ns, name: "logs" });
  const heads = s3.heads;
  await eventually("three more probes", () => s3.heads >= heads + 3);
  const after = await client.get(StorageBucket, { namespace: ns, name: "logs" });
  assert.equal(after.metadata?.resourceVersion, before.metadata?.resourceVersion);
});

test("a new spec is probed at once and its generation observed", async () => {
  const ns = await newNamespace(client, "storagebucket-spec");
  const created = await client.create<StorageBucket>({
    apiVersion: StorageBucket.apiVersion,
    kind: StorageBucket.kind,
    metadata: { name: "assets", namespace: ns },
    spec: { endpoint: s3.endpoint, bucketName: "assets" },
  });
  await waitForReason(ns, "assets", "BucketExists");
  const current = await client.get(StorageBucket, { namespace: ns, name: "assets" });
  const changed = structuredClone(current) as StorageBucket;
  changed.spec = { endpoint: "http://127.0.0.1:1", bucketName: "assets" };
  const updated = await client.update(changed);
  assert.ok((updated.metadata?.generation ?? 0) > (created.metadata?.generation ?? 0));
  const c = await waitForReason(ns, "assets", "Unreachable");
  assert.equal(c.observedGeneration, updated.metadata?.generation);
});

// Last: everything above ran as the operator's ServiceAccount.
test("config/rbac grants everything the operator did (checked from the embedded server's access record)", () => {
  access.check();
});
