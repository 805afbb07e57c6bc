// VolumeAttributesClasses (storage.k8s.io/v1 since 1.34): a CSI driver's name and the parameters
// a claim's volume is modified with, both fixed once written (ValidateVolumeAttributesClassUpdate),
// and the protection finalizer kube's StorageObjectInUseProtection admission adds.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { deepEqual } from "../object/meta.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { addFinalizer, provisionerCauses } from "./storage.js";

/** validateParameters with allowEmpty false: some parameters, none with an empty name. */
function parameterCauses(params: unknown): StatusCause[] {
  const entries = params && typeof params === "object" ? Object.keys(params) : [];
  const causes = entries
    .filter((k) => k.length === 0)
    .map((k) => cause.invalid("parameters", k, "field can not be empty."));
  if (entries.length === 0)
    causes.push(cause.required("parameters", "must contain at least one key/value pair"));
  return causes;
}

export const volumeAttributesClassBehaviour: KindBehaviour = {
  validate(obj, old) {
    const causes: StatusCause[] = [];
    if (old) {
      if (obj.driverName !== old.driverName)
        causes.push(cause.forbidden("driverName", "updates to driverName are forbidden."));
      if (!deepEqual(obj.parameters ?? {}, old.parameters ?? {}))
        causes.push(cause.forbidden("parameters", "updates to parameters are forbidden."));
    }
    causes.push(...provisionerCauses(obj.driverName, "driverName"), ...parameterCauses(obj.parameters));
    return causes;
  },
  created(obj: Obj) {
    addFinalizer(obj, "kubernetes.io/vac-protection");
  },
};
