// metav1.Condition, as apimachinery's ValidateConditions checks a list of them: the conditions of
// a Service's, a PodDisruptionBudget's and the newer kinds' status. The older per-kind condition
// types (a Deployment's, a Node's) are not checked at all.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { qualifiedNameErrors } from "controller-runtime/api";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";

const STATUSES = ["False", "True", "Unknown"];
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const REASON_ERROR =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const MAX_REASON = 1024;
const MAX_MESSAGE = 32 * 1024;

const tooLong = (field: string, max: number): StatusCause => ({
  reason: "FieldValueTooLong",
  message: `Too long: may not be more than ${max} bytes`,
  field,
});

/** ValidateConditions: each condition's fields, and no type twice. */
export function metaConditionCauses(conditions: unknown, path: string): StatusCause[] {
  if (!Array.isArray(conditions)) return [];
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  conditions.forEach((c: Obj | null, i) => {
    const at = `${path}[${i}]`;
    const type = typeof c?.type === "string" ? c.type : "";
    if (seen.has(type)) causes.push(cause.duplicate(at, type));
    seen.add(type);
    if (type === "") causes.push(cause.required(`${at}.type`, "is required"));
    else for (const m of qualifiedNameErrors(type)) causes.push(cause.invalid(`${at}.type`, type, m));
    const status = typeof c?.status === "string" ? c.status : "";
    if (status === "") causes.push(cause.required(`${at}.status`));
    else if (!STATUSES.includes(status)) causes.push(cause.notSupported(`${at}.status`, status, STATUSES));
    const generation = c?.observedGeneration;
    if (typeof generation === "number" && generation < 0)
      causes.push(
        cause.invalid(`${at}.observedGeneration`, generation, "must be greater than or equal to zero"),
      );
    if (!c?.lastTransitionTime) causes.push(cause.required(`${at}.lastTransitionTime`));
    const reason = typeof c?.reason === "string" ? c.reason : "";
    if (reason === "") causes.push(cause.required(`${at}.reason`));
    else {
      if (!REASON.test(reason)) causes.push(cause.invalid(`${at}.reason`, reason, REASON_ERROR));
      if (Buffer.byteLength(reason) > MAX_REASON) causes.push(tooLong(`${at}.reason`, MAX_REASON));
    }
    if (typeof c?.message === "string" && Buffer.byteLength(c.message) > MAX_MESSAGE)
      causes.push(tooLong(`${at}.message`, MAX_MESSAGE));
  });
  return causes;
}
