// kube-controller-manager's Deployment controller, much simplified: one ReplicaSet per pod
// template (named after its hash, numbered by its revision annotation as kube numbers them), older
// ones deleted at once (a Recreate rollout), and the Deployment's status copied from its current
// ReplicaSet.
import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { Deployment, DeploymentStatus, ReplicaSet } from "kubernetes-types/apps/v1.js";
import { type DeepReadonly, deepCopy, kinds } from "../../api/index.js";
import type { Client, ClientReader } from "../../client/index.js";
import type { ReconcileContext, Reconciler, Request } from "../../reconcile/index.js";
import { ignoreNotFound, isNotFound } from "../../rest/index.js";
import { controlledBy, listControlled } from "./owned.js";

export class DeploymentSimulator implements Reconciler {
  constructor(
    private readonly client: Client,
    private readonly apiReader: ClientReader,
  ) {}

  async reconcile(req: Request, { signal }: ReconcileContext): Promise<void> {
    let dep: DeepReadonly<Deployment>;
    try {
      dep = await this.client.get(kinds.Deployment, req, { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (dep.metadata?.deletionTimestamp || !dep.spec) return;

    const hash = createHash("sha256").update(JSON.stringify(dep.spec.template)).digest("hex").slice(0, 10);
    const name = `${dep.metadata?.name}-${hash}`;
    const replicas = dep.spec.replicas ?? 1;
    const owned = await listControlled(this.apiReader, kinds.ReplicaSet, dep, signal);
    const newest = Math.max(0, ...owned.map(revisionOf));
    for (const old of owned.filter((rs) => rs.metadata?.name !== name)) {
      await this.client.delete(old).catch((err) => {
        if (ignoreNotFound(err)) throw err;
      });
    }
    let current = owned.find((rs) => rs.metadata?.name === name);
    if (!current) {
      current = await this.client.create<ReplicaSet>(newReplicaSet(dep, name, hash, replicas, newest + 1));
    } else if (current.spec?.replicas !== replicas) {
      current = await this.client.update<ReplicaSet>({ ...current, spec: { ...current.spec!, replicas } });
    }

    // The Deployment's revision is its current ReplicaSet's (kube's deployment.kubernetes.io/revision).
    const revision = String(revisionOf(current) || newest + 1);
    if (dep.metadata?.annotations?.[REVISION] !== revision) {
      const annotations = { ...dep.metadata?.annotations, [REVISION]: revision };
      await this.client.update<Deployment>({ ...dep, metadata: { ...dep.metadata, annotations } });
      return; // the update comes back as an event, for the status
    }

    const rs = current.status;
    const available = rs?.availableReplicas ?? 0;
    const status: DeploymentStatus = {
      observedGeneration: dep.metadata?.generation,
      replicas: rs?.replicas ?? 0,
      updatedReplicas: rs?.replicas ?? 0,
      readyReplicas: rs?.readyReplicas ?? 0,
      availableReplicas: available,
      unavailableReplicas: Math.max(0, replicas - available),
      conditions: [availableCondition(dep, available >= replicas)],
    };
    if (!isDeepStrictEqual(dep.status ?? {}, status)) await this.client.status().update({ ...dep, status });
  }
}

const REVISION = "deployment.kubernetes.io/revision";

function revisionOf(rs: DeepReadonly<ReplicaSet>): number {
  return Number(rs.metadata?.annotations?.[REVISION] ?? 0) || 0;
}

function newReplicaSet(
  dep: DeepReadonly<Deployment>,
  name: string,
  hash: string,
  replicas: number,
  revision: number,
): ReplicaSet {
  const template = deepCopy(dep.spec!.template);
  template.metadata = {
    ...template.metadata,
    labels: { ...template.metadata?.labels, "pod-template-hash": hash },
  };
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name,
      namespace: dep.metadata?.namespace,
      labels: template.metadata.labels,
      annotations: { [REVISION]: String(revision) },
      ownerReferences: [controlledBy(dep)],
    },
    spec: {
      replicas,
      selector: {
        ...deepCopy(dep.spec!.selector),
        matchLabels: { ...dep.spec!.selector.matchLabels, "pod-template-hash": hash },
      },
      template,
    },
  };
}

/** Keeps the previous transition time while the condition holds, as kube does. */
function availableCondition(dep: DeepReadonly<Deployment>, available: boolean) {
  const status = available ? "True" : "False";
  const prev = dep.status?.conditions?.find((c) => c.type === "Available");
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const since = prev?.status === status ? prev.lastTransitionTime : now;
  return {
    type: "Available",
    status,
    reason: available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
    message: available
      ? "Deployment has minimum availability."
      : "Deployment does not have minimum availability.",
    lastTransitionTime: since,
    lastUpdateTime: prev?.status === status ? prev.lastUpdateTime : now,
  };
}
