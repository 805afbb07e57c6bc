// PersistentVolumes and claims, StorageClasses and CSIDrivers: kube's defaults, the protection
// finalizers its admission adds (kubernetes.io/pv-protection, pvc-protection) and the phase its
// storage starts them in.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { qualifiedNameErrors } from "controller-runtime/api";
import { kubeTime } from "../object/meta.js";
import { dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { immutableField, semanticEqual } from "./immutable.js";
import { compareAmounts, parseQuantity } from "../object/quantity.js";

function spec(obj: Obj): Obj {
  const s = (obj.spec ?? {}) as Obj;
  obj.spec = s;
  return s;
}

export const persistentVolumeBehaviour: KindBehaviour = {
  defaults(obj) {
    const s = spec(obj);
    s.persistentVolumeReclaimPolicy ??= "Retain";
    s.volumeMode ??= "Filesystem";
    if (s.hostPath && typeof s.hostPath === "object") (s.hostPath as Obj).type ??= "";
  },
  validate(obj, old) {
    const s = (obj.spec ?? {}) as Obj;
    const causes = persistentVolumeSpecCauses(s);
    // ValidatePersistentVolumeUpdate: the volume source is fixed at creation (kube adds a Go diff).
    const oldSpec = (old?.spec ?? {}) as Obj;
    // ValidatePersistentVolumeUpdate names the volume mode without its spec.
    if (old) causes.push(...immutableField("volumeMode", s.volumeMode, oldSpec.volumeMode));
    if (old && PV_SOURCES.some((k) => !semanticEqual(s[k], oldSpec[k]))) {
      causes.push(
        cause.forbidden(
          "spec.persistentvolumesource",
          "spec.persistentvolumesource is immutable after creation",
        ),
      );
    }
    return causes;
  },
  created(obj, { server }) {
    addFinalizer(obj, "kubernetes.io/pv-protection");
    // Since 1.31 (PersistentVolumeLastPhaseTransitionTime GA) the phase comes with its time.
    obj.status = { phase: "Pending", lastPhaseTransitionTime: kubeTime(server.now()) };
  },
};

const STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class";

/** A quantity's amount, zero when absent or unreadable (Go's zero Quantity). */
function amount(v: unknown) {
  try {
    return parseQuantity(typeof v === "string" ? v : typeof v === "number" ? String(v) : "0");
  } catch {
    return parseQuantity("0");
  }
}

/** ValidatePersistentVolumeClaimSpec's checks of what operators write: access modes and the storage asked for. */
function claimSpecCauses(s: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const modes = Array.isArray(s.accessModes) ? (s.accessModes as unknown[]) : [];
  if (modes.length === 0)
    causes.push(cause.required("spec.accessModes", "at least 1 access mode is required"));
  for (const m of modes)
    if (!ACCESS_MODES.includes(m as string))
      causes.push(cause.notSupported("spec.accessModes", m, ACCESS_MODES));
  const requests = ((s.resources ?? {}) as Obj).requests as Obj | undefined;
  if (requests?.storage === undefined) causes.push(cause.required("spec.resources[storage]"));
  return causes;
}

/**
 * ValidatePersistentVolumeClaimUpdate: the spec is fixed once created, but for the volume name set
 * once, a class given to a claim that had none, and a bound claim's storage request, which may
 * not shrink to its capacity.
 */
function claimUpdateCauses(obj: Obj, old: Readonly<Obj>): StatusCause[] {
  const causes: StatusCause[] = [];
  const now = { ...((obj.spec ?? {}) as Obj) };
  const was = { ...((old.spec ?? {}) as Obj) };
  if (!was.volumeName) was.volumeName = now.volumeName;
  const oldAnnotations = ((old.metadata as Obj).annotations ?? {}) as Obj;
  if (
    oldAnnotations[STORAGE_CLASS_ANNOTATION] === undefined &&
    (was.storageClassName === undefined || was.storageClassName === null) &&
    typeof now.storageClassName === "string" &&
    now.storageClassName !== ""
  ) {
    delete now.storageClassName;
  }
  const bound = ((obj.status ?? {}) as Obj).phase === "Bound";
  const requests = ((now.resources ?? {}) as Obj).requests as Obj | undefined;
  const oldRequests = (((was.resources ?? {}) as Obj).requests ?? {}) as Obj;
  if (bound && requests)
    now.resources = { ...(now.resources as Obj), requests: { ...requests, storage: oldRequests.storage } };
  if (!semanticEqual(now, was)) {
    causes.push(
      cause.forbidden(
        "spec",
        "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims",
      ),
    );
  }
  const newSize = amount(requests?.storage);
  const capacity = (((old.status ?? {}) as Obj).capacity ?? {}) as Obj;
  if (
    compareAmounts(newSize, amount(oldRequests.storage)) < 0 &&
    compareAmounts(newSize, amount(capacity.storage)) <= 0
  ) {
    causes.push(
      cause.forbidden("spec.resources.requests.storage", "field can not be less than status.capacity"),
    );
  }
  return causes;
}

export const persistentVolumeClaimBehaviour: KindBehaviour = {
  defaults(obj) {
    spec(obj).volumeMode ??= "Filesystem";
  },
  validate(obj, old) {
    const causes = claimSpecCauses((obj.spec ?? {}) as Obj);
    if (old) {
      causes.push(...claimUpdateCauses(obj, old));
      // As a PV's: named without its spec.
      causes.push(
        ...immutableField(
          "volumeMode",
          (obj.spec as Obj | undefined)?.volumeMode,
          (old.spec as Obj | undefined)?.volumeMode,
        ),
      );
    }
    return causes;
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
  // ValidateStorageClassUpdate: the parameters, provisioner, reclaim policy and binding mode never change.
  validate(obj, old) {
    const causes = provisionerCauses(obj.provisioner, "provisioner");
    if (!old) return causes;
    // 1.37's declarative validation: "field is immutable", no value shown.
    if (!semanticEqual(obj.parameters, old.parameters))
      causes.push(cause.invalid("parameters", null, "field is immutable"));
    if ((obj.provisioner ?? "") !== (old.provisioner ?? ""))
      causes.push(cause.invalid("provisioner", null, "field is immutable"));
    causes.push(...immutableField("reclaimPolicy", obj.reclaimPolicy, old.reclaimPolicy));
    causes.push(...immutableField("volumeBindingMode", obj.volumeBindingMode, old.volumeBindingMode));
    return causes;
  },
};

/** validateProvisioner: required, a qualified name (a StorageClass's provisioner, a VAC's driver). */
/** Adds `finalizer` to the object's metadata unless it is there. */
export function addFinalizer(obj: Obj, finalizer: string): void {
  const meta = obj.metadata as Obj;
  const finalizers = Array.isArray(meta.finalizers) ? (meta.finalizers as string[]) : [];
  if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
}

export function provisionerCauses(value: unknown, field: string): StatusCause[] {
  const provisioner = typeof value === "string" ? value : "";
  if (provisioner === "") return [cause.required(field, "")];
  return qualifiedNameErrors(provisioner.toLowerCase()).map((m) => cause.invalid(field, provisioner, m));
}

/** Adds `finalizer` to the object's metadata unless it is there. */
export const ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];
/** The volume sources a PersistentVolume may name (exactly one). */
const PV_SOURCES = [
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "hostPath",
  "glusterfs",
  "nfs",
  "rbd",
  "quobyte",
  "iscsi",
  "cinder",
  "cephfs",
  "fc",
  "flocker",
  "azureFile",
  "vsphereVolume",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "local",
  "storageos",
  "csi",
];

/** ValidatePersistentVolumeSpec's checks of what operators write: capacity, access modes, one source. */
function persistentVolumeSpecCauses(s: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const capacity = (s.capacity ?? {}) as Obj;
  if (Object.keys(capacity).length === 0) causes.push(cause.required("spec.capacity"));
  if (capacity.storage === undefined || Object.keys(capacity).length !== 1) {
    causes.push(cause.notSupported("spec.capacity", capacity, ["storage"]));
  }
  const modes = Array.isArray(s.accessModes) ? (s.accessModes as unknown[]) : [];
  if (modes.length === 0) causes.push(cause.required("spec.accessModes"));
  for (const m of modes)
    if (!ACCESS_MODES.includes(m as string))
      causes.push(cause.notSupported("spec.accessModes", m, ACCESS_MODES));
  const sources = PV_SOURCES.filter((k) => s[k] !== undefined && s[k] !== null);
  if (sources.length === 0) causes.push(cause.required("spec", "must specify a volume type"));
  const hostPath = s.hostPath as Obj | undefined;
  if (hostPath && typeof hostPath === "object" && !hostPath.path)
    causes.push(cause.required("spec.hostPath.path"));
  return causes;
}

/** ValidateCSIDriverName. */
function csiDriverNameCauses(name: string, field: string): StatusCause[] {
  // An empty name is only required (1.37 returns early; before, it was also no subdomain).
  if (name === "") return [cause.required(field)];
  const causes: StatusCause[] = [];
  if (name.length > 63)
    causes.push({ reason: "FieldValueTooLong", message: "Too long: may not be more than 63 bytes", field });
  for (const msg of dns1123SubdomainErrors(name.toLowerCase())) causes.push(cause.invalid(field, name, msg));
  return causes;
}

export const volumeAttachmentBehaviour: KindBehaviour = {
  // ValidateVolumeAttachment: the attacher a CSI driver's name, one source, a node name.
  validate(obj, old) {
    const s = (obj.spec ?? {}) as Obj;
    const attacher = typeof s.attacher === "string" ? s.attacher : "";
    const causes: StatusCause[] = [];
    const source = (s.source ?? {}) as Obj;
    const pvName = source.persistentVolumeName;
    const inline = source.inlineVolumeSpec;
    if ((pvName === undefined || pvName === null) === (inline === undefined || inline === null)) {
      causes.push(
        cause.required(
          "spec.source",
          "must specify exactly one of inlineVolumeSpec and persistentVolumeName",
        ),
      );
    } else if (typeof pvName === "string") {
      for (const msg of dns1123SubdomainErrors(pvName))
        causes.push(cause.invalid("spec.source.persistentVolumeName", pvName, msg));
    }
    const node = typeof s.nodeName === "string" ? s.nodeName : "";
    for (const msg of dns1123SubdomainErrors(node)) causes.push(cause.invalid("spec.nodeName", node, msg));
    // The attacher's checks are declarative validation's in 1.37, reported after the handwritten ones.
    causes.push(...csiDriverNameCauses(attacher, "spec.attacher"));
    // ValidateVolumeAttachmentUpdate: the spec never changes (kube shows no value).
    if (old && !semanticEqual(obj.spec, old.spec))
      causes.push(cause.invalid("spec", null, "field is immutable"));
    return causes;
  },
};

export const csiStorageCapacityBehaviour: KindBehaviour = {
  validate(obj, old) {
    const name = typeof obj.storageClassName === "string" ? obj.storageClassName : "";
    const causes = dns1123SubdomainErrors(name).map((m) => cause.invalid("storageClassName", name, m));
    // ValidateCSIStorageCapacityUpdate: the class and the topology never change.
    if (old) {
      causes.push(...immutableField("storageClassName", obj.storageClassName, old.storageClassName));
      causes.push(...immutableField("nodeTopology", obj.nodeTopology, old.nodeTopology));
    }
    return causes;
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
    // VolumeLimitScaling, on by default in 1.37.
    s.preventPodSchedulingIfMissing ??= false;
  },
};
