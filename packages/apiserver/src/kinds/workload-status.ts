// The status writes of the workload controllers' kinds as kube checks them (ValidateXStatus in
// pkg/apis/apps, autoscaling and policy validation): counts not negative nor past the replicas
// they count, available not past ready, a collision count never decremented, an autoscaler's
// observed generations, a disruption budget's conditions.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import { metaConditionCauses } from "./conditions.js";

/** One kind's status rule: the status written, the stored one, the object and the stored object. */
export type StatusRule = (status: Obj, oldStatus: Obj, obj: Obj, old: Readonly<Obj>) => StatusCause[];

export const NEGATIVE = "must be greater than or equal to 0";

/** A count as Go reads it: absent is 0. */
const count = (o: Obj, k: string): number => (typeof o[k] === "number" ? (o[k] as number) : 0);

/** ValidateNonnegativeField of each count named (absent ones are Go's zero, never negative). */
function nonNegative(status: Obj, keys: string[]): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const k of keys) {
    const v = status[k];
    if (typeof v === "number" && v < 0) causes.push(cause.invalid(`status.${k}`, v, NEGATIVE));
  }
  return causes;
}

/** Counts that may not exceed status.replicas, and available not past ready. */
function withinReplicas(status: Obj, keys: string[], availableMessage: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const replicas = count(status, "replicas");
  for (const k of keys) {
    if (count(status, k) > replicas)
      causes.push(cause.invalid(`status.${k}`, count(status, k), "cannot be greater than status.replicas"));
  }
  if (count(status, "availableReplicas") > count(status, "readyReplicas"))
    causes.push(
      cause.invalid("status.availableReplicas", count(status, "availableReplicas"), availableMessage),
    );
  return causes;
}

/** IsDecremented: a collision count removed or lowered. */
function collisionCountDecremented(status: Obj, oldStatus: Obj): StatusCause[] {
  const now = status.collisionCount;
  const before = oldStatus.collisionCount;
  if (typeof before !== "number") return [];
  if (typeof now === "number" && now >= before) return [];
  return [cause.invalid("status.collisionCount", typeof now === "number" ? now : 0, "cannot be decremented")];
}

export const deployment: StatusRule = (s, old) => [
  ...nonNegative(s, [
    "observedGeneration",
    "replicas",
    "updatedReplicas",
    "readyReplicas",
    "availableReplicas",
    "unavailableReplicas",
    "terminatingReplicas",
    "collisionCount",
  ]),
  ...withinReplicas(
    s,
    ["updatedReplicas", "readyReplicas", "availableReplicas"],
    "cannot be greater than readyReplicas",
  ),
  ...collisionCountDecremented(s, old),
];

export const statefulSet: StatusRule = (s, old) => [
  ...nonNegative(s, [
    "replicas",
    "readyReplicas",
    "currentReplicas",
    "updatedReplicas",
    "availableReplicas",
    "observedGeneration",
    "collisionCount",
  ]),
  ...withinReplicas(
    s,
    ["readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"],
    "cannot be greater than status.readyReplicas",
  ),
  ...collisionCountDecremented(s, old),
];

export const daemonSet: StatusRule = (s, old) => [
  ...nonNegative(s, [
    "currentNumberScheduled",
    "numberMisscheduled",
    "desiredNumberScheduled",
    "numberReady",
    "observedGeneration",
    "updatedNumberScheduled",
    "numberAvailable",
    "numberUnavailable",
    "collisionCount",
  ]),
  ...collisionCountDecremented(s, old),
];

/** A ReplicaSet's status, and a ReplicationController's (which has no terminatingReplicas). */
export const replicaSet: StatusRule = (s) => [
  ...nonNegative(s, [
    "replicas",
    "fullyLabeledReplicas",
    "readyReplicas",
    "availableReplicas",
    "observedGeneration",
    "terminatingReplicas",
  ]),
  ...withinReplicas(
    s,
    ["fullyLabeledReplicas", "readyReplicas", "availableReplicas"],
    "cannot be greater than readyReplicas",
  ),
];

export const horizontalPodAutoscaler: StatusRule = (s) => {
  const causes: StatusCause[] = [];
  const conditions = Array.isArray(s.conditions) ? (s.conditions as (Obj | null)[]) : [];
  conditions.forEach((c, i) => {
    const g = c?.observedGeneration;
    if (typeof g === "number" && g < 0)
      causes.push(cause.invalid(`status.conditions[${i}].observedGeneration`, g, NEGATIVE));
  });
  causes.push(...nonNegative(s, ["currentReplicas", "desiredReplicas"]));
  return causes;
};

export const podDisruptionBudget: StatusRule = (s) => [
  ...metaConditionCauses(s.conditions, "status.conditions"),
  ...nonNegative(s, ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"]),
];
