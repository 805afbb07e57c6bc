// kube-controller-manager's ReplicaSet controller, much simplified: as many Pods as asked for,
// made from the template (orphans its selector matches adopted, Pods it no longer matches
// released), and the ReplicaSet's status counted from them.
import { isDeepStrictEqual } from "node:util";
import type { ReplicaSet, ReplicaSetStatus } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { OwnerReference } from "kubernetes-types/meta/v1.js";
import { type DeepReadonly, deepCopy, kinds, labelSelectorFromObject } from "../../api/index.js";
import { getControllerOf } from "../../controllerutil/index.js";
import { type Client, type ClientReader, jsonPatch } from "../../client/index.js";
import type { ReconcileContext, Reconciler, Request } from "../../reconcile/index.js";
import { ignoreNotFound, isConflict, isInvalid, isNotFound } from "../../rest/index.js";
import { isPodReady } from "./kubelet.js";
import { controlledBy } from "./owned.js";

export class ReplicaSetSimulator implements Reconciler {
  constructor(
    private readonly client: Client,
    private readonly apiReader: ClientReader,
  ) {}

  private claimPods(rs: DeepReadonly<ReplicaSet>, signal: AbortSignal): Promise<DeepReadonly<Pod>[]> {
    return claim(this.client, this.apiReader, rs, signal);
  }

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
    let pods = await this.claimPods(rs, signal);
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

/**
 * The Pods a ReplicaSet controls, as kube's ControllerRefManager claims them: an orphan that its
 * selector matches is adopted (given the ReplicaSet as controller), one it controls whose labels no
 * longer match is released (its controller reference removed).
 */
async function claim(
  client: Client,
  reader: ClientReader,
  rs: DeepReadonly<ReplicaSet>,
  signal: AbortSignal,
): Promise<DeepReadonly<Pod>[]> {
  const selector = labelSelectorFromObject(rs.spec?.selector);
  const uid = rs.metadata?.uid;
  const all = await reader.list(kinds.Pod, { inNamespace: rs.metadata?.namespace, signal });
  const claimed: DeepReadonly<Pod>[] = [];
  for (const pod of all.items) {
    if (pod.metadata?.deletionTimestamp) continue;
    const controller = getControllerOf(pod);
    const matches = selector.matches(pod.metadata?.labels ?? {});
    const refs = pod.metadata?.ownerReferences ?? [];
    if (controller?.uid === uid) {
      if (matches) {
        claimed.push(pod);
        continue;
      }
      const kept = refs.filter((r) => r.uid !== uid);
      await patchOwners(client, pod, kept, signal);
    } else if (!controller && matches && !rs.metadata?.deletionTimestamp) {
      const adopted = await patchOwners(client, pod, [...refs, controlledBy(rs)], signal);
      if (adopted) claimed.push(adopted);
    }
  }
  return claimed;
}

/**
 * Writes a Pod's ownerReferences, if it is still the Pod read (its uid), as kube's
 * ControllerRefManager patches them with the uid as the only precondition. Not its version: the
 * kubelet writes a new Pod's status meanwhile, and an adoption refused for that left the orphan
 * unclaimed, a Pod made in its place, and the orphan deleted as the surplus on the next pass.
 */
async function patchOwners(
  client: Client,
  pod: DeepReadonly<Pod>,
  ownerReferences: OwnerReference[],
  signal: AbortSignal,
): Promise<DeepReadonly<Pod> | undefined> {
  try {
    return await client.patch<Pod>(
      { ...pod },
      jsonPatch([
        { op: "test", path: "/metadata/uid", value: pod.metadata?.uid },
        { op: "replace", path: "/metadata/ownerReferences", value: ownerReferences },
      ]),
      { signal },
    );
  } catch (err) {
    // Gone or changed since listed: its own event brings the ReplicaSet back.
    if (isNotFound(err) || isInvalid(err) || isConflict(err)) return undefined;
    throw err;
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
