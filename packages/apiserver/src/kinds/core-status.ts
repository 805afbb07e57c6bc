// The status writes of PersistentVolumeClaims, PersistentVolumes and Nodes as kube's status
// strategies take them: the phase a status without one gets (Pending), a volume's phase
// transition time, a Node's allocatable defaulted from its capacity and its config kept out
// unless already in use; and what ValidatePersistentVolumeClaimStatusUpdate and ValidateNodeUpdate
// refuse: negative capacities, resources a claim cannot hold, resize statuses no controller
// writes, node resources that are negative or fractional where counted in units.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { qualifiedNameErrors } from "controller-runtime/api";
import { kubeTime } from "../object/meta.js";
import { parseQuantity } from "../object/quantity.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import { isIntegerResourceName, isNativeResource } from "./resource-names.js";

const statusOf = (obj: Obj): Obj => {
  const status = (obj.status ?? {}) as Obj;
  obj.status = status;
  return status;
};

/** A quantity's amount, or undefined when it is none (Go's decoder refused it before). */
function amountOf(v: unknown): { n: bigint; scale: number } | undefined {
  try {
    return parseQuantity(String(v));
  } catch {
    return undefined;
  }
}

/** SetDefaults_PersistentVolumeClaim: a claim's status without a phase is Pending. */
export function preparePersistentVolumeClaimStatus(obj: Obj): void {
  const status = statusOf(obj);
  if (!status.phase) status.phase = "Pending";
}

/**
 * SetDefaults_PersistentVolume and persistentvolumeStatusStrategy.PrepareForUpdate: a volume's
 * status without a phase is Pending; its phase transition time is kept while the phase stays and
 * is now when the phase changes and the writer did not set another.
 */
export function preparePersistentVolumeStatus(obj: Obj, old: Readonly<Obj>): void {
  const status = statusOf(obj);
  const oldStatus = (old.status ?? {}) as Obj;
  if (!status.phase) status.phase = "Pending";
  const given = status.lastPhaseTransitionTime;
  if (status.phase === oldStatus.phase && !given) {
    if (oldStatus.lastPhaseTransitionTime) status.lastPhaseTransitionTime = oldStatus.lastPhaseTransitionTime;
  } else if (status.phase !== oldStatus.phase && (!given || given === oldStatus.lastPhaseTransitionTime)) {
    status.lastPhaseTransitionTime = kubeTime(new Date());
  }
}

/** SetDefaults_NodeStatus and nodeStatusStrategy.PrepareForUpdate. */
export function prepareNodeStatus(obj: Obj, old: Readonly<Obj>): void {
  const status = statusOf(obj);
  if (status.allocatable === undefined && status.capacity !== undefined) status.allocatable = status.capacity;
  // The dynamic kubelet config is gone: a node not reporting one may not start.
  if (!(old.status as Obj | undefined)?.config) delete status.config;
}

const RESIZE_STATUSES = [
  "ControllerResizeInProgress",
  "ControllerResizeInfeasible",
  "NodeResizeInProgress",
  "NodeResizeInfeasible",
  "NodeResizePending",
];

/** A name without a domain, or in kubernetes.io: one of kube's own resources. */

/** validatePersistentVolumeClaimResourceKey: only storage among kube's own resources. */
function claimResourceKeyCauses(name: string, at: string): StatusCause[] {
  const errors = qualifiedNameErrors(name);
  if (errors.length > 0) return errors.map((m) => cause.invalid(at, name, m));
  return isNativeResource(name) && name !== "storage" ? [cause.notSupported(at, name, ["storage"])] : [];
}

/** validateBasicResource: a quantity whose value is negative. */
function basicResourceCauses(v: unknown, at: string): StatusCause[] {
  const a = amountOf(v);
  return a && a.n < 0n ? [cause.invalid(at, String(v), "must be a valid resource quantity")] : [];
}

export function persistentVolumeClaimStatusCauses(obj: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const status = (obj.status ?? {}) as Obj;
  const entries = (v: unknown) => (v && typeof v === "object" ? Object.entries(v as Obj) : []);
  for (const [k, v] of entries(status.capacity))
    causes.push(...basicResourceCauses(v, `status.capacity[${k}]`));
  for (const [k, v] of entries(status.allocatedResourceStatuses)) {
    causes.push(...claimResourceKeyCauses(k, "status.allocatedResourceStatuses"));
    // kube names the key, not the value, among the supported values.
    if (!RESIZE_STATUSES.includes(String(v)))
      causes.push(cause.notSupported("status.allocatedResourceStatuses", k, RESIZE_STATUSES));
  }
  for (const [k, v] of entries(status.allocatedResources)) {
    const keyCauses = claimResourceKeyCauses(k, "status.allocatedResources");
    if (keyCauses.length > 0) {
      causes.push(...keyCauses);
      continue;
    }
    causes.push(...basicResourceCauses(v, `status.allocatedResources[${k}]`));
  }
  return causes;
}

/** ValidateNodeResources: capacity and allocatable not negative, units whole. */
export function nodeResourceCauses(obj: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const status = (obj.status ?? {}) as Obj;
  for (const part of ["capacity", "allocatable"]) {
    const list = status[part];
    if (!list || typeof list !== "object") continue;
    for (const [k, v] of Object.entries(list as Obj)) {
      const at = `status.${part}.${k}`;
      const a = amountOf(v);
      if (!a) continue;
      if (a.n < 0n) causes.push(cause.invalid(at, String(v), "must be greater than or equal to 0"));
      // Normalized, an amount with a negative scale has a fraction.
      if (isIntegerResourceName(k) && a.scale < 0)
        causes.push(cause.invalid(at, String(v), "must be an integer"));
    }
  }
  return causes;
}
