// A reconcile that never returns: it is reported while it hangs, one Ctrl-C ends the process after
// the grace period with the stuck controller and request named, run as the examples' main runs.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { eventually, Environment } from "../envtest/index.js";
import { newRESTClient, renderKubeconfig, type RESTConfig } from "../rest/index.js";

const env = new Environment();
let config: RESTConfig;
before(async () => {
  config = await env.start();
});
after(() => env.stop());

const src = (path: string) => JSON.stringify(fileURLToPath(new URL(path, import.meta.url)));
// The examples' own main pattern (examples/storagebucket/main.ts), with a reconciler that hangs
// on one object without holding any handle of its own.
const main = `
import { controllerManagedBy, kinds } from ${src("../index.ts")};
import { newLogger } from ${src("../log/index.ts")};
import { Manager, setupSignalHandler } from ${src("./index.ts")};
import { getConfig } from ${src("../rest/index.ts")};
const logger = newLogger();
const setupLog = logger.withName("setup");
try {
  const mgr = await Manager.create(getConfig(), {
    logger,
    metrics: { bindAddress: "127.0.0.1:0" },
    healthProbeBindAddress: "127.0.0.1:0",
    gracefulShutdownTimeoutMs: 2000,
    controller: { slowReconcileWarningMs: 300 },
  });
  controllerManagedBy(mgr)
    .named("hanger")
    .for(kinds.ConfigMap)
    .complete({
      async reconcile(req) {
        if (req.name === "hang") await new Promise(() => {});
        return {};
      },
    });
  setupLog.info("starting manager");
  await mgr.start(setupSignalHandler());
} catch (err) {
  setupLog.error(err, "problem running manager");
  process.exitCode = 1;
}
`;

test("a hung reconcile is logged while it hangs; one SIGINT ends the process, naming it", async () => {
  const dir = await mkdtemp(join(tmpdir(), "stuck-"));
  await writeFile(join(dir, "main.mts"), main);
  await writeFile(join(dir, "kubeconfig"), renderKubeconfig(config));
  const ns = `stuck-${process.pid}`;
  const rest = newRESTClient(config);
  const namespaces = { group: "", version: "v1", resource: "namespaces", namespaced: false };
  const configMaps = { group: "", version: "v1", resource: "configmaps", namespaced: true };
  await rest.create(namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  const child = spawn(process.execPath, ["--import", "tsx", join(dir, "main.mts")], {
    env: { ...process.env, KUBECONFIG: join(dir, "kubeconfig") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d));
  child.stderr.on("data", (d: Buffer) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  const kill = setTimeout(() => child.kill("SIGKILL"), 90_000);
  try {
    await eventually("the manager to start", () => out.includes("starting manager"), { timeoutMs: 30_000 });
    await rest.create(
      configMaps,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "hang", namespace: ns } },
      { namespace: ns },
    );
    const slow = await eventually(
      "the slow reconcile warning",
      () =>
        out
          .split("\n")
          .filter((l) => l.includes("Reconcile is taking long"))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => l.name === "hang"),
      { timeoutMs: 30_000 },
    );
    assert.equal(slow.controller, "hanger");
    assert.equal(slow.namespace, ns);
    assert.equal(typeof slow.reconcileID, "string");
    assert.ok((slow.runningMs as number) >= 300);

    const signalled = Date.now();
    child.kill("SIGINT");
    const code = await exited;
    const took = Date.now() - signalled;
    assert.equal(code, 1, out);
    assert.ok(took < 10_000, `exited ${took} ms after SIGINT`);
    assert.match(
      out,
      new RegExp(
        `graceful shutdown timeout of 2000 ms; still running: controller \\\\"hanger\\\\" reconciling ${ns}/hang \\(reconcileID [0-9a-f-]+, running for [0-9.]+ s\\)`,
      ),
    );
  } finally {
    clearTimeout(kill);
    child.kill("SIGKILL");
    await rest.delete(namespaces, ns).catch(() => {});
    await rest.close();
  }
});
