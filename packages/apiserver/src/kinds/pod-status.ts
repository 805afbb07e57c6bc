// A Pod's status as its status strategy takes it (podStatusStrategy): what a write through
// /status keeps of the stored status (QoS class, observed generations, resource claim statuses),
// podIP and podIPs kept in step (SetDefaults_PodStatus), and what ValidatePodStatusUpdate
// refuses: bad condition types, negative generations, addresses that are no IPs or not one per
// family, a nominated node that is no node name, a QoS class changed.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { isIP } from "node:net";
import { qualifiedNameErrors } from "controller-runtime/api";
import { dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import { legacyIPErrors } from "./service.js";

const list = (v: unknown): (Obj | null)[] => (Array.isArray(v) ? (v as (Obj | null)[]) : []);

/** SetDefaults_PodStatus: podIP and podIPs[0] agree, podIP winning. */
function syncPodIPs(status: Obj): void {
  const ip = typeof status.podIP === "string" ? status.podIP : "";
  const ips = list(status.podIPs);
  if (ip !== "" && (ips.length === 0 || ips[0]?.ip !== ip)) status.podIPs = [{ ip }];
  else if (ip === "" && ips.length > 0) status.podIP = ips[0]?.ip ?? "";
}

/** podStatusStrategy.PrepareForUpdate's keeping of the stored status, after defaulting. */
export function preparePodStatus(obj: Obj, old: Readonly<Obj>): void {
  const status = (obj.status ?? {}) as Obj;
  obj.status = status;
  const oldStatus = (old.status ?? {}) as Obj;
  syncPodIPs(status);
  if (!status.qosClass && oldStatus.qosClass) status.qosClass = oldStatus.qosClass;
  for (const k of [
    "resourceClaimStatuses",
    "extendedResourceClaimStatus",
    "nodeAllocatableResourceClaimStatuses",
  ])
    if (status[k] === undefined && oldStatus[k] !== undefined) status[k] = oldStatus[k];
  // preserveOldObservedGeneration: a write that leaves a generation out keeps the stored one.
  if (!status.observedGeneration && oldStatus.observedGeneration)
    status.observedGeneration = oldStatus.observedGeneration;
  const before = new Map<unknown, unknown[]>();
  for (const c of list(oldStatus.conditions)) {
    const type = c?.type ?? "";
    before.set(type, [...(before.get(type) ?? []), c?.observedGeneration ?? 0]);
  }
  for (const c of list(status.conditions)) {
    if (!c) continue;
    const left = before.get(c.type ?? "") ?? [];
    const generation = left.shift() ?? 0;
    if (!c.observedGeneration && generation) c.observedGeneration = generation;
  }
}

const SYSTEM_CONDITIONS = new Set(["PodScheduled", "Ready", "Initialized"]);
const NOT_NEGATIVE = "must be a non-negative integer";
const IMMUTABLE = "field is immutable";

/** IPs in a status list (podIPs, hostIPs): valid unless kept, at most one per family. */
function ipListCauses(ips: (Obj | null)[], kept: (Obj | null)[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const existing = kept.map((i) => i?.ip);
  ips.forEach((i, n) => {
    const ip = typeof i?.ip === "string" ? i.ip : "";
    if (existing.includes(ip)) return;
    for (const m of legacyIPErrors(ip)) causes.push(cause.invalid(`${path}[${n}]`, ip, m));
  });
  if (ips.length > 1) {
    const families = ips.map((i) => isIP(String(i?.ip ?? "")));
    const dual = ips.length === 2 && families.includes(4) && families.includes(6);
    if (!dual) causes.push(cause.invalid(path, ips, "may specify no more than one IP for each IP family"));
  }
  return causes;
}

/** ValidatePodStatusUpdate, but for container state transitions and DRA statuses beyond names. */
export function podStatusCauses(obj: Obj, old: Readonly<Obj>): StatusCause[] {
  const causes: StatusCause[] = [];
  const status = (obj.status ?? {}) as Obj;
  const oldStatus = (old.status ?? {}) as Obj;
  list(status.conditions).forEach((c, i) => {
    const g = c?.observedGeneration;
    if (typeof g === "number" && g < 0)
      causes.push(cause.invalid(`status.conditions[${i}].observedGeneration`, g, NOT_NEGATIVE));
    const type = typeof c?.type === "string" ? c.type : "";
    if (SYSTEM_CONDITIONS.has(type)) return;
    // kube names the field by its Go name here: `Type`.
    for (const m of qualifiedNameErrors(type))
      causes.push(cause.invalid(`status.conditions[${i}].Type`, type, m));
  });
  const nominated = typeof status.nominatedNodeName === "string" ? status.nominatedNodeName : "";
  if (nominated !== "" && nominated !== oldStatus.nominatedNodeName) {
    for (const m of dns1123SubdomainErrors(nominated))
      causes.push(cause.invalid("status.nominatedNodeName", nominated, m));
    if ((old.spec as Obj | undefined)?.nodeName)
      causes.push(
        cause.forbidden(
          "status.nominatedNodeName",
          "may not be set on pods that are already bound to a node",
        ),
      );
  }
  const generation = status.observedGeneration;
  if (typeof generation === "number" && generation < 0)
    causes.push(cause.invalid("status.observedGeneration", generation, NOT_NEGATIVE));
  if ((status.qosClass ?? "") !== (oldStatus.qosClass ?? ""))
    causes.push(cause.invalid("status.qosClass", status.qosClass ?? "", IMMUTABLE));
  const claims = list((obj.spec as Obj | undefined)?.resourceClaims).map((c) => c?.name);
  const seenClaims = new Set<unknown>();
  list(status.resourceClaimStatuses).forEach((c, i) => {
    const at = `status.resourceClaimStatuses[${i}].name`;
    if (!claims.includes(c?.name))
      causes.push(
        cause.invalid(at, c?.name ?? "", "must match the name of an entry in `spec.resourceClaims`"),
      );
    if (seenClaims.has(c?.name)) causes.push(cause.duplicate(at, c?.name ?? ""));
    seenClaims.add(c?.name);
  });
  // validatePodIPs: podIP and podIPs are kept in step by defaulting before this.
  const podIPs = list(status.podIPs);
  causes.push(...ipListCauses(podIPs, list(oldStatus.podIPs), "status.podIPs"));
  const podIP = typeof status.podIP === "string" ? status.podIP : "";
  if ((podIP !== "") !== podIPs.length > 0)
    causes.push(
      cause.invalid("status.podIPs", podIPs, "podIP and podIPs must either both be set or both be unset"),
    );
  else if (podIPs.length > 0 && podIP !== podIPs[0]?.ip)
    causes.push(cause.invalid("status.podIPs[0].ip", podIPs[0]?.ip ?? "", "must be equal to `podIP`"));
  // validateHostIPs.
  const hostIPs = list(status.hostIPs);
  if (hostIPs.length > 0) {
    const hostIP = typeof status.hostIP === "string" ? status.hostIP : "";
    if (hostIP !== (hostIPs[0]?.ip ?? ""))
      causes.push(cause.invalid("status.hostIPs[0].ip", hostIPs[0]?.ip ?? "", "must be equal to `hostIP`"));
    causes.push(...ipListCauses(hostIPs, list(oldStatus.hostIPs), "status.hostIPs"));
  }
  causes.push(
    ...containerStateCauses(list(status.containerStatuses), list(oldStatus.containerStatuses), old),
  );
  for (const key of ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"])
    causes.push(...containerUserCauses(list(status[key]), `status.${key}`, obj));
  return causes;
}

/**
 * ValidateContainerStateTransition: a terminated container of a Pod that does not restart it
 * (its own restartPolicy, else the Pod's: Never, or OnFailure after exit code 0) stays
 * terminated. A container with restart rules is left to the kubelet, as kube leaves it.
 */
function containerStateCauses(
  now: (Obj | null)[],
  before: (Obj | null)[],
  old: Readonly<Obj>,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = (old.spec ?? {}) as Obj;
  const containers = list(spec.containers);
  before.forEach((was, i) => {
    const terminated = (was?.state as Obj | undefined)?.terminated as Obj | undefined;
    if (!terminated) return;
    const next = now.find((s) => s?.name === was?.name);
    if (!next || (next.state as Obj | undefined)?.terminated) return;
    const container = containers.find((c) => c?.name === was?.name);
    if (Array.isArray(container?.restartPolicyRules) && container.restartPolicyRules.length > 0) return;
    const policy =
      (container?.restartPolicy as string | undefined) ??
      (spec.restartPolicy as string | undefined) ??
      "Always";
    const exitCode = typeof terminated.exitCode === "number" ? terminated.exitCode : 0;
    const restarts = policy === "Always" || (policy === "OnFailure" && exitCode !== 0);
    if (!restarts)
      causes.push(
        cause.forbidden(
          `status.containerStatuses[${i}].state`,
          "may not be transitioned to non-terminated state",
        ),
      );
  });
  return causes;
}

const MAX_UID = 4294967295;
const MAX_GID = 2147483647;

/** validateContainerStatusUsers: the user a runtime reports must be a Linux uid and gids. */
function containerUserCauses(statuses: (Obj | null)[], path: string, obj: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const os = ((obj.spec as Obj | undefined)?.os as Obj | undefined)?.name ?? "linux";
  statuses.forEach((s, i) => {
    const user = s?.user as Obj | undefined;
    if (!user) return;
    const linux = user.linux as Obj | undefined;
    const at = `${path}[${i}].user.linux`;
    if (os === "windows") {
      if (linux) causes.push(cause.forbidden(at, "cannot be set for a windows pod"));
      return;
    }
    if (!linux) return;
    const uid = typeof linux.uid === "number" ? linux.uid : 0;
    if (uid < 0 || uid > MAX_UID)
      causes.push(cause.invalid(`${at}.uid`, uid, `must be between 0 and ${MAX_UID}, inclusive`));
    const gidError = (g: number) =>
      g < 0 || g > MAX_GID ? [`must be between 0 and ${MAX_GID}, inclusive`] : [];
    const gid = typeof linux.gid === "number" ? linux.gid : 0;
    for (const m of gidError(gid)) causes.push(cause.invalid(`${at}.gid`, gid, m));
    list(linux.supplementalGroups).forEach((g, n) => {
      const v = typeof g === "number" ? g : 0;
      for (const m of gidError(v)) causes.push(cause.invalid(`${at}.supplementalGroups[${n}]`, v, m));
    });
  });
  return causes;
}
