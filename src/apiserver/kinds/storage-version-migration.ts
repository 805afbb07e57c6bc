// storagemigration.k8s.io/v1 StorageVersionMigrations (GA in 1.36): the resource to migrate is
// required and, once written, fixed (ValidateStorageVersionMigration and its update).
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { deepEqual } from "../object/meta.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

/** Go's %v of the spec struct, as kube prints the immutable value. */
function goSpec(spec: Obj): string {
  const r = (spec.resource ?? {}) as Obj;
  return JSON.stringify({ Resource: { group: r.group ?? "", resource: r.resource ?? "" } });
}

export const storageVersionMigrationBehaviour: KindBehaviour = {
  validate(obj, old) {
    const spec = (obj.spec ?? {}) as Obj;
    const causes: StatusCause[] = [];
    if (old && !deepEqual(spec, old.spec ?? {})) {
      causes.push({
        reason: "FieldValueInvalid",
        message: `Invalid value: ${goSpec(spec)}: field is immutable`,
        field: "spec",
      });
    }
    const resource = (spec.resource ?? {}) as Obj;
    if (!resource.resource)
      causes.push(cause.required("spec.resource.resource", "resource is required to be set"));
    return causes;
  },
};
