// kube-controller-manager's storage object in-use protection, simulated: the API server puts
// kubernetes.io/pvc-protection, pv-protection and vac-protection finalizers on new
// PersistentVolumeClaims, PersistentVolumes and VolumeAttributesClasses; their controllers lift
// them from one being deleted once nothing uses it (no running Pod mounts the claim, the volume
// is not Bound, no claim or volume names the class), so that the deletion completes.
import type { PersistentVolume, PersistentVolumeClaim } from "kubernetes-types/core/v1.js";
import { type DeepReadonly, defineKind, type Kind, type KubeObject, kinds } from "../../api/index.js";
import { controllerManagedBy } from "../../builder/index.js";
import { type Client, type ClientReader, jsonPatch } from "../../client/index.js";
import type { Manager } from "../../manager/index.js";
import type { ReconcileContext, Reconciler, Request } from "../../reconcile/index.js";
import { isConflict, isInvalid, isNotFound } from "../../rest/index.js";

const PersistentVolumeKind = defineKind<PersistentVolume>({
  group: "",
  version: "v1",
  kind: "PersistentVolume",
  namespaced: false,
});
/** storage.k8s.io/v1 VolumeAttributesClass (newer than the kubernetes-types this library uses). */
interface VolumeAttributesClass extends KubeObject {
  driverName?: string;
  parameters?: Record<string, string>;
}

const VolumeAttributesClassKind = defineKind<VolumeAttributesClass>({
  group: "storage.k8s.io",
  version: "v1",
  kind: "VolumeAttributesClass",
  namespaced: false,
});

type InUse = (obj: DeepReadonly<KubeObject>, reader: ClientReader, signal: AbortSignal) => Promise<boolean>;

export function setupStorageProtection(mgr: Manager): void {
  const add = <T extends KubeObject>(name: string, kind: Kind<T>, finalizer: string, inUse: InUse) =>
    controllerManagedBy(mgr)
      .named(name)
      .for(kind)
      .complete(new ProtectionSimulator(mgr.getClient(), mgr.getAPIReader(), kind, finalizer, inUse));
  add(
    "simulated-pvc-protection",
    kinds.PersistentVolumeClaim,
    "kubernetes.io/pvc-protection",
    async (obj, reader, signal) => {
      const pods = await reader.list(kinds.Pod, { inNamespace: obj.metadata?.namespace, signal });
      return pods.items.some(
        (p) =>
          p.status?.phase !== "Succeeded" &&
          p.status?.phase !== "Failed" &&
          (p.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === obj.metadata?.name),
      );
    },
  );
  add("simulated-pv-protection", PersistentVolumeKind, "kubernetes.io/pv-protection", async (obj) => {
    return (obj as PersistentVolume).status?.phase === "Bound";
  });
  add(
    "simulated-vac-protection",
    VolumeAttributesClassKind,
    "kubernetes.io/vac-protection",
    async (obj, reader, signal) => {
      const name = obj.metadata?.name;
      const claims = await reader.list(kinds.PersistentVolumeClaim, { signal });
      const volumes = await reader.list(PersistentVolumeKind, { signal });
      const names = (c: DeepReadonly<PersistentVolumeClaim>) => [
        c.spec?.volumeAttributesClassName,
        c.status?.currentVolumeAttributesClassName,
        c.status?.modifyVolumeStatus?.targetVolumeAttributesClassName,
      ];
      return (
        claims.items.some((c) => names(c).includes(name)) ||
        volumes.items.some((v) => v.spec?.volumeAttributesClassName === name)
      );
    },
  );
}

class ProtectionSimulator<T extends KubeObject> implements Reconciler {
  constructor(
    private readonly client: Client,
    private readonly reader: ClientReader,
    private readonly kind: Kind<T>,
    private readonly finalizer: string,
    private readonly inUse: InUse,
  ) {}

  async reconcile(req: Request, { signal }: ReconcileContext): Promise<{ requeueAfter?: number }> {
    let obj: DeepReadonly<T>;
    try {
      obj = await this.reader.get(this.kind, req, { signal });
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const finalizers = obj.metadata?.finalizers ?? [];
    if (!obj.metadata?.deletionTimestamp || !finalizers.includes(this.finalizer)) return {};
    // Still in use: looked at again shortly (what uses it is not watched here).
    if (await this.inUse(obj, this.reader, signal)) return { requeueAfter: 1000 };
    try {
      await this.client.patch(
        { ...obj },
        jsonPatch([
          { op: "test", path: "/metadata/finalizers", value: finalizers },
          {
            op: "replace",
            path: "/metadata/finalizers",
            value: finalizers.filter((f) => f !== this.finalizer),
          },
        ]),
        { signal },
      );
    } catch (err) {
      if (isNotFound(err)) return {};
      if (isInvalid(err) || isConflict(err)) return { requeueAfter: 100 };
      throw err;
    }
    return {};
  }
}
