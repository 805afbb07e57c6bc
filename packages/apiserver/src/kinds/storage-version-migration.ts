// storagemigration.k8s.io/v1 StorageVersionMigrations (GA in 1.36): the resource to migrate is
// required, named as an APIService's are, and, once written, fixed (ValidateStorageVersionMigration and its update).
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { dns1035LabelErrors, dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { semanticEqual } from "./immutable.js";

/** Go's %v of the spec struct, as kube prints the immutable value. */
function goSpec(spec: Obj): string {
  const r = (spec.resource ?? {}) as Obj;
  return JSON.stringify({ Resource: { group: r.group ?? "", resource: r.resource ?? "" } });
}

export const storageVersionMigrationBehaviour: KindBehaviour = {
  validate(obj, old) {
    const spec = (obj.spec ?? {}) as Obj;
    const causes: StatusCause[] = [];
    // Semantic.DeepEqual: an absent group is the empty one.
    if (old && !semanticEqual(spec, old.spec ?? {})) {
      causes.push({
        reason: "FieldValueInvalid",
        message: `Invalid value: ${goSpec(spec)}: field is immutable`,
        field: "spec",
      });
    }
    // As an APIService's: the resource a DNS-1035 label, a group given a DNS-1123 subdomain.
    const resource = (spec.resource ?? {}) as Obj;
    const name = typeof resource.resource === "string" ? resource.resource : "";
    if (name === "") causes.push(cause.required("spec.resource.resource", "resource is required to be set"));
    else {
      const errs = dns1035LabelErrors(name);
      if (errs.length > 0) causes.push(cause.invalid("spec.resource.resource", name, errs.join(",")));
    }
    const group = typeof resource.group === "string" ? resource.group : "";
    const groupErrs = group === "" ? [] : dns1123SubdomainErrors(group);
    if (groupErrs.length > 0) causes.push(cause.invalid("spec.resource.group", group, groupErrs.join(",")));
    return causes;
  },
};
