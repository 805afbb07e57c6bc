// kube-controller-manager's ReplicaSet controller, much simplified: as many Pods as asked for,
// made from the template, and the ReplicaSet's status counted from them.
import { isDeepStrictEqual } from "node:util";
import type { ReplicaSet, ReplicaSetStatus } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { type DeepReadonly, deepCopy, kinds } from "../../api/index.js";
import type { Client, ClientReader } from "../../client/index.js";
import type { ReconcileContext, Reconciler, Request } from "../../reconcile/index.js";
import { ignoreNotFound, isNotFound } from "../../rest/index.js";
import { isPodReady } from "./kubelet.js";
import { controlledBy, listControlled } from "./owned.js";

export class ReplicaSetSimulator implements Reconciler {
  constructor(
    private readonly client: Client,
    private readonly apiReader: ClientReader,
  ) {}

  async reconcile(req: Request, { signal }: ReconcileContext): Promise<void> {
    let rs: DeepReadonly<ReplicaSet>;
    try {
      rs = await this.client.get(kinds.ReplicaSet, req, { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (rs.metadata?.deletionTimestamp || !rs.spec) return;

    const want = rs.spec.replicas ?? 1;
    let pods = await listControlled(this.apiReader, kinds.Pod, rs, signal);
    for (let i = pods.length; i < want; i++) {
      pods = [...pods, await this.client.create<Pod>(newPod(rs))];
    }
    for (const surplus of pods.slice(want)) {
      await this.client.delete(surplus).catch((err) => {
        if (ignoreNotFound(err)) throw err;
      });
    }
    pods = pods.slice(0, want);

    const ready = pods.filter(isPodReady).length;
    const status: ReplicaSetStatus = {
      replicas: pods.length,
      fullyLabeledReplicas: pods.length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: rs.metadata?.generation,
    };
    if (!isDeepStrictEqual(rs.status ?? {}, status)) await this.client.status().update({ ...rs, status });
  }
}

function newPod(rs: DeepReadonly<ReplicaSet>): Pod {
  const template = rs.spec!.template!;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: `${rs.metadata?.name}-`,
      namespace: rs.metadata?.namespace,
      labels: template.metadata?.labels,
      ownerReferences: [controlledBy(rs)],
    },
    spec: deepCopy(template.spec)!,
  };
}
