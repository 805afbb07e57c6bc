// CustomResourceDefinitions: the checks that must pass before a CRD is served, and the cleanup
// finalizer with the Terminating condition that deletion adds.
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import { kubeTime } from "../object/meta.js";
import type { KindBehaviour } from "./behaviour.js";

export const crdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

function basicCrdCauses(crd: CustomResourceDefinition): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = crd.spec;
  if (!spec || typeof spec !== "object") return [cause.required("spec")];
  if (!spec.group) causes.push(cause.required("spec.group"));
  if (!spec.names?.plural) causes.push(cause.required("spec.names.plural"));
  if (!spec.names?.kind) causes.push(cause.required("spec.names.kind"));
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster") {
    causes.push(cause.notSupported("spec.scope", spec.scope ?? "", ["Cluster", "Namespaced"]));
  }
  if (!Array.isArray(spec.versions) || spec.versions.length === 0) {
    causes.push(cause.required("spec.versions", "must have exactly one version marked as storage version"));
  } else if (spec.versions.filter((v) => v.storage).length !== 1) {
    causes.push(
      cause.invalid(
        "spec.versions",
        spec.versions.map((v) => v.name),
        "must have exactly one version marked as storage version",
      ),
    );
  }
  const name = crd.metadata?.name;
  if (spec.group && spec.names?.plural && name !== `${spec.names.plural}.${spec.group}`) {
    causes.push(cause.invalid("metadata.name", name ?? "", `must be spec.names.plural+"."+spec.group`));
  }
  return causes;
}

/** `validate` is the CRD validation of the schema helper when present (all of kube's rules), else the basic checks. */
export function crdBehaviour(
  validate?: (crd: CustomResourceDefinition, old?: CustomResourceDefinition) => StatusCause[],
): KindBehaviour {
  return {
    defaults(obj) {
      const spec = (obj.spec ?? {}) as Obj;
      const names = (spec.names ?? {}) as Obj;
      if (names.kind && !names.listKind) names.listKind = `${String(names.kind)}List`;
      if (names.kind && !names.singular) names.singular = String(names.kind).toLowerCase();
      spec.conversion ??= { strategy: "None" };
      // SetDefaults_CustomResourceDefinition: a status without stored versions gets the storage
      // version, on every write (a status write that empties them too).
      const status = obj.status as Obj | undefined;
      if (status && typeof status === "object") {
        const stored = status.storedVersions;
        const storage = ((spec.versions ?? []) as Obj[]).find((v) => v?.storage === true)?.name;
        if ((!Array.isArray(stored) || stored.length === 0) && typeof storage === "string")
          status.storedVersions = [storage];
      }
    },
    // kube's PrepareForCreate: the status starts empty but for the storage version, and the
    // create answers it so (the names and conditions come when the CRD is accepted).
    created(obj) {
      const versions = ((obj.spec as Obj | undefined)?.versions ?? []) as Obj[];
      const storage = versions.find((v) => v.storage === true)?.name;
      obj.status = {
        conditions: null,
        acceptedNames: { plural: "", kind: "" },
        storedVersions: typeof storage === "string" ? [storage] : [],
      };
    },
    validate(obj, old) {
      const crd = obj as unknown as CustomResourceDefinition;
      if (!validate) return basicCrdCauses(crd);
      // A CRD without a spec is Go's zero spec to kube: every rule reports on it.
      const whole = crd.spec ? crd : ({ ...crd, spec: {} } as CustomResourceDefinition);
      return validate(whole, old as unknown as CustomResourceDefinition);
    },
    beginDelete(obj, now) {
      const meta = obj.metadata as Obj;
      const finalizers = (meta.finalizers as string[] | undefined) ?? [];
      if (!finalizers.includes(crdCleanupFinalizer)) meta.finalizers = [...finalizers, crdCleanupFinalizer];
      const status = (obj.status ?? {}) as Obj;
      const conditions = ((status.conditions as Obj[] | null | undefined) ?? []).filter(
        (c) => c.type !== "Terminating",
      );
      conditions.push({
        type: "Terminating",
        status: "True",
        lastTransitionTime: kubeTime(now),
        reason: "InstanceDeletionInProgress",
        message: "CustomResource deletion is in progress",
      });
      status.conditions = conditions;
      obj.status = status;
    },
  };
}
