// kube-controller-manager's DaemonSet controller, much simplified: one Pod per node the DaemonSet
// may run on (nodeSelector, required node affinity, taints and tolerations), bound to the node
// directly (there is no scheduler); its history kept as ControllerRevisions (one per template,
// numbered as kube numbers them); stale Pods replaced at once; the status counted from the Pods.
import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { ControllerRevision, DaemonSet, DaemonSetStatus } from "kubernetes-types/apps/v1.js";
import type { Node, NodeSelectorRequirement, Pod, Taint, Toleration } from "kubernetes-types/core/v1.js";
import { type DeepReadonly, deepCopy, defineKind, kinds } from "../../api/index.js";
import type { Client, ClientReader } from "../../client/index.js";
import type { ReconcileContext, Reconciler, Request } from "../../reconcile/index.js";
import { ignoreNotFound, isAlreadyExists, isNotFound } from "../../rest/index.js";
import { isPodReady } from "./kubelet.js";
import { controlledBy, listControlled } from "./owned.js";

export const ControllerRevisionKind = defineKind<ControllerRevision>({
  group: "apps",
  version: "v1",
  kind: "ControllerRevision",
});

const HASH_LABEL = "controller-revision-hash";

export class DaemonSetSimulator implements Reconciler {
  constructor(
    private readonly client: Client,
    private readonly apiReader: ClientReader,
  ) {}

  async reconcile(req: Request, { signal }: ReconcileContext): Promise<void> {
    let ds: DeepReadonly<DaemonSet>;
    try {
      ds = await this.client.get(kinds.DaemonSet, req, { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (ds.metadata?.deletionTimestamp || !ds.spec) return;

    const { hash, collisionCount } = await this.currentRevision(ds, signal);
    const nodes = (await this.apiReader.list(kinds.Node, { signal })).items.filter((n) => shouldRunOn(n, ds));
    const wanted = new Set(nodes.map((n) => n.metadata?.name ?? ""));
    let pods = await listControlled(this.apiReader, kinds.Pod, ds, signal);
    const remove = async (pod: DeepReadonly<Pod>) =>
      this.client.delete(pod).catch((err) => {
        if (ignoreNotFound(err)) throw err;
      });
    // Pods off the nodes it should run on, extra ones, and those of an older template go.
    const seen = new Set<string>();
    const kept: DeepReadonly<Pod>[] = [];
    for (const pod of pods) {
      const node = pod.spec?.nodeName ?? "";
      if (!wanted.has(node) || seen.has(node) || pod.metadata?.labels?.[HASH_LABEL] !== hash)
        await remove(pod);
      else {
        seen.add(node);
        kept.push(pod);
      }
    }
    pods = kept;
    for (const node of wanted) {
      if (!seen.has(node))
        pods = [...pods, await this.client.create<Pod>(newPod(ds, node, hash), { signal })];
    }

    const ready = pods.filter(isPodReady).length;
    const status: DaemonSetStatus = {
      currentNumberScheduled: pods.length,
      desiredNumberScheduled: wanted.size,
      numberMisscheduled: 0,
      numberReady: ready,
      updatedNumberScheduled: pods.length,
      numberAvailable: ready,
      ...(wanted.size - ready > 0 ? { numberUnavailable: wanted.size - ready } : {}),
      observedGeneration: ds.metadata?.generation,
      ...(collisionCount ? { collisionCount } : {}),
    };
    if (!isDeepStrictEqual(ds.status ?? {}, status))
      await this.client.status().update({ ...ds, status }, { signal });
  }

  /**
   * The ControllerRevision of the DaemonSet's current template, made if none holds it, as kube's
   * controller keeps it: a revision whose data matches is current (renumbered past the newest if
   * it is older); else a new one is made, numbered one past the newest, its name from the hash of
   * its data (a name already taken by other data counts a collision and hashes again).
   */
  private async currentRevision(
    ds: DeepReadonly<DaemonSet>,
    signal: AbortSignal,
  ): Promise<{ hash: string; collisionCount: number }> {
    const data = { spec: { template: { ...ds.spec!.template, $patch: "replace" } } };
    const history = await listControlled(this.apiReader, ControllerRevisionKind, ds, signal);
    const newest = Math.max(0, ...history.map((r) => r.revision ?? 0));
    const matching = history
      .filter((r) => isDeepStrictEqual(r.data, data))
      .sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0));
    let collisionCount = ds.status?.collisionCount ?? 0;
    const current = matching[0];
    if (current) {
      if ((current.revision ?? 0) < newest) {
        await this.client.update({ ...current, revision: newest + 1 }, { signal });
      }
      return { hash: current.metadata?.labels?.[HASH_LABEL] ?? hashOf(data, collisionCount), collisionCount };
    }
    for (;;) {
      const hash = hashOf(data, collisionCount);
      try {
        await this.client.create<ControllerRevision>(
          {
            apiVersion: "apps/v1",
            kind: "ControllerRevision",
            metadata: {
              name: `${ds.metadata?.name}-${hash}`,
              namespace: ds.metadata?.namespace,
              labels: { ...ds.spec!.template.metadata?.labels, [HASH_LABEL]: hash },
              annotations: ds.metadata?.annotations,
              ownerReferences: [controlledBy(ds)],
            },
            data,
            revision: newest + 1,
          },
          { signal },
        );
        return { hash, collisionCount };
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        collisionCount++;
      }
    }
  }
}

function hashOf(data: unknown, collisionCount: number): string {
  return createHash("sha256")
    .update(JSON.stringify(data))
    .update(String(collisionCount))
    .digest("hex")
    .slice(0, 10);
}

/** Whether the DaemonSet's pod belongs on the node: its node selector, required affinity and taints. */
function shouldRunOn(node: DeepReadonly<Node>, ds: DeepReadonly<DaemonSet>): boolean {
  const spec = ds.spec?.template.spec;
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms =
    spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms?.length) {
    const fields = { "metadata.name": node.metadata?.name ?? "" } as Record<string, string>;
    const ok = terms.some(
      (t) =>
        (t.matchExpressions ?? []).every((e) => matches(e, labels)) &&
        (t.matchFields ?? []).every((e) => matches(e, fields)),
    );
    if (!ok) return false;
  }
  return (node.spec?.taints ?? [])
    .filter((t) => t.effect === "NoSchedule" || t.effect === "NoExecute")
    .every((t) => (spec?.tolerations ?? []).some((tol) => tolerates(tol, t)));
}

function matches(e: DeepReadonly<NodeSelectorRequirement>, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, e.key);
  switch (e.operator) {
    case "In":
      return has && (e.values ?? []).includes(labels[e.key]);
    case "NotIn":
      return !has || !(e.values ?? []).includes(labels[e.key]);
    case "Exists":
      return has;
    case "DoesNotExist":
      return !has;
    case "Gt":
    case "Lt": {
      const a = Number(labels[e.key]);
      const b = Number(e.values?.[0]);
      return has && (e.operator === "Gt" ? a > b : a < b);
    }
    default:
      return false;
  }
}

function tolerates(tol: Toleration, taint: Taint): boolean {
  if (tol.effect && tol.effect !== taint.effect) return false;
  if (tol.operator === "Exists") return !tol.key || tol.key === taint.key;
  return tol.key === taint.key && (tol.value ?? "") === (taint.value ?? "");
}

function newPod(ds: DeepReadonly<DaemonSet>, node: string, hash: string): Pod {
  const template = ds.spec!.template;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: `${ds.metadata?.name}-`,
      namespace: ds.metadata?.namespace,
      labels: {
        ...template.metadata?.labels,
        [HASH_LABEL]: hash,
        "pod-template-generation": String(ds.metadata?.generation ?? 1),
      },
      annotations: template.metadata?.annotations,
      ownerReferences: [controlledBy(ds)],
    },
    spec: { ...deepCopy(template.spec)!, nodeName: node },
  };
}
