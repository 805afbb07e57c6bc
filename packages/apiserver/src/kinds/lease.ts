// Leases as kube's ValidateLeaseSpec checks them: a positive duration, transitions never negative.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

export const leaseBehaviour: KindBehaviour = {
  validate(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    const causes: StatusCause[] = [];
    const duration = spec.leaseDurationSeconds;
    if (typeof duration === "number" && duration <= 0) {
      causes.push(cause.invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"));
    }
    const transitions = spec.leaseTransitions;
    if (typeof transitions === "number" && transitions < 0) {
      causes.push(cause.invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"));
    }
    return causes;
  },
};
