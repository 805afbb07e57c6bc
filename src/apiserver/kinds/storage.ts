// PersistentVolumes and claims, StorageClasses and CSIDrivers: kube's defaults, the protection
// finalizers its admission adds (kubernetes.io/pv-protection, pvc-protection) and the phase its
// storage starts them in.
import { kubeTime } from "../object/meta.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

function spec(obj: Obj): Obj {
  const s = (obj.spec ?? {}) as Obj;
  obj.spec = s;
  return s;
}

function addFinalizer(obj: Obj, finalizer: string): void {
  const meta = obj.metadata as Obj;
  const finalizers = Array.isArray(meta.finalizers) ? (meta.finalizers as string[]) : [];
  if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
}

export const persistentVolumeBehaviour: KindBehaviour = {
  defaults(obj) {
    const s = spec(obj);
    s.persistentVolumeReclaimPolicy ??= "Retain";
    s.volumeMode ??= "Filesystem";
    if (s.hostPath && typeof s.hostPath === "object") (s.hostPath as Obj).type ??= "";
  },
  created(obj, { server }) {
    addFinalizer(obj, "kubernetes.io/pv-protection");
    // Since 1.31 (PersistentVolumeLastPhaseTransitionTime GA) the phase comes with its time.
    obj.status = { phase: "Pending", lastPhaseTransitionTime: kubeTime(server.now()) };
  },
};

export const persistentVolumeClaimBehaviour: KindBehaviour = {
  defaults(obj) {
    spec(obj).volumeMode ??= "Filesystem";
  },
  created(obj) {
    addFinalizer(obj, "kubernetes.io/pvc-protection");
    obj.status = { phase: "Pending" };
  },
};

export const storageClassBehaviour: KindBehaviour = {
  defaults(obj) {
    obj.reclaimPolicy ??= "Delete";
    obj.volumeBindingMode ??= "Immediate";
  },
};

export const csiDriverBehaviour: KindBehaviour = {
  defaults(obj) {
    const s = spec(obj);
    s.attachRequired ??= true;
    s.podInfoOnMount ??= false;
    s.storageCapacity ??= false;
    s.fsGroupPolicy ??= "ReadWriteOnceWithFSType";
    if (!Array.isArray(s.volumeLifecycleModes) || s.volumeLifecycleModes.length === 0)
      s.volumeLifecycleModes = ["Persistent"];
    s.requiresRepublish ??= false;
    // SELinuxMountReadWriteOncePod, on by default since 1.28, defaults seLinuxMount.
    s.seLinuxMount ??= false;
  },
};
