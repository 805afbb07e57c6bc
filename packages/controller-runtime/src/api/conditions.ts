// Status conditions as apimachinery's meta package handles them (SetStatusCondition and friends):
// lastTransitionTime moves only when a condition's status changes, so it says how long the object
// has been in that state; reason, message and observedGeneration are replaced as given.
import type { JSONSchemaProps } from "kubernetes-types/apiextensions/v1.js";
import type { Condition } from "kubernetes-types/meta/v1.js";
import type { DeepReadonly } from "./deep-readonly.js";

export type { Condition } from "kubernetes-types/meta/v1.js";

/** A condition to set: `lastTransitionTime` is filled in when absent. */
export type NewCondition = Omit<Condition, "lastTransitionTime"> & { lastTransitionTime?: string };

/** metav1.Time's wire form: RFC 3339 in UTC, whole seconds. */
export function metav1Time(at: Date = new Date()): string {
  return at.toISOString().replace(/\.\d+Z$/, "Z");
}

/**
 * Sets `condition` in `conditions` (changed in place, as Go's takes a pointer to the slice) and
 * says whether anything changed, so a reconciler writes status only when it must. A new type is
 * appended; an existing one keeps its lastTransitionTime unless its status changes.
 */
export function setStatusCondition(
  conditions: Condition[],
  condition: NewCondition,
  now: Date = new Date(),
): boolean {
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) {
    conditions.push({ ...condition, lastTransitionTime: condition.lastTransitionTime || metav1Time(now) });
    return true;
  }
  let changed = false;
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = condition.lastTransitionTime || metav1Time(now);
    changed = true;
  }
  if (existing.reason !== condition.reason) {
    existing.reason = condition.reason;
    changed = true;
  }
  if (existing.message !== condition.message) {
    existing.message = condition.message;
    changed = true;
  }
  if ((existing.observedGeneration ?? 0) !== (condition.observedGeneration ?? 0)) {
    if (condition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = condition.observedGeneration;
    changed = true;
  }
  return changed;
}

/** Removes the condition of `type`; says whether there was one. */
export function removeStatusCondition(conditions: Condition[], type: string): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}

/** The condition of `type`, or undefined. Takes the cache's frozen arrays too. */
export function findStatusCondition(
  conditions: readonly DeepReadonly<Condition>[] | undefined,
  type: string,
): DeepReadonly<Condition> | undefined {
  return conditions?.find((c) => c.type === type);
}

/** The condition of `type` is present with status `True`. */
export function isStatusConditionTrue(
  conditions: readonly DeepReadonly<Condition>[] | undefined,
  type: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, "True");
}

/** The condition of `type` is present with status `False`. */
export function isStatusConditionFalse(
  conditions: readonly DeepReadonly<Condition>[] | undefined,
  type: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, "False");
}

/** The condition of `type` is present with `status`. */
export function isStatusConditionPresentAndEqual(
  conditions: readonly DeepReadonly<Condition>[] | undefined,
  type: string,
  status: "True" | "False" | "Unknown",
): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}

/**
 * The OpenAPI schema of a `metav1.Condition`, for a CRD's `status.conditions` (what
 * controller-gen writes for `[]metav1.Condition`, with kube's validations), used as
 * `conditions: { type: "array", items: conditionSchema, "x-kubernetes-list-type": "map",
 * "x-kubernetes-list-map-keys": ["type"] }`.
 */
export const conditionSchema: JSONSchemaProps = {
  type: "object",
  description: "Condition contains details for one aspect of the current state of this API Resource.",
  required: ["lastTransitionTime", "message", "reason", "status", "type"],
  properties: {
    lastTransitionTime: {
      type: "string",
      format: "date-time",
      description: "The last time the condition transitioned from one status to another.",
    },
    message: {
      type: "string",
      maxLength: 32768,
      description: "A human readable message indicating details about the transition.",
    },
    observedGeneration: {
      type: "integer",
      format: "int64",
      minimum: 0,
      description: "The .metadata.generation that the condition was set based upon.",
    },
    reason: {
      type: "string",
      maxLength: 1024,
      minLength: 1,
      pattern: "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
      description: "A programmatic identifier indicating the reason for the condition's last transition.",
    },
    status: { type: "string", enum: ["True", "False", "Unknown"], description: "Status of the condition." },
    type: {
      type: "string",
      maxLength: 316,
      pattern:
        "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
      description: "Type of condition in CamelCase or in foo.example.com/CamelCase.",
    },
  },
};
