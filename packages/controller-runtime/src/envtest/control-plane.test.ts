import assert from "node:assert/strict";
import { test } from "node:test";
import type { Service } from "kubernetes-types/core/v1.js";
import { newRESTClient } from "../rest/index.js";
import { PortTakenError, waitUntil, withFlags, withFreshPorts } from "./control-plane.js";
import { Environment } from "./environment.js";
import { eventually } from "./eventually.js";
import { ControlPlaneError, startProcess } from "./process.js";

const never = async () => false;

test("a binary that exits because its port was taken is told apart from other early exits", async () => {
  const taken = startProcess(
    "etcd",
    "/bin/sh",
    ["-c", "echo 'listen tcp 127.0.0.1:1: bind: address already in use' >&2; exit 1"],
    false,
  );
  await assert.rejects(waitUntil("etcd", taken, Date.now() + 10_000, never), PortTakenError);
  const broken = startProcess("etcd", "/bin/sh", ["-c", "echo 'bad flag' >&2; exit 2"], false);
  await assert.rejects(waitUntil("etcd", broken, Date.now() + 10_000, never), (err: unknown) => {
    assert.ok(err instanceof ControlPlaneError && !(err instanceof PortTakenError));
    assert.match(err.message, /etcd exited with code 2:\nbad flag/);
    return true;
  });
});

test("a start that loses its port is tried again on fresh ports, a few times at most", async () => {
  const attempts: number[] = [];
  const url = await withFreshPorts(async (attempt) => {
    attempts.push(attempt);
    if (attempt < 3) throw new PortTakenError("taken");
    return "http://127.0.0.1:1";
  });
  assert.equal(url, "http://127.0.0.1:1");
  assert.deepEqual(attempts, [1, 2, 3]);

  let tries = 0;
  await assert.rejects(
    withFreshPorts(async () => {
      tries++;
      throw new PortTakenError("always taken");
    }),
    /always taken/,
  );
  assert.equal(tries, 5);

  let other = 0;
  await assert.rejects(
    withFreshPorts(async () => {
      other++;
      throw new ControlPlaneError("bad flag");
    }),
    /bad flag/,
  );
  assert.equal(other, 1, "other failures are not retried");
});

const assets = process.env.KUBEBUILDER_ASSETS;
test("a test process that never calls stop() still ends, and takes etcd and kube-apiserver with it", {
  skip: assets ? false : "needs KUBEBUILDER_ASSETS (real etcd and kube-apiserver)",
  timeout: 120_000,
}, async () => {
  // The child starts a control plane and then simply runs out of work, as a failed test does.
  const script = `
      import { Environment } from "controller-runtime/envtest";
      const env = new Environment({ env: { KUBEBUILDER_ASSETS: ${JSON.stringify(assets)} } });
      const config = await env.start();
      console.log("started in " + config.source.split(" in ")[1]);
    `;
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const dir = /started in (\S+)/.exec(out)?.[1];
  assert.ok(dir, `the control plane started: ${out}`);
  assert.equal(code, 0, "the process ended by itself");
  const { execFileSync } = await import("node:child_process");
  // The binaries' command lines name the control plane's directory (etcd's data, the certs).
  const running = () => {
    try {
      return execFileSync("pgrep", ["-f", dir]).toString().trim();
    } catch {
      return "";
    }
  };
  await eventually("etcd and kube-apiserver are gone", () => running() === "", { timeoutMs: 10_000 });
});

test("kubeAPIServerFlags set, repeat and drop envtest's kube-apiserver flags", () => {
  assert.deepEqual(
    withFlags(["--a=1", "--b=2", "--c", "--d=x"], { b: "3", "--c": null, e: ["p", "q"], f: "" }),
    ["--a=1", "--b=3", "--d=x", "--e=p", "--e=q", "--f"],
  );
});

test("kubeAPIServerFlags reach kube-apiserver", {
  skip: assets ? false : "needs KUBEBUILDER_ASSETS (real etcd and kube-apiserver)",
  timeout: 120_000,
}, async () => {
  const env = new Environment({
    env: { KUBEBUILDER_ASSETS: assets },
    kubeAPIServerFlags: { "service-cluster-ip-range": "10.1.0.0/24" },
  });
  const config = await env.start();
  const client = newRESTClient(config);
  try {
    const svc = await client.create<Service>(
      { group: "", version: "v1", resource: "services", namespaced: true },
      { metadata: { name: "flagged" }, spec: { ports: [{ port: 80 }] } },
      { namespace: "default" },
    );
    assert.match(svc.spec?.clusterIP ?? "", /^10\.1\.0\./);
  } finally {
    await client.close();
    await env.stop();
  }
});
