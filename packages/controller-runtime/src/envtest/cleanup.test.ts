// What envtest leaves behind when it stops: CRDs it installed on an existing cluster, with
// cleanUpCRDsAfterUse, and the children of a control-plane process (its whole process group).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { isNotFound, newRESTClient, type RESTClient } from "../rest/index.js";
import { Environment } from "./index.js";
import { eventually } from "./eventually.js";
import { startProcess } from "./process.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const cluster = testEnvironment();
let rest: RESTClient;
before(async () => {
  rest = newRESTClient(await cluster.start());
});
after(async () => {
  await rest.close();
  await cluster.stop();
});

const crd = (plural: string): CustomResourceDefinition => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.cleanup.example.com` },
  spec: {
    group: "cleanup.example.com",
    names: { kind: plural[0].toUpperCase() + plural.slice(1, -1), plural, listKind: "List" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object" } } } },
      },
    ],
  },
});

const crds = { group: "apiextensions.k8s.io", version: "v1", resource: "customresourcedefinitions" };

test("on an existing cluster the CRDs installed at start are deleted at stop with cleanUpCRDsAfterUse, kept without", async () => {
  const existing = { USE_EXISTING_CLUSTER: "true", KUBECONFIG: cluster.started.kubeconfigPath };
  const cleaning = new Environment({ env: existing, crds: [crd("sprockets")], cleanUpCRDsAfterUse: true });
  await cleaning.start();
  assert.equal(
    (await rest.get(crds, "sprockets.cleanup.example.com")).metadata?.name,
    "sprockets.cleanup.example.com",
  );
  await cleaning.stop();
  await assert.rejects(rest.get(crds, "sprockets.cleanup.example.com"), (e: unknown) => isNotFound(e));
  const keeping = new Environment({ env: existing, crds: [crd("cogs")] });
  await keeping.start();
  await keeping.stop();
  assert.equal((await rest.get(crds, "cogs.cleanup.example.com")).metadata?.name, "cogs.cleanup.example.com");
});

test("stopping a control-plane process stops what it started too (its process group)", {
  skip: process.platform === "win32",
}, async () => {
  const proc = startProcess("wrapper", "/bin/sh", ["-c", "sleep 300 & echo $!; wait"], false);
  await eventually("the child's pid printed", () => /\d+/.test(proc.output()));
  const child = Number(/(\d+)/.exec(proc.output())![1]);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  assert.ok(alive(child));
  await proc.stop(5_000);
  await eventually("the wrapper's child gone", () => !alive(child));
});

test("an interrupted test process still takes the control plane's process groups along", {
  skip: process.platform === "win32",
}, async () => {
  const script = `
      import { startProcess } from "./packages/controller-runtime/src/envtest/process.ts";
      const proc = startProcess("wrapper", "/bin/sh", ["-c", "sleep 300 & echo $!; wait"], false);
      while (!/\\d+/.test(proc.output())) await new Promise((r) => setTimeout(r, 10));
      console.log("child " + /(\\d+)/.exec(proc.output())[1]);
      setInterval(() => {}, 1000);
      process.kill(process.pid, "SIGINT");
    `;
  const { spawn } = await import("node:child_process");
  const runner = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  runner.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  const signal = await new Promise<string | null>((resolve) =>
    runner.on("exit", (_code, sig) => resolve(sig)),
  );
  assert.equal(signal, "SIGINT", "the process ended by the signal, as without envtest");
  const child = Number(/child (\d+)/.exec(out)?.[1]);
  assert.ok(child > 0, out);
  await eventually("the wrapper's child gone", () => {
    try {
      process.kill(child, 0);
      return false;
    } catch {
      return true;
    }
  });
});
