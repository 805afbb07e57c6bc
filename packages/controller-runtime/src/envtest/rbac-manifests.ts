// An operator's RBAC manifests (kubebuilder's config/rbac): read from files, installed into the
// environment, and the ServiceAccount they bind given a token, so a test's manager runs with
// exactly the permissions the operator will have in a cluster and a missing rule fails the test
// with kube's 403.
import type { RESTConfig } from "../rest/index.js";
import { newRESTClient, type RESTClient, StatusError } from "../rest/index.js";
import { CRDFileError, type ManifestObject, readManifestObjects } from "../crd/manifest-files.js";

export interface RBACOptions {
  /** Files and directories of Roles, ClusterRoles, their bindings and ServiceAccounts. */
  manifestPaths: string[];
  /**
   * The identity to run as. Default: the manifests' one ServiceAccount, else the first
   * ServiceAccount their bindings name.
   */
  serviceAccount?: { namespace: string; name: string };
  /** Lifetime of the account's token. Default: 24 h. */
  tokenExpirationSeconds?: number;
}

const rbacKinds = new Set(["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]);

/** The RBAC objects and ServiceAccounts of the manifests (other documents are skipped). */
export function readRBACManifests(paths: readonly string[]): ManifestObject[] {
  const keep = (o: ManifestObject) =>
    (rbacKinds.has(o.kind ?? "") && o.apiVersion === "rbac.authorization.k8s.io/v1") ||
    (o.kind === "ServiceAccount" && o.apiVersion === "v1");
  return readManifestObjects(
    paths,
    keep,
    (p) => new CRDFileError(`envtest: the RBAC manifest path ${p} does not exist`),
  );
}

const metaOf = (o: ManifestObject) => (o.metadata ?? {}) as { name?: string; namespace?: string };

/** The ServiceAccount the manifests are for. */
export function manifestServiceAccount(
  objects: readonly ManifestObject[],
): { namespace: string; name: string } | undefined {
  const accounts = objects.filter((o) => o.kind === "ServiceAccount");
  if (accounts.length === 1) {
    const m = metaOf(accounts[0]);
    if (m.name) return { namespace: m.namespace ?? "default", name: m.name };
  }
  for (const o of objects) {
    if (o.kind !== "RoleBinding" && o.kind !== "ClusterRoleBinding") continue;
    const subjects = (o.subjects ?? []) as { kind?: string; name?: string; namespace?: string }[];
    const sa = subjects.find((s) => s.kind === "ServiceAccount" && s.name);
    if (sa?.name) return { namespace: sa.namespace ?? metaOf(o).namespace ?? "default", name: sa.name };
  }
  return undefined;
}

function pathOf(o: ManifestObject, namespace: string): string {
  const plural = `${o.kind?.toLowerCase()}s`;
  const base = o.kind === "ServiceAccount" ? "/api/v1" : "/apis/rbac.authorization.k8s.io/v1";
  return o.kind === "ClusterRole" || o.kind === "ClusterRoleBinding"
    ? `${base}/${plural}`
    : `${base}/namespaces/${namespace}/${plural}`;
}

async function createOrKeep(client: RESTClient, path: string, body: unknown): Promise<void> {
  try {
    await client.request({ method: "POST", path, body });
  } catch (e) {
    if (!(e instanceof StatusError && e.status.code === 409)) throw e;
  }
}

/**
 * Installs the manifests as the admin (namespaces they name are created) and answers a config
 * authenticating as their ServiceAccount, with a token from a TokenRequest.
 */
export async function installRBAC(
  admin: RESTConfig,
  opts: RBACOptions,
): Promise<{ config: RESTConfig; user: string }> {
  const objects = readRBACManifests(opts.manifestPaths);
  const account = opts.serviceAccount ?? manifestServiceAccount(objects);
  if (!account) {
    throw new CRDFileError(
      `envtest: the RBAC manifests in ${opts.manifestPaths.join(", ")} name no ServiceAccount; give rbac.serviceAccount`,
    );
  }
  const client = newRESTClient(admin);
  try {
    const namespaces = new Set<string>([account.namespace]);
    for (const o of objects)
      if (o.kind !== "ClusterRole" && o.kind !== "ClusterRoleBinding")
        namespaces.add(metaOf(o).namespace ?? "default");
    for (const ns of namespaces) {
      await createOrKeep(client, "/api/v1/namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: ns },
      });
    }
    // Roles before the bindings that name them; kubebuilder's files sort bindings first.
    const order = ["ServiceAccount", "ClusterRole", "Role", "ClusterRoleBinding", "RoleBinding"];
    const sorted = [...objects].sort((a, b) => order.indexOf(a.kind ?? "") - order.indexOf(b.kind ?? ""));
    for (const o of sorted) await createOrKeep(client, pathOf(o, metaOf(o).namespace ?? "default"), o);
    await createOrKeep(client, `/api/v1/namespaces/${account.namespace}/serviceaccounts`, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: account.name },
    });
    const issued = await client.request<{ status: { token: string } }>({
      method: "POST",
      path: `/api/v1/namespaces/${account.namespace}/serviceaccounts/${account.name}/token`,
      body: {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: { expirationSeconds: opts.tokenExpirationSeconds ?? 86_400 },
      },
    });
    return {
      config: {
        ...admin,
        tls: { ...admin.tls, cert: undefined, key: undefined },
        auth: { bearerToken: issued.status.token },
        source: `envtest ServiceAccount ${account.namespace}/${account.name}`,
      },
      user: `system:serviceaccount:${account.namespace}:${account.name}`,
    };
  } finally {
    await client.close();
  }
}
