import assert from "node:assert/strict";
import { test } from "node:test";
import { PortTakenError, waitUntil, withFreshPorts } from "./control-plane.js";
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
      import { Environment } from "./packages/controller-runtime/src/envtest/index.js";
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
