// SIGTERM to a process running a manager: the reconcile in flight completes, the Lease is
// released, and the process exits 0.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Lease } from "kubernetes-types/coordination/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import { newRESTClient, type RESTClient, resourceOf } from "controller-runtime/rest";
import { testEnvironment } from "../support/environment.js";

const here = dirname(fileURLToPath(import.meta.url));
const env = testEnvironment();
let client: RESTClient;
before(async () => {
  client = newRESTClient(await env.start());
});
after(async () => {
  await client.close();
  await env.stop();
});

test("SIGTERM: the reconcile in flight completes, the lease is released, the exit code is 0", async () => {
  await client.create(resourceOf(kinds.Namespace), { metadata: { name: "sigterm" } });
  const child = spawn(process.execPath, ["--import", "tsx", join(here, "sigterm-manager.fixture.ts")], {
    env: { ...process.env, KUBECONFIG: env.started.kubeconfigPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => {
    out += c;
  });
  child.stderr.on("data", (c) => {
    err += c;
  });
  const exited = once(child, "exit");
  try {
    await client.create(
      resourceOf(kinds.ConfigMap),
      { metadata: { name: "work" } },
      { namespace: "sigterm" },
    );
    const deadline = Date.now() + 30_000;
    while (!out.includes("reconcile started work")) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`no reconcile started:\n${out}\n${err}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill("SIGTERM");
    const [code] = await exited;
    assert.equal(code, 0, `exit code 0 expected:\n${out}\n${err}`);
    assert.match(out, /reconcile finished work[\s\S]*manager stopped/);
    const cm = await client.get<ConfigMap>(resourceOf(kinds.ConfigMap), "work", { namespace: "sigterm" });
    assert.equal(cm.metadata?.annotations?.done, "true");
    const lease = await client.get<Lease>(resourceOf(kinds.Lease), "sigterm-test", { namespace: "default" });
    assert.equal(lease.spec?.holderIdentity ?? "", "", "the lease was released");
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});
