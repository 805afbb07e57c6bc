// Every example operator converges under each fault of envtest's standard matrix (conflicts,
// throttling, errors, timeouts, latency, watches cut, expired, repeated, late or held, a
// partition, restarts, and on the embedded server compactions and stale reads). The faults hit
// the operators' requests only (matched by their user agents); the test's own client is spared.
// Each run starts in a fresh namespace: a MarkdownView becomes Healthy through the simulator,
// takes a spec change and gets its deleted ConfigMap back; a StorageBucket follows its bucket
// as it appears and disappears; the pods-deployments reconcilers see a Pod come and go.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { kinds } from "controller-runtime/api";
import { type Client, newClient } from "controller-runtime/client";
import { eventually, faultMatrix, standardFaults } from "controller-runtime/envtest";
import { newLogger, nullLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import { isAlreadyExists, isConflict, isNotFound, NetworkError } from "controller-runtime/rest";
import { testEnvironment } from "../test/support/environment.js";
import { MarkdownView } from "./markdownview/api.js";
import { setupMarkdownViewController } from "./markdownview/controller.js";
import { setupPodsAndDeployments } from "./pods-deployments/controllers.js";
import { setupWorkloadSimulation } from "controller-runtime/envtest";
import { conditionAvailable, StorageBucket } from "./storagebucket/api.js";
import { setupStorageBucketController } from "./storagebucket/controller.js";
import { FakeS3 } from "./storagebucket/fake-s3.js";

const crd = (example: string) => fileURLToPath(new URL(`./${example}/config/crd`, import.meta.url));
const env = testEnvironment({ faults: true, crdDirectoryPaths: [crd("markdownview"), crd("storagebucket")] });
/** Every operator's user agent starts with this; the faults match it. */
const OPERATOR = "example-operator/";
const WAIT = { timeoutMs: 60_000, intervalMs: 25 };
const stop = new AbortController();
const running: Promise<void>[] = [];
const s3 = new FakeS3();
const logged: { msg: string; req?: string }[] = [];
let client: Client;

before(async () => {
  const config = await env.start();
  client = newClient({ ...config, userAgent: "fault-matrix-test" });
  await s3.start();
  const manager = (name: string) =>
    Manager.create(
      { ...config, userAgent: `${OPERATOR}${name}` },
      { logger: nullLogger(), metrics: { bindAddress: "0" } },
    );
  const markdownview = await manager("markdownview");
  await setupMarkdownViewController(markdownview, markdownview.getClient());
  const simulator = await manager("simulator");
  setupWorkloadSimulation(simulator, { podStartupMs: 100 });
  const storagebucket = await manager("storagebucket");
  setupStorageBucketController(storagebucket, storagebucket.getClient(), { probeIntervalMs: 100 });
  const pods = await manager("pods-deployments");
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logged.push(JSON.parse(line));
      done();
    },
  });
  setupPodsAndDeployments(pods, newLogger({ destination }));
  for (const mgr of [markdownview, simulator, storagebucket, pods]) running.push(mgr.start(stop.signal));
});

after(async () => {
  stop.abort();
  await Promise.all(running);
  await s3.stop();
  await client.close();
  await env.stop();
});

/**
 * The test's own writes, made sure: a restart also cuts the test's connections, as it would a
 * user's (a write in flight may or may not have happened), so a cut write is sent again and an
 * object found already there, or already gone, counts as done.
 */
async function surely(what: string, write: () => Promise<unknown>): Promise<void> {
  await eventually(
    what,
    () =>
      write().then(
        () => true,
        (err) => {
          if (err instanceof NetworkError) return false;
          if (isAlreadyExists(err) || isNotFound(err)) return true;
          throw err;
        },
      ),
    WAIT,
  );
}

async function markdownviewConverges(ns: string): Promise<void> {
  const markdowns = { "SUMMARY.md": "# Summary\n\n- [Page1](page1.md)\n", "page1.md": "# Page 1\n" };
  await surely("the view created", () =>
    client.create<MarkdownView>({
      apiVersion: MarkdownView.apiVersion,
      kind: MarkdownView.kind,
      metadata: { name: "sample", namespace: ns },
      spec: { markdowns, replicas: 2 },
    }),
  );
  const view = () => client.get(MarkdownView, { namespace: ns, name: "sample" });
  await eventually("the view Healthy", async () => (await view()).status === "Healthy", WAIT);
  await eventually(
    "the spec changed",
    async () => {
      const current = await view();
      const spec = { ...current.spec, markdowns: { ...markdowns, "page2.md": "# Page 2\n" } };
      return client.update<MarkdownView>({ ...current, spec }).catch((err) => {
        if (isConflict(err) || err instanceof NetworkError) return undefined;
        throw err;
      });
    },
    WAIT,
  );
  const configMap = () =>
    client.get(kinds.ConfigMap, { namespace: ns, name: "markdowns-sample" }).catch((err) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
  const cm = await eventually(
    "the new page in the ConfigMap",
    async () => {
      const c = await configMap();
      return c?.data?.["page2.md"] === "# Page 2\n" ? c : undefined;
    },
    WAIT,
  );
  await surely("the ConfigMap deleted", () => client.delete(cm));
  await eventually(
    "the ConfigMap restored",
    async () => {
      const c = await configMap();
      return c !== undefined && c.metadata?.uid !== cm.metadata?.uid;
    },
    WAIT,
  );
}

async function storagebucketConverges(ns: string): Promise<void> {
  const bucketName = `bucket-${ns}`;
  s3.buckets.set(bucketName, "ok");
  await surely("the bucket created", () =>
    client.create<StorageBucket>({
      apiVersion: StorageBucket.apiVersion,
      kind: StorageBucket.kind,
      metadata: { name: "bucket", namespace: ns },
      spec: { endpoint: s3.endpoint, bucketName },
    }),
  );
  const reason = async () =>
    (await client.get(StorageBucket, { namespace: ns, name: "bucket" })).status?.conditions?.find(
      (c) => c.type === conditionAvailable,
    )?.reason;
  await eventually("the bucket found", async () => (await reason()) === "BucketExists", WAIT);
  s3.buckets.delete(bucketName);
  await eventually("the bucket missed", async () => (await reason()) === "NoSuchBucket", WAIT);
}

async function podsReconciled(ns: string): Promise<void> {
  const calls = () =>
    logged.filter((l) => l.msg === "podReconciler is called" && l.req === `${ns}/nginx`).length;
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "nginx", namespace: ns } };
  await surely("the Pod created", () =>
    client.create({ ...pod, spec: { containers: [{ name: "nginx", image: "nginx" }] } }),
  );
  await eventually("the Pod reconciled", () => calls() >= 1, WAIT);
  const before = calls();
  await surely("the Pod deleted", () => client.delete(pod));
  await eventually("the deleted Pod reconciled", () => calls() > before, WAIT);
}

test("every example converges under each fault of the standard matrix", async (t) => {
  const examples = {
    markdownview: markdownviewConverges,
    storagebucket: storagebucketConverges,
    "pods-deployments": podsReconciled,
  };
  const perExample: string[] = [];
  const results = await faultMatrix(
    env,
    async ({ fault }) => {
      const ns = `matrix-${randomUUID().slice(0, 8)}`;
      await surely("the namespace created", () =>
        client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }),
      );
      const outcomes = await Promise.allSettled(
        Object.values(examples).map(async (converges) => {
          const t0 = performance.now();
          await converges(ns);
          return `${Math.round(performance.now() - t0)} ms`;
        }),
      );
      perExample.push(
        `| ${fault} | ${outcomes.map((o) => (o.status === "fulfilled" ? o.value : `FAILED: ${String(o.reason)}`)).join(" | ")} |`,
      );
      const failed = outcomes.flatMap((o, i) =>
        o.status === "rejected"
          ? [`${Object.keys(examples)[i]}: ${(o.reason as Error)?.message ?? o.reason}`]
          : [],
      );
      if (failed.length > 0) throw new Error(failed.join("; "));
    },
    standardFaults({ match: { userAgent: OPERATOR }, faults: env.faults }),
    {
      seed: 7,
      print: (table) => {
        if (!process.env.FAULT_MATRIX_PRINT) return;
        t.diagnostic(`\n${table}`);
        t.diagnostic(`\n| fault | ${Object.keys(examples).join(" | ")} |\n${perExample.join("\n")}`);
      },
    },
  );
  assert.deepEqual(
    results.filter((r) => !r.converged).map((r) => `${r.fault}: ${(r.error as Error)?.message}`),
    [],
  );
  for (const r of results.slice(1)) assert.ok(r.hits > 0, `${r.fault} fired`);
});
