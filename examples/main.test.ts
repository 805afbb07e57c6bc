// The main job end to end: `examples/main.ts` in a child process (as `npm start` runs it, on free
// ports and in a scratch directory) becomes ready, serves /readyz and /metrics, answers kubectl
// through the kubeconfig it prints, reconciles the samples, and exits 0 on SIGINT.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { eventually } from "./shared/test-support.js";

const run = promisify(execFile);
const workDir = mkdtempSync(join(tmpdir(), "examples-main-"));
let child: ChildProcess;
let output = "";
let exited: Promise<number | null>;

before(() => {
  child = spawn(
    process.execPath,
    [
      "--import",
      import.meta.resolve("tsx"),
      fileURLToPath(new URL("./main.ts", import.meta.url)),
      "--metrics-bind-address=:0",
      "--health-probe-bind-address=:0",
      "--probe-interval=500ms",
    ],
    { cwd: workDir, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (b) => {
    output += b;
  });
  child.stderr?.on("data", (b) => {
    output += b;
  });
  exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
});

after(async () => {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await exited;
  rmSync(workDir, { recursive: true, force: true });
});

function field(pattern: RegExp): string[] {
  return [...output.matchAll(pattern)].map((m) => m[1]);
}

test("npm start runs two replicas, one leading, and stops cleanly on SIGINT", async () => {
  await eventually("the banner", () => output.includes("Press Ctrl-C to stop."), 60_000);
  const [kubeconfig] = field(/^ {2}kubeconfig {2}(\S+)$/gm);
  assert.equal(kubeconfig, join(workDir, ".tmp", "kubeconfig"));
  assert.equal(field(/\((leader)\)$/gm).length, 1, "one replica leads");
  assert.equal(field(/\((standing by)\)$/gm).length, 1, "the other stands by");

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
    30_000,
  );
  const events = await kubectl("get", "events");
  assert.match(events, /MarkdownView\(default:markdownview-sample\) updated: NotReady/);

  child.kill("SIGINT");
  assert.equal(await exited, 0, output.slice(-2000));
  assert.match(output, /released leader lease/);
});
