// setStatusCondition, as apimachinery's meta.SetStatusCondition: lastTransitionTime moves only
// when the condition's status changes, so it tells how long the bucket has been in this state.
import type { Condition } from "kubernetes-types/meta/v1.js";

export type NewCondition = Omit<Condition, "lastTransitionTime">;

/** The conditions with `next` set (a new array); `changed` is false when nothing would change. */
export function setStatusCondition(
  conditions: readonly Condition[],
  next: NewCondition,
  now: Date,
): { conditions: Condition[]; changed: boolean } {
  const i = conditions.findIndex((c) => c.type === next.type);
  const prev = i >= 0 ? conditions[i] : undefined;
  const lastTransitionTime =
    prev && prev.status === next.status ? prev.lastTransitionTime : now.toISOString().replace(/\.\d+Z$/, "Z");
  const merged: Condition = { ...next, lastTransitionTime };
  const changed =
    !prev ||
    prev.status !== merged.status ||
    prev.reason !== merged.reason ||
    prev.message !== merged.message ||
    prev.observedGeneration !== merged.observedGeneration;
  const out = [...conditions];
  if (i >= 0) out[i] = merged;
  else out.push(merged);
  return { conditions: out, changed };
}

export function findStatusCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
