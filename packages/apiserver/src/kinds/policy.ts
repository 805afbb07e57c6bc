// PodDisruptionBudgets (policy/v1) and RuntimeClasses (node.k8s.io/v1) as kube validates them: a
// budget's minAvailable or maxUnavailable never negative and its selector valid; a runtime
// class's handler an RFC 1123 label.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { dns1123LabelErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { labelSelectorCauses } from "./workloads.js";

/** ValidatePositiveIntOrPercent and IsValidPercent, as a budget's bounds are checked. */
function intOrPercentCauses(value: unknown, field: string): StatusCause[] {
  if (typeof value === "number") {
    return value < 0 ? [cause.invalid(field, value, "must be greater than or equal to 0")] : [];
  }
  if (typeof value === "string") {
    const m = /^([0-9]+)%$/.exec(value);
    if (!m)
      return [
        cause.invalid(
          field,
          value,
          "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        ),
      ];
    if (Number(m[1]) > 100) return [cause.invalid(field, value, "must not be greater than 100%")];
  }
  return [];
}

export const podDisruptionBudgetBehaviour: KindBehaviour = {
  validate(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    const causes: StatusCause[] = [];
    if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
      causes.push(cause.invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
    }
    causes.push(...intOrPercentCauses(spec.minAvailable, "spec.minAvailable"));
    causes.push(...intOrPercentCauses(spec.maxUnavailable, "spec.maxUnavailable"));
    causes.push(...labelSelectorCauses(spec.selector, "spec.selector"));
    return causes;
  },
};

export const runtimeClassBehaviour: KindBehaviour = {
  validate(obj, old) {
    const handler = typeof obj.handler === "string" ? obj.handler : "";
    // ValidateRuntimeClassUpdate: the handler never changes (kube shows no value).
    if (old && handler !== (old.handler ?? "")) {
      const causes = [cause.invalid("handler", null, "field is immutable")];
      if (handler === "") causes.push(cause.required("handler"));
      return causes;
    }
    if (handler === "") return [cause.required("handler")];
    return dns1123LabelErrors(handler).map((m) => cause.invalid("handler", handler, m));
  },
};
