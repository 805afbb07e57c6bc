// kubectl's authorization commands against the run's server: `auth can-i` (one check and
// `--list`), `--as` impersonation, and `create token` whose token then authenticates kubectl.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Environment, eventually } from "controller-runtime/envtest";
import { newRESTClient, renderKubeconfig } from "controller-runtime/rest";
import { isUsable, type KubectlRunner, kubectlClients, kubectlRunner } from "./kubectl-binaries.js";

let env: Environment;
let dir: string;
const run = randomBytes(3).toString("hex");

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "kubectl-auth-"));
  env = new Environment();
  await env.start();
});
after(async () => {
  await env.stop();
  await rm(dir, { recursive: true, force: true });
});

for (const client of kubectlClients()) {
  describe(`kubectl ${client.version} auth`, () => {
    let usable = false;
    let kubectl: KubectlRunner;
    const ns = `auth-${client.id}-${run}`;

    before(async () => {
      usable = await isUsable(client);
      if (!usable) return;
      kubectl = kubectlRunner(client, env.started.kubeconfigPath, dir);
      const admin = newRESTClient(env.config);
      const post = (path: string, body: object) => admin.request({ method: "POST", path, body });
      await post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      await post(`/api/v1/namespaces/${ns}/serviceaccounts`, {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "robot" },
      });
      await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: "reader" },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }],
      });
      await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "reader" },
        subjects: [
          { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "bob" },
          { kind: "ServiceAccount", name: "robot", namespace: ns },
        ],
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
      });
    });

    const canI = (...args: string[]) => kubectl("auth", "can-i", ...args);

    test("auth can-i answers for the admin and, with --as, for another user", async (t) => {
      if (!usable) return t.skip(`kubectl ${client.version} is not available`);
      const mine = await canI("delete", "secrets", "-n", ns);
      assert.equal(mine.stdout.trim(), "yes");
      const bob = await eventually("the binding to take effect", async () => {
        const r = await canI("list", "configmaps", "-n", ns, "--as", "bob");
        return r.stdout.trim() === "yes" ? r : undefined;
      });
      assert.equal(bob.code, 0);
      const no = await canI("delete", "configmaps", "-n", ns, "--as", "bob");
      assert.equal(no.stdout.trim(), "no");
      assert.equal(no.code, 1, "kubectl exits 1 for no");
      const list = await kubectl("auth", "can-i", "--list", "-n", ns, "--as", "bob");
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /^configmaps\s+\[\]\s+\[\]\s+\[get list\]$/m);
      assert.match(
        list.stdout,
        /selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/,
      );
    });

    test("--as acts as the user: its requests meet RBAC", async (t) => {
      if (!usable) return t.skip(`kubectl ${client.version} is not available`);
      const denied = await kubectl("get", "secrets", "-n", ns, "--as", "bob");
      assert.notEqual(denied.code, 0);
      assert.match(
        denied.stderr,
        /secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace/,
      );
      const allowed = await kubectl("get", "configmaps", "-n", ns, "--as", "bob");
      assert.equal(allowed.code, 0, allowed.stderr);
    });

    test("create token issues a token that authenticates kubectl as the ServiceAccount", async (t) => {
      if (!usable) return t.skip(`kubectl ${client.version} is not available`);
      if (client.version === "1.20") return t.skip("kubectl 1.20 has no `create token` (added in 1.24)");
      const created = await kubectl("create", "token", "robot", "-n", ns, "--duration", "15m");
      assert.equal(created.code, 0, created.stderr);
      const token = created.stdout.trim();
      const config = env.config;
      const kubeconfig = join(dir, `robot-${client.id}`);
      await writeFile(
        kubeconfig,
        renderKubeconfig({ ...config, tls: { ca: config.tls.ca }, auth: { bearerToken: token } }, "robot"),
      );
      const asRobot = kubectlRunner(client, kubeconfig, dir);
      const who = await asRobot("auth", "can-i", "list", "configmaps", "-n", ns);
      assert.equal(who.stdout.trim(), "yes", who.stderr);
      const denied = await asRobot("get", "secrets", "-n", ns);
      assert.match(
        denied.stderr,
        new RegExp(`User "system:serviceaccount:${ns}:robot" cannot list resource "secrets"`),
      );
    });
  });
}
