// Shared by the examples' tests: a namespace per test, and the Events about an object.
// (Waiting for a state is envtest's `eventually`.)
import { randomUUID } from "node:crypto";
import type { Event } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import type { Client } from "controller-runtime/client";
import type { Environment } from "controller-runtime/envtest";
import type { DeepReadonly } from "controller-runtime/api";

export async function newNamespace(client: Client, prefix: string): Promise<string> {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

/** The reasons of the Events about the object `name` in `namespace` (in no particular order). */
export async function eventReasons(client: Client, namespace: string, name: string): Promise<string[]> {
  const events = await client.list(kinds.Event, { inNamespace: namespace });
  return events.items
    .filter((e: DeepReadonly<Event>) => e.involvedObject.name === name)
    .map((e) => e.reason ?? "");
}

/**
 * Records what the operator's ServiceAccount does (on the embedded server, which sees every
 * authorization); `check()` then fails when the example's config/rbac does not grant all of it,
 * printing the ClusterRole that would. Elsewhere the manager still runs as the ServiceAccount,
 * so kube-apiserver itself refuses whatever config/rbac lacks.
 */
export function recordOperatorAccess(env: Environment, rbacDir: string) {
  const rbac = env.started.rbac;
  if (!rbac) throw new Error("the environment needs rbac manifests");
  const record = env.started.apiServer ? env.recordAccess(rbac.user) : undefined;
  return {
    check() {
      if (!record) return;
      record.stop();
      const missing = record.missingFrom([rbacDir], rbac.user);
      if (missing.length > 0) {
        throw new Error(
          `${missing.map((m) => m.message).join("\n")}\nwhat the operator did needs:\n${record.clusterRoleYAML("manager-role", rbac.user)}`,
        );
      }
      if (record.accesses(rbac.user).length === 0) throw new Error("nothing was recorded for the operator");
    },
  };
}
