// The main job end to end: `examples/main.ts` in a child process (as `npm start` runs it, on free
// ports and in a scratch directory) becomes ready, serves /readyz and /metrics, answers kubectl
// through the kubeconfig it prints, reconciles the samples, and exits 0 on SIGINT.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { kinds } from "controller-runtime/api";
import { newClient } from "controller-runtime/client";
import { eventually } from "controller-runtime/envtest";
import { MarkdownView } from "./markdownview/api.js";
import { needsControlPlane, testEnvironment } from "../test/support/environment.js";

const run = promisify(execFile);
const workDir = mkdtempSync(join(tmpdir(), "examples-main-"));

interface Running {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}
const started: Running[] = [];

/** `examples/main.ts` with `args`, on free ports, in the scratch directory. */
function startMain(...args: string[]): Running {
  const child = spawn(
    process.execPath,
    [
      "--import",
      import.meta.resolve("tsx"),
      fileURLToPath(new URL("./main.ts", import.meta.url)),
      "--metrics-bind-address=:0",
      "--health-probe-bind-address=:0",
      ...args,
    ],
    { cwd: workDir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (b) => {
    output += b;
  });
  child.stderr?.on("data", (b) => {
    output += b;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const running = { child, output: () => output, exited };
  started.push(running);
  return running;
}

after(async () => {
  for (const { child, exited } of started) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  }
  rmSync(workDir, { recursive: true, force: true });
});

function fieldsOf(output: string, pattern: RegExp): string[] {
  return [...output.matchAll(pattern)].map((m) => m[1]);
}

test("npm start runs two replicas, one leading, and stops cleanly on SIGINT", async () => {
  const { child, output, exited } = startMain("--probe-interval=500ms");
  const field = (pattern: RegExp) => fieldsOf(output(), pattern);
  await eventually("the banner", () => output().includes("Press Ctrl-C to stop."), { timeoutMs: 60_000 });
  // It comes after the start-up burst, so it does not scroll away: every controller of the leader
  // has started its workers before it.
  const bannerAt = output().indexOf("controller-runtime examples:");
  const starts = [...output().matchAll(/Starting workers/g)].map((m) => m.index);
  assert.ok(starts.length >= 3, "the leader's controllers started");
  assert.ok(
    starts.every((at) => at < bannerAt),
    "the banner is printed after the controllers start",
  );
  const [kubeconfig] = field(/^ {2}kubeconfig {2}(\S+)$/gm);
  assert.equal(kubeconfig, join(workDir, ".tmp", "kubeconfig"));
  assert.equal(field(/\((leader)\)$/gm).length, 1, "one replica leads");
  assert.equal(field(/\((standing by)\)$/gm).length, 1, "the other stands by");
  // Both replicas share the three StorageBuckets in their ring, whichever leads.
  const held = field(/ (\d+) of 3 StorageBuckets /g).map(Number);
  assert.equal(held.length, 2, "each replica's share is shown");
  assert.equal(held[0]! + held[1]!, 3, "every bucket is assigned to one replica");

  // Both replicas are ready and serve metrics, the leader's with its controllers' figures.
  const readyz = field(/readyz (http:\/\/\S+)/g);
  const metrics = field(/metrics (http:\/\/\S+)/g);
  assert.equal(readyz.length, 2);
  for (const url of readyz) {
    const res = await fetch(url);
    assert.equal(res.status, 200, url);
  }
  const leaderMetrics = await (
    await fetch(metrics[field(/\((leader|standing by)\)$/gm).indexOf("leader")])
  ).text();
  assert.match(leaderMetrics, /controller_runtime_reconcile_total\{controller="markdownview"/);
  assert.match(
    leaderMetrics,
    /leader_election_master_status\{name="[^"]*examples\.controller-runtime\.example\.com"\} 1/,
  );

  // kubectl through the printed kubeconfig sees the samples, reconciled.
  const cacheDir = join(workDir, "kubectl-cache");
  const kubectl = async (...args: string[]) =>
    (
      await run("kubectl", ["--kubeconfig", kubeconfig, "--cache-dir", cacheDir, ...args], {
        timeout: 30_000,
      })
    ).stdout;
  const listed = await kubectl("get", "storagebuckets,markdownviews");
  for (const name of ["photos", "private", "archive", "markdownview-sample"])
    assert.match(listed, new RegExp(name));
  await eventually("the buckets probed", async () => {
    const out = await kubectl(
      "get",
      "storagebuckets",
      "-o",
      "custom-columns=NAME:.metadata.name,REASON:.status.conditions[0].reason",
    );
    return (
      /photos\s+BucketExists/.test(out) &&
      /private\s+AccessDenied/.test(out) &&
      /archive\s+NoSuchBucket/.test(out)
    );
  });
  await eventually(
    "the MarkdownView Healthy",
    async () => /Healthy/.test(await kubectl("get", "markdownview", "markdownview-sample")),
    { timeoutMs: 30_000 },
  );
  const events = await kubectl("get", "events");
  assert.match(events, /MarkdownView\(default:markdownview-sample\) updated: NotReady/);

  child.kill("SIGINT");
  assert.equal(await exited, 0, output().slice(-2000));
  assert.match(output(), /released leader lease/);
});

test(
  "with --kubeconfig it runs on that cluster, installing the CRDs only with --install-crds",
  needsControlPlane("fresh-cluster"),
  async () => {
    const env = testEnvironment();
    await env.start();
    try {
      const client = newClient(env.config);
      const crds = async () =>
        (await client.list(kinds.CustomResourceDefinition)).items.map((c) => c.metadata?.name).sort();
      assert.deepEqual(await crds(), []);

      const { child, output, exited } = startMain(
        "--kubeconfig",
        env.started.kubeconfigPath,
        "--install-crds",
      );
      await eventually("the banner", () => output().includes("Press Ctrl-C to stop."), { timeoutMs: 60_000 });
      // It comes after the start-up burst, so it does not scroll away: every controller of the leader
      // has started its workers before it.
      const bannerAt = output().indexOf("controller-runtime examples:");
      const starts = [...output().matchAll(/Starting workers/g)].map((m) => m.index);
      assert.ok(starts.length >= 3, "the leader's controllers started");
      assert.ok(
        starts.every((at) => at < bannerAt),
        "the banner is printed after the controllers start",
      );
      assert.deepEqual(await crds(), [
        "markdownviews.view.zoetrope.github.io",
        "storagebuckets.storage.example.com",
      ]);
      assert.match(output(), new RegExp(`kubeconfig {2}${env.started.kubeconfigPath}`));
      assert.doesNotMatch(output(), /fake S3|embedded/, "no embedded server, no fake storage");
      // No samples are created on someone's cluster.
      assert.equal((await client.list(MarkdownView)).items.length, 0);
      child.kill("SIGINT");
      assert.equal(await exited, 0, output().slice(-2000));
      await client.close();
    } finally {
      await env.stop();
    }
  },
);
