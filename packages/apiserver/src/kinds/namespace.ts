// Namespaces: phase Active, the `kubernetes` finalizer in spec, the name label kube adds, and
// phase Terminating while its contents are deleted.
import type { KindBehaviour } from "./behaviour.js";
import type { Obj } from "../storage/index.js";
import { cloneJson } from "../object/deep-json.js";

export const namespaceBehaviour: KindBehaviour = {
  defaults(obj, { old }) {
    const meta = obj.metadata as Obj;
    const labels = (meta.labels ?? {}) as Record<string, string>;
    if (typeof meta.name === "string") labels["kubernetes.io/metadata.name"] = meta.name;
    meta.labels = labels;
    if (!old) {
      obj.status = { phase: "Active" };
      return;
    }
    if (obj.spec === undefined && old.spec !== undefined) obj.spec = cloneJson(old.spec);
    // SetDefaults_NamespaceStatus, on every decode: a status write without a phase is Active.
    const status = (obj.status ?? {}) as Obj;
    if (!status.phase) status.phase = "Active";
    obj.status = status;
  },
  created(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    if (!Array.isArray(spec.finalizers)) spec.finalizers = ["kubernetes"];
    obj.spec = spec;
  },
  beginDelete(obj) {
    obj.status = { ...((obj.status as Obj | undefined) ?? {}), phase: "Terminating" };
  },
  held(obj) {
    const f = (obj.spec as Obj | undefined)?.finalizers;
    return Array.isArray(f) && f.length > 0;
  },
};
