// kubectl with its default validation drives the embedded server: `apply -f` of every served
// built-in kind and of a custom resource, then again (unchanged), unknown fields rejected (by
// the server under kubectl 1.32's fieldValidation=Strict, by the client's OpenAPI v2
// validation under kubectl 1.20), `get` with kube's columns and a CRD's printer columns, and
// `explain`. Runs under each kubectl of kubectl-binaries.ts (1.32 on PATH, Debian's 1.20 when
// found).
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type RunningAPIServer, startAPIServer } from "controller-runtime-apiserver";
import { isUsable, type KubectlRunner, kubectlClients, kubectlRunner } from "./kubectl-binaries.js";
import { builtinManifests, dial, list, printerCrd } from "./kubectl-manifests.js";

let server: RunningAPIServer;
let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "kubectl-apply-"));
  server = await startAPIServer({ kubeconfigPath: join(dir, "config") });
});
after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

for (const client of kubectlClients()) {
  describe(`kubectl ${client.version}`, () => {
    const id = client.id;
    const ns = `apply-${id}`;
    let usable = false;
    let kubectl: KubectlRunner;

    before(async () => {
      usable = await isUsable(client);
      if (usable) kubectl = kubectlRunner(client, join(dir, "config"), dir);
    });

    async function file(name: string, text: string): Promise<string> {
      const path = join(dir, `${id}-${name}`);
      await writeFile(path, text);
      return path;
    }

    test("apply -f of every built-in kind creates them, and again leaves them unchanged", async (t) => {
      if (!usable) return t.skip(`kubectl ${client.version} not found`);
      const manifests = builtinManifests(ns, id);
      const path = await file("builtins.json", list(manifests));
      const first = await kubectl("apply", "-f", path);
      assert.equal(first.code, 0, first.stderr);
      const created = first.stdout.split("\n").filter((l) => l.endsWith(" created"));
      assert.equal(created.length, manifests.length, first.stdout);
      const second = await kubectl("apply", "-f", path);
      assert.equal(second.code, 0, second.stderr);
      const unchanged = second.stdout.split("\n").filter((l) => l.endsWith(" unchanged"));
      assert.equal(unchanged.length, manifests.length, second.stdout);
    });

    test("an unknown nested field is rejected", async (t) => {
      if (!usable) return t.skip(`kubectl ${client.version} not found`);
      const deployment = {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "junk", namespace: "default" },
        spec: {
          selector: { matchLabels: { app: "junk" } },
          template: {
            metadata: { labels: { app: "junk" } },
            spec: { junk: 1, containers: [{ name: "c", image: "nginx" }] },
          },
        },
      };
      const r = await kubectl("apply", "-f", await file("junk.json", JSON.stringify(deployment)));
      assert.notEqual(r.code, 0);
      if (client.version === "1.20") {
        assert.match(
          r.stderr,
          /ValidationError\(Deployment\.spec\.template\.spec\): unknown field "junk" in io\.k8s\.api\.core\.v1\.PodSpec/,
        );
      } else {
        assert.match(r.stderr, /strict decoding error: unknown field "spec\.template\.spec\.junk"/);
      }
    });

    test("a CRD and its custom resource apply with validation; get shows the printer column", async (t) => {
      if (!usable) return t.skip(`kubectl ${client.version} not found`);
      const crd = await kubectl("apply", "-f", await file("crd.json", JSON.stringify(printerCrd(id))));
      assert.equal(crd.code, 0, crd.stderr);
      const wait = await kubectl(
        "wait",
        "--for=condition=Established",
        `crd/dials.${id}.example.com`,
        "--timeout=20s",
      );
      assert.equal(wait.code, 0, wait.stderr);
      await kubectl("create", "namespace", `${ns}-cr`);
      const cr = await kubectl(
        "apply",
        "-f",
        await file("cr.json", JSON.stringify(dial(`${ns}-cr`, id, "d1", { setting: 4 }))),
      );
      assert.equal(cr.code, 0, cr.stderr);
      assert.match(cr.stdout, /dial\.[^/]+\/d1 created/);
      const again = await kubectl(
        "apply",
        "-f",
        await file("cr.json", JSON.stringify(dial(`${ns}-cr`, id, "d1", { setting: 5 }))),
      );
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /configured/);

      const bad = await kubectl(
        "apply",
        "-f",
        await file("cr-bad.json", JSON.stringify(dial(`${ns}-cr`, id, "d2", { setting: 1, junk: true }))),
      );
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /unknown field/);

      const got = await kubectl("-n", `${ns}-cr`, "get", `dials.${id}.example.com`);
      assert.equal(got.code, 0, got.stderr);
      assert.match(got.stdout, /^NAME\s+SETTING\s+AGE\n/);
      assert.match(got.stdout, /^d1\s+5\s+\S+$/m);
    });

    test("get pods and deployments prints kube's columns", async (t) => {
      if (!usable) return t.skip(`kubectl ${client.version} not found`);
      const pods = await kubectl("-n", ns, "get", "pods");
      assert.equal(pods.code, 0, pods.stderr);
      assert.match(pods.stdout, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n/);
      assert.match(pods.stdout, /^pod\s+0\/1\s+Pending\s+0\s+\S+$/m);
      const deploys = await kubectl("-n", ns, "get", "deploy");
      assert.equal(deploys.code, 0, deploys.stderr);
      assert.match(deploys.stdout, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\n/);
      assert.match(deploys.stdout, /^deploy\s+0\/1\s+0\s+0\s+\S+$/m);
    });

    test("explain configmap reads the schema", async (t) => {
      if (!usable) return t.skip(`kubectl ${client.version} not found`);
      const r = await kubectl("explain", "configmap.data");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /KIND:\s+ConfigMap/);
      assert.match(r.stdout, /FIELD:\s+data/);
    });
  });
}
