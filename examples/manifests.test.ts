// Every example's config/ manifests, applied with kubectl to the embedded API server as a user
// would apply them to a cluster, so they stay valid: the CRDs first (and established), then the
// Namespace, RBAC, ServiceAccount and Deployment, then the samples.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { kinds } from "controller-runtime/api";
import { type Client, newClient } from "controller-runtime/client";
import { needsControlPlane, testEnvironment } from "../test/support/environment.js";

const run = promisify(execFile);
const examplesDir = fileURLToPath(new URL(".", import.meta.url));
const examples = readdirSync(examplesDir).filter((d) => existsSync(join(examplesDir, d, "config")));

/** Where each operator is deployed (config/manager/manager.yaml). */
const namespaces: Record<string, string> = {
  markdownview: "markdown-view-system",
  "pods-deployments": "manager-examples-system",
  storagebucket: "storagebucket-system",
};

const env = testEnvironment();
let client: Client;
let cacheDir: string;

before(async () => {
  client = newClient(await env.start());
  cacheDir = mkdtempSync(join(tmpdir(), "kubectl-cache-"));
});

after(async () => {
  await client.close();
  await env.stop();
  rmSync(cacheDir, { recursive: true, force: true });
});

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(
    "kubectl",
    ["--kubeconfig", env.started.kubeconfigPath, "--cache-dir", cacheDir, ...args],
    { timeout: 60_000 },
  );
  return stdout;
}

test("there are examples with manifests", () => {
  assert.deepEqual(examples.sort(), ["markdownview", "pods-deployments", "storagebucket"]);
});

for (const example of examples) {
  test(
    `${example}: kubectl applies every manifest in config/`,
    needsControlPlane("fresh-cluster"),
    async () => {
      const config = join(examplesDir, example, "config");
      const crds = join(config, "crd");
      if (existsSync(crds)) {
        await kubectl("apply", "-f", crds);
        await kubectl("wait", "--for=condition=Established", "-f", crds, "--timeout=30s");
      }
      for (const dir of ["manager", "rbac", "samples"]) {
        if (existsSync(join(config, dir))) await kubectl("apply", "-f", join(config, dir));
      }

      // The operator's Deployment: two replicas, probed on /healthz and /readyz.
      const ns = namespaces[example];
      const deployments = await client.list(kinds.Deployment, { inNamespace: ns });
      const dep = deployments.items.find(
        (d) => d.metadata?.labels?.["control-plane"] === "controller-manager",
      );
      assert.ok(dep, "the operator's Deployment");
      assert.equal(dep.spec?.replicas, 2);
      const container = dep.spec?.template.spec?.containers[0];
      assert.equal(container?.livenessProbe?.httpGet?.path, "/healthz");
      assert.equal(container?.readinessProbe?.httpGet?.path, "/readyz");
      assert.ok(container?.args?.includes("--leader-elect"));

      // Leader election needs Leases, and Events are recorded: the RBAC grants both.
      const roles = await client.list(kinds.Role, { inNamespace: ns });
      const rules = roles.items.flatMap((r) => r.rules ?? []);
      assert.ok(rules.some((r) => r.resources?.includes("leases") && r.verbs.includes("update")));
      assert.ok(rules.some((r) => r.resources?.includes("events") && r.verbs.includes("create")));
      const sa = await client.get(kinds.ServiceAccount, {
        namespace: ns,
        name: dep.spec!.template.spec!.serviceAccountName!,
      });
      assert.ok(sa.metadata?.uid);

      // Applying again changes nothing: the manifests are what the server keeps.
      const again = await kubectl("apply", "-R", "-f", config);
      assert.doesNotMatch(again, / (created|configured)$/m);
    },
  );
}
