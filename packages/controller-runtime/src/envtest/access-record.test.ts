// envtest's RBAC support: an operator's manifests installed and run as their ServiceAccount (both
// servers: a missing rule is kube's 403), and the access record that derives the smallest
// ClusterRole from what the account did and names what manifests lack (embedded server only).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { needs, testEnvironment } from "../../../../test/support/environment.js";
import { newRESTClient, StatusError } from "../rest/index.js";
import type { Environment } from "./environment.js";

const dir = mkdtempSync(join(tmpdir(), "envtest-rbac-"));
const ns = `operator-${process.pid}`;
// A kubebuilder-like config/rbac: bindings first (as kubebuilder's files sort), a Role for
// leader election in the operator's namespace, a ClusterRole that can read but not patch.
writeFileSync(
  join(dir, "role_binding.yaml"),
  `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ${ns}-manager}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${ns}-manager}
subjects: [{kind: ServiceAccount, name: controller-manager, namespace: ${ns}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: leader-election, namespace: ${ns}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: leader-election}
subjects: [{kind: ServiceAccount, name: controller-manager, namespace: ${ns}}]
`,
);
writeFileSync(
  join(dir, "role.yaml"),
  `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ${ns}-manager}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: leader-election, namespace: ${ns}}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, create, update]
`,
);
writeFileSync(
  join(dir, "service_account.yaml"),
  `apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: controller-manager, namespace: ${ns}}\n`,
);
writeFileSync(
  join(dir, "kustomization.yaml"),
  "resources: [role.yaml, role_binding.yaml, service_account.yaml]\n",
);

let env: Environment;
before(async () => {
  env = testEnvironment({ rbac: { manifestPaths: [dir] } });
  await env.start();
});
after(async () => {
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("rbac: the manifests are installed and rbacConfig is their ServiceAccount, held to them", async () => {
  assert.equal(env.started.rbac?.user, `system:serviceaccount:${ns}:controller-manager`);
  const operator = newRESTClient(env.rbacConfig);
  try {
    await operator.request({ path: "/api/v1/namespaces/default/configmaps" });
    await assert.rejects(
      operator.request({
        method: "PATCH",
        path: "/api/v1/namespaces/default/configmaps/x",
        body: {},
        contentType: "application/merge-patch+json",
      }),
      (e: unknown) =>
        e instanceof StatusError &&
        e.status.code === 403 &&
        e.status.message ===
          `configmaps "x" is forbidden: User "system:serviceaccount:${ns}:controller-manager" cannot patch resource "configmaps" in API group "" in the namespace "default"`,
    );
  } finally {
    await operator.close();
  }
});

test(
  "the access record gives the smallest ClusterRole and names what the manifests lack",
  needs("embedded-behaviour"),
  async () => {
    const user = env.started.rbac!.user;
    const record = env.recordAccess(user);
    const operator = newRESTClient(env.rbacConfig);
    const admin = newRESTClient(env.config);
    try {
      await operator.request({ path: "/api/v1/namespaces/default/configmaps" });
      await operator.request({
        path: "/api/v1/configmaps",
        query: { watch: "true", timeoutSeconds: 1 },
        responseType: "text",
      });
      await operator
        .request({ path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/lock` })
        .catch(() => {});
      await operator.request({ path: "/apis" }); // discovery: every user may, so no rule is needed
      // What the admin does is not the operator's.
      await admin.request({ path: "/api/v1/secrets" });
      // Grant a patch through a second binding, so the record sees one the manifests lack.
      await admin.request({
        method: "POST",
        path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        body: {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRole",
          metadata: { name: `${ns}-extra` },
          rules: [
            { apiGroups: ["apps"], resources: ["deployments", "deployments/status"], verbs: ["patch"] },
          ],
        },
      });
      await admin.request({
        method: "POST",
        path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        body: {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRoleBinding",
          metadata: { name: `${ns}-extra` },
          subjects: [{ kind: "ServiceAccount", name: "controller-manager", namespace: ns }],
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `${ns}-extra` },
        },
      });
      for (const sub of ["", "/status"]) {
        await operator
          .request({
            method: "PATCH",
            path: `/apis/apps/v1/namespaces/default/deployments/d${sub}`,
            body: {},
            contentType: "application/merge-patch+json",
          })
          .catch((e: unknown) => assert.equal((e as StatusError).status.code, 404));
      }
      record.stop();
      await operator
        .request({ method: "DELETE", path: "/api/v1/namespaces/default/configmaps/y" })
        .catch(() => {});

      assert.equal(
        record.clusterRoleYAML("manager-role", user),
        `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
  - apiGroups:
      - ""
    resources:
      - configmaps
    verbs:
      - list
      - watch
  - apiGroups:
      - apps
    resources:
      - deployments
      - deployments/status
    verbs:
      - patch
  - apiGroups:
      - coordination.k8s.io
    resources:
      - leases
    verbs:
      - get
`,
      );
      assert.ok(record.accesses().every((a) => a.user === user));
      assert.deepEqual(
        record.missingFrom([dir], user).map((m) => m.message),
        [
          `${dir}: no rule grants ${user} \`patch\` on \`deployments.apps\` in namespace default`,
          `${dir}: no rule grants ${user} \`patch\` on \`deployments/status.apps\` in namespace default`,
        ],
      );
    } finally {
      await operator.close();
      await admin.close();
    }
  },
);

test("the access record needs the embedded server", async (t) => {
  if (env.started.apiServer) return t.skip("runs where the server is not embedded");
  assert.throws(() => env.recordAccess(), /needs the embedded API server/);
});
