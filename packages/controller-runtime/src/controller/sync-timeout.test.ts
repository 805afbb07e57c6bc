// A manager whose controller's kind is served by nobody gives up after cacheSyncTimeoutMs, names the
// kind and what to do, and lets the process exit: run as a user runs it, in a child process, with
// garbage collection forced while it waits (Node 20 could collect the timeout before it fired).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { Environment } from "../envtest/index.js";
import { renderKubeconfig, type RESTConfig } from "../rest/index.js";
import { mkdtemp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tmpdir } from "node:os";

const env = new Environment();
let config: RESTConfig;
before(async () => {
  config = await env.start();
});
after(() => env.stop());

const main = `
import { Manager, controllerManagedBy, defineKind, getConfig } from ${JSON.stringify(
  fileURLToPath(new URL("../index.ts", import.meta.url)),
)};
import { nullLogger } from ${JSON.stringify(fileURLToPath(new URL("../log/index.ts", import.meta.url)))};
const Widget = defineKind({ group: "example.com", version: "v1", kind: "Widget", namespaced: true });
const mgr = await Manager.create(getConfig(), {
  logger: nullLogger(),
  metrics: { bindAddress: "0" },
  // Long enough for the first list to answer on a loaded machine; the message needs its 404.
  controller: { cacheSyncTimeoutMs: 8000 },
});
controllerManagedBy(mgr).for(Widget).complete({ reconcile: async () => ({}) });
const gc = setInterval(() => globalThis.gc(), 50);
try {
  await mgr.start(new AbortController().signal);
} catch (err) {
  console.log("START FAILED: " + err.message);
  process.exitCode = 3;
} finally {
  clearInterval(gc);
}
`;

test("no CRD serves the kind: start() fails after cacheSyncTimeoutMs, naming it, and the process exits", async () => {
  const dir = await mkdtemp(join(tmpdir(), "sync-timeout-"));
  await writeFile(join(dir, "main.mts"), main);
  await writeFile(join(dir, "kubeconfig"), renderKubeconfig(config));
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", join(dir, "main.mts")], {
    env: { ...process.env, KUBECONFIG: join(dir, "kubeconfig") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d));
  child.stderr.on("data", (d: Buffer) => (out += d));
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("exit", (c) => {
      clearTimeout(kill);
      resolve(c);
    });
  });
  assert.equal(code, 3, `the process must end on its own with the start failure; output:\n${out}`);
  assert.ok(Date.now() - started < 45_000);
  assert.match(
    out,
    /START FAILED: failed to wait for widget caches to sync .*no CRD serves example\.com\/v1 Widget \(its list answered 404 NotFound\); install it/,
  );
  assert.match(out, /install it/);
});
