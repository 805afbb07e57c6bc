// Real kubectl drives the API server: create, apply, get -o yaml, get -w, patch (three types),
// delete, api-resources, and wait --for=condition on a CRD and on a custom resource. Every test
// runs under each kubectl of kubectl-binaries.ts (1.32 on PATH, Debian's 1.20 when found); the
// server comes from an Environment, so the suite also runs against real kube-apiservers.
import assert from "node:assert/strict";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parse } from "yaml";
import { Environment } from "controller-runtime/envtest";
import { newRESTClient } from "controller-runtime/rest";
import { isUsable, type KubectlRunner, kubectlClients, kubectlRunner } from "./kubectl-binaries.js";

let env: Environment;
let dir: string;
// Names carry a run id so that runs against a shared cluster never meet each other's objects.
const run = randomBytes(3).toString("hex");

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "kubectl-"));
  env = new Environment();
  await env.start();
});
after(async () => {
  await env.stop();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Collects a long-running kubectl's output; `until` resolves once stdout (or stderr) matches.
 * Started with -v=6, kubectl logs each request on stderr once its response headers arrive, so
 * `until(/watch=true/, "err")` says its watch is open.
 */
function follow(child: ChildProcessWithoutNullStreams) {
  const text = { out: "", err: "" };
  const waiters = new Set<() => void>();
  const check = () => {
    for (const w of waiters) w();
  };
  child.stdout.on("data", (d: Buffer) => {
    text.out += d.toString();
    check();
  });
  child.stderr.on("data", (d: Buffer) => {
    text.err += d.toString();
    check();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    get out() {
      return text.out;
    },
    get err() {
      return text.err;
    },
    exited,
    /** Resolves when the stream matches `re`; rejects when kubectl exits first or after 20 s. */
    until(re: RegExp, stream: "out" | "err" = "out"): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        const finish = (error?: Error) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          if (error) reject(error);
          else resolve();
        };
        const describe = () => `stdout:\n${text.out}\nstderr:\n${text.err}`;
        const waiter = () => {
          if (re.test(text[stream])) finish();
        };
        const timer = setTimeout(() => finish(new Error(`no ${re} within 20 s; ${describe()}`)), 20_000);
        waiters.add(waiter);
        waiter();
        void exited.then((code) => {
          if (waiters.has(waiter)) finish(new Error(`kubectl exited (${code}) before ${re}; ${describe()}`));
        });
      });
    },
  };
}

for (const client of kubectlClients()) {
  describe(`kubectl ${client.version}`, () => {
    const id = `${client.id}-${run}`;
    let usable = false;
    let kubectl: KubectlRunner;
    const children: ChildProcessWithoutNullStreams[] = [];

    before(async () => {
      usable = await isUsable(client);
      if (usable) kubectl = kubectlRunner(client, env.started.kubeconfigPath, dir);
    });
    after(() => {
      for (const c of children) c.kill();
    });

    /** Runs kubectl and asserts it succeeded; returns stdout. */
    async function ok(...args: string[]): Promise<string> {
      const r = await kubectl(...args);
      assert.equal(r.code, 0, `kubectl ${args.join(" ")}: ${r.stderr}`);
      return r.stdout;
    }

    function spawnFollowed(...args: string[]) {
      const child = kubectl.spawn(...args);
      children.push(child);
      return follow(child);
    }

    test("create, get -o yaml, patch (strategic, json, merge) and delete", async (t) => {
      if (!usable) return t.skip(`kubectl ${client.version} not found`);
      const ns = `${id}-crud`;
      assert.match(await ok("create", "namespace", ns), new RegExp(`namespace/${ns} created`));
      assert.match(
        await ok("-n", ns, "create", "configmap", "c1", "--from-literal=a=b"),
        /configmap\/c1 created/,
      );
      assert.match(await ok("-n", ns, "patch", "configmap", "c1", "-p", '{"data":{"s":"1"}}'), /patched/);
      await ok(
        "-n",
        ns,
        "patch",
        "configmap",
        "c1",
        "--type=json",
        "-p",
        '[{"op":"add","path":"/data/j","value":"2"}]',
      );
      await ok("-n", ns, "patch", "configmap", "c1", "--type=merge", "-p", '{"data":{"m":"3"}}');
      const cm = parse(await ok("-n", ns, "get", "configmap", "c1", "-o", "yaml"));
      assert.deepEqual(cm.data, { a: "b", s: "1", j: "2", m: "3" });
      assert.equal(cm.metadata.namespace, ns);
      // A patch that changes nothing is reported as such (the server answers the same object).
      assert.match(
        await ok("-n", ns, "patch", "configmap", "c1", "--type=merge", "-p", '{"data":{"m":"3"}}'),
        /configmap\/c1 patched \(no change\)/,
      );
      // kubectl deletes with a DeleteOptions body ({"propagationPolicy":"Background"}).
      assert.match(await ok("-n", ns, "delete", "configmap", "c1"), /configmap "c1" deleted/);
      const missing = await kubectl("-n", ns, "get", "configmap", "c1");
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /Error from server \(NotFound\): configmaps "c1" not found/);
      assert.doesNotMatch(await ok("-n", ns, "get", "configmaps", "-o", "name"), /configmap\/c1$/m);
    });

    test("apply creates then configures a Deployment; api-resources lists short names", async (t) => {
      if (!usable) return t.skip(`kubectl ${client.version} not found`);
      const ns = `${id}-apply`;
      await ok("create", "namespace", ns);
      const file = join(dir, `${id}-deploy.yaml`);
      const manifest = (replicas: number) =>
        `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ${ns}}\nspec:\n  replicas: ${replicas}\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n`;
      await writeFile(file, manifest(1));
      assert.match(await ok("apply", "-f", file), /deployment\.apps\/web created/);
      await writeFile(file, manifest(2));
      assert.match(await ok("apply", "-f", file), /deployment\.apps\/web configured/);
      assert.match(await ok("apply", "-f", file), /deployment\.apps\/web unchanged/);
      const d = JSON.parse(await ok("-n", ns, "get", "deploy", "web", "-o", "json"));
      assert.equal(d.spec.replicas, 2);
      assert.equal(d.metadata.generation, 2);
      assert.match(
        d.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"],
        /"replicas":2/,
      );
      const resources = await ok("api-resources");
      assert.match(resources, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/m);
      assert.match(resources, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
      assert.match(resources, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
      assert.match(resources, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
      assert.match(
        resources,
        /^customresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false\s+CustomResourceDefinition$/m,
      );
      const wide = await ok("api-resources", "--api-group=apps", "-o", "wide");
      assert.match(wide, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment\s+.*\bwatch\b/m);
    });

    for (const output of [[], ["-o", "name"]]) {
      const how = output.length ? "-o name" : "the table";
      test(`get -w with ${how} prints additions, changes and deletions as they happen`, async (t) => {
        if (!usable) return t.skip(`kubectl ${client.version} not found`);
        const ns = `${id}-watch${output.length ? "-name" : ""}`;
        await ok("create", "namespace", ns);
        await ok("-n", ns, "create", "configmap", "first");
        const watch = spawnFollowed("-n", ns, "get", "configmaps", "-w", "--output-watch-events", ...output);
        // The watch starts from the initial list's resourceVersion: once `first` is printed, every
        // later change reaches it.
        await watch.until(/first/);
        await ok("-n", ns, "create", "configmap", "late");
        await ok("-n", ns, "patch", "configmap", "late", "-p", '{"data":{"x":"1"}}');
        await ok("-n", ns, "delete", "configmap", "late");
        if (output.length) {
          // The name printer shows no event types, only one line per event.
          await watch.until(/^(configmap\/late\n){3}/m);
          assert.equal(watch.out, "configmap/first\nconfigmap/late\nconfigmap/late\nconfigmap/late\n");
        } else {
          // Wait for the whole line: kubectl may write it in more than one piece.
          await watch.until(/^DELETED\s+late\s+1\s+\S+\n/m);
          assert.match(watch.out, /^EVENT\s+NAME\s+DATA\s+AGE$/m);
          assert.match(watch.out, /^ADDED\s+first\s+0\s+\S+$/m);
          assert.match(
            watch.out,
            /^ADDED\s+late\s+0\s+\S+\nMODIFIED\s+late\s+1\s+\S+\nDELETED\s+late\s+1\s+\S+$/m,
          );
        }
      });
    }

    test("wait --for=condition on a CRD and on its custom resource; patch types on a custom resource", async (t) => {
      if (!usable) return t.skip(`kubectl ${client.version} not found`);
      const group = `${id}.example.com`;
      const short = `gd${client.id}${run}`;
      const crd = {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: `gadgets.${group}` },
        spec: {
          group,
          names: { kind: "Gadget", plural: "gadgets", singular: "gadget", shortNames: [short] },
          scope: "Namespaced",
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              subresources: { status: {} },
              schema: {
                openAPIV3Schema: {
                  type: "object",
                  properties: {
                    spec: { type: "object", properties: { size: { type: "integer", default: 3 } } },
                    status: {
                      type: "object",
                      properties: {
                        conditions: {
                          type: "array",
                          items: {
                            type: "object",
                            properties: { type: { type: "string" }, status: { type: "string" } },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          ],
        },
      };
      const crdFile = join(dir, `${id}-crd.json`);
      await writeFile(crdFile, JSON.stringify(crd));
      await ok("create", "-f", crdFile);
      assert.match(
        await ok("wait", "--for=condition=Established", `crd/gadgets.${group}`, "--timeout=20s"),
        /condition met/,
      );
      const ns = `${id}-cr`;
      await ok("create", "namespace", ns);
      const crFile = join(dir, `${id}-cr.json`);
      const gadget = {
        apiVersion: `${group}/v1`,
        kind: "Gadget",
        metadata: { name: "g1", namespace: ns },
        spec: {},
      };
      await writeFile(crFile, JSON.stringify(gadget));
      assert.match(
        await ok("create", "-f", crFile),
        new RegExp(`gadget\\.${group.replaceAll(".", "\\.")}/g1 created`),
      );
      const got = JSON.parse(await ok("-n", ns, "get", short, "g1", "-o", "json"));
      assert.equal(got.spec.size, 3, "the schema default applies");
      assert.match(
        await ok("api-resources", `--api-group=${group}`),
        new RegExp(`^gadgets\\s+${short}\\s+${group.replaceAll(".", "\\.")}/v1\\s+true\\s+Gadget$`, "m"),
      );

      // Custom resources take merge and JSON patches; a strategic merge patch is refused (415).
      await ok("-n", ns, "patch", short, "g1", "--type=merge", "-p", '{"spec":{"size":4}}');
      await ok(
        "-n",
        ns,
        "patch",
        short,
        "g1",
        "--type=json",
        "-p",
        '[{"op":"replace","path":"/spec/size","value":5}]',
      );
      assert.equal(await ok("-n", ns, "get", short, "g1", "-o", "jsonpath={.spec.size}"), "5");
      const strategic = await kubectl("-n", ns, "patch", short, "g1", "-p", '{"spec":{"size":6}}');
      assert.notEqual(strategic.code, 0);
      assert.match(strategic.stderr, /the body of the request was in an unknown format/);

      // wait lists, then watches with fieldSelector=metadata.name=g1 until the condition is met.
      // The condition is set once the watch is open, so it has to arrive as a watch event.
      const wait = spawnFollowed(
        "-v=6",
        "-n",
        ns,
        "wait",
        "--for=condition=Ready",
        `${short}/g1`,
        "--timeout=20s",
      );
      await wait.until(/fieldSelector=metadata\.name%3Dg1.*watch=true/, "err");
      const rest = newRESTClient(env.config);
      try {
        await rest.patch(
          { group, version: "v1", resource: "gadgets", namespaced: true },
          "g1",
          { status: { conditions: [{ type: "Ready", status: "True" }] } },
          { namespace: ns, patchType: "merge", subresource: "status" },
        );
      } finally {
        await rest.close();
      }
      await wait.until(/condition met/);
      assert.equal(await wait.exited, 0, wait.err);

      const gone = spawnFollowed("-v=6", "-n", ns, "wait", "--for=delete", `${short}/g1`, "--timeout=20s");
      await gone.until(/fieldSelector=metadata\.name%3Dg1.*watch=true/, "err");
      await ok("-n", ns, "delete", short, "g1", "--wait=false");
      await gone.until(/condition met/);
      assert.equal(await gone.exited, 0, gone.err);
      assert.match(await ok("delete", "crd", `gadgets.${group}`), /deleted/);
    });
  });
}
