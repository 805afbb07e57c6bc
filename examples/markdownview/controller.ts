// The MarkdownView controller, after the seed's kubebuilder training: a MarkdownView owns a
// ConfigMap (its markdown files), a viewer Deployment and a Service; its status follows the
// Deployment's available replicas, and every status change is recorded as an Event.
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds, type DeepReadonly } from "controller-runtime/api";
import { controllerManagedBy } from "controller-runtime/builder";
import type { Client } from "controller-runtime/client";
import { createOrUpdate, getControllerOf, setControllerReference } from "controller-runtime/controllerutil";
import type { Logger } from "controller-runtime/log";
import type { Manager } from "controller-runtime/manager";
import type { EventRecorder } from "controller-runtime/recorder";
import type { ReconcileContext, Reconciler, Request, Result } from "controller-runtime/reconcile";
import { ignoreNotFound, isConflict, isNotFound } from "controller-runtime/rest";
import { MarkdownView, type MarkdownViewStatus } from "./api.js";
import { configMapName, viewerDeployment, viewerService } from "./resources.js";

/** The field ConfigMaps are indexed by: the name of the MarkdownView controlling them. */
export const ownerControllerField = ".metadata.ownerReference.controller";

export function indexByOwnerMarkdownView(cm: DeepReadonly<ConfigMap>): string[] {
  const owner = getControllerOf(cm);
  if (!owner || owner.apiVersion !== MarkdownView.apiVersion || owner.kind !== MarkdownView.kind) return [];
  return [owner.name];
}

/** The field manager of the controller's server-side applies. */
const fieldOwner = "markdown-view-controller";

export class MarkdownViewReconciler implements Reconciler {
  constructor(
    private readonly client: Client,
    private readonly recorder: EventRecorder,
  ) {}

  async reconcile(req: Request, { signal, logger }: ReconcileContext): Promise<Result | undefined> {
    let mdView: DeepReadonly<MarkdownView>;
    try {
      mdView = await this.client.get(MarkdownView, req, { signal });
    } catch (err) {
      if (isNotFound(err)) return; // deleted: the garbage collector removes what it owned
      throw err;
    }
    if (mdView.metadata?.deletionTimestamp) return;

    await this.reconcileConfigMap(mdView, logger);
    await this.removeStaleConfigMaps(mdView, logger);
    const dep = await this.client.apply(viewerDeployment(mdView), { fieldOwner, force: true, signal });
    await this.client.apply(viewerService(mdView), { fieldOwner, force: true, signal });
    return this.updateStatus(mdView, dep.status?.availableReplicas ?? 0, logger);
  }

  async reconcileConfigMap(mdView: DeepReadonly<MarkdownView>, logger: Logger): Promise<void> {
    const key = { namespace: mdView.metadata?.namespace, name: configMapName(mdView) };
    const { result } = await createOrUpdate(this.client, kinds.ConfigMap, key, (cm) => {
      cm.data = { ...mdView.spec?.markdowns };
      return setControllerReference(mdView, cm);
    });
    if (result !== "unchanged") logger.info("reconcile ConfigMap successfully", { result });
  }

  /** ConfigMaps this view controls under another name (an older naming, say) are not wanted. */
  async removeStaleConfigMaps(mdView: DeepReadonly<MarkdownView>, logger: Logger): Promise<void> {
    const owned = await this.client.list(kinds.ConfigMap, {
      inNamespace: mdView.metadata?.namespace,
      matchingFields: { [ownerControllerField]: mdView.metadata?.name ?? "" },
    });
    for (const cm of owned.items) {
      if (cm.metadata?.name === configMapName(mdView)) continue;
      await this.client.delete(cm).catch((err) => {
        if (ignoreNotFound(err)) throw err;
      });
      logger.info("deleted a stale ConfigMap", { configMap: cm.metadata?.name });
    }
  }

  async updateStatus(
    mdView: DeepReadonly<MarkdownView>,
    available: number,
    logger: Logger,
  ): Promise<Result | undefined> {
    let status: MarkdownViewStatus;
    if (available === 0) status = "NotReady";
    else if (available === (mdView.spec?.replicas ?? 1)) status = "Healthy";
    else status = "Available";
    if (mdView.status === status) return;

    try {
      await this.client.status().update({ ...mdView, status });
    } catch (err) {
      // The view changed since the cache gave it to us, or the server refused the write for its
      // own reasons: look again shortly, on fresh data. Not an error worth logging; and not left
      // to the newer version's watch event, since a conflict need not come with one.
      if (isConflict(err)) return { requeueAfter: 100 };
      throw err;
    }
    logger.info("status updated", { status });
    const { namespace, name } = mdView.metadata ?? {};
    this.recorder.event(mdView, "Normal", "Updated", `MarkdownView(${namespace}:${name}) updated: ${status}`);
  }
}

/** Registers the index and the controller with `mgr`, as kubebuilder's SetupWithManager. */
export async function setupMarkdownViewController(mgr: Manager, client: Client): Promise<void> {
  await mgr.getFieldIndexer().indexField(kinds.ConfigMap, ownerControllerField, indexByOwnerMarkdownView);
  controllerManagedBy(mgr)
    .for(MarkdownView)
    .owns(kinds.ConfigMap)
    .owns(kinds.Deployment)
    .owns(kinds.Service)
    .complete(new MarkdownViewReconciler(client, mgr.getEventRecorderFor("markdownview-controller")));
}
