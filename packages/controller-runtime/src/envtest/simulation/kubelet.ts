// The kubelet, simulated: a Pod "starts" (Running, Ready) once `startupMs` has passed since it
// was created, the time an image pull and a readiness probe would take; a Pod deleted gracefully
// goes at once.
import type { Pod, PodCondition } from "kubernetes-types/core/v1.js";
import { kinds, type DeepReadonly } from "../../api/index.js";
import type { Client } from "../../client/index.js";
import type { ReconcileContext, Reconciler, Request, Result } from "../../reconcile/index.js";
import { isNotFound } from "../../rest/index.js";

export function isPodReady(pod: DeepReadonly<Pod>): boolean {
  return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

export class KubeletSimulator implements Reconciler {
  constructor(
    private readonly client: Client,
    private readonly startupMs: number,
  ) {}

  async reconcile(req: Request, { signal }: ReconcileContext): Promise<Result | undefined> {
    let pod: DeepReadonly<Pod>;
    try {
      pod = await this.client.get(kinds.Pod, req, { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (pod.metadata?.deletionTimestamp) {
      // A bound Pod's deletion is graceful: the API server only marks it, and the kubelet, once
      // its containers have stopped (at once, here), deletes it for good.
      if ((pod.metadata.deletionGracePeriodSeconds ?? 0) > 0) {
        await this.client
          .delete(pod, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } })
          .catch((err) => {
            if (!isNotFound(err)) throw err;
          });
      }
      return;
    }
    if (isPodReady(pod)) return;

    const created = Date.parse(pod.metadata?.creationTimestamp ?? "") || Date.now();
    const wait = created + this.startupMs - Date.now();
    if (wait > 0) return { requeueAfter: wait };

    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const condition = (type: string): PodCondition => ({ type, status: "True", lastTransitionTime: now });
    await this.client.status().update<Pod>({
      ...pod,
      status: {
        ...pod.status,
        phase: "Running",
        startTime: pod.status?.startTime ?? now,
        podIP: "10.244.0.10",
        conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map(condition),
        containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
          name: c.name,
          image: c.image ?? "",
          imageID: "",
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: now } },
        })),
      },
    });
  }
}
