// Which objects a list or watch selects: namespace, label selector and field selector, with the
// per-kind field set kube-apiserver supports.
import { type FieldSelector, FieldSelectorParseError, parseFieldSelector } from "controller-runtime/api";
import { type LabelSelector, parseLabelSelector, SelectorParseError } from "controller-runtime/api";
import type { FieldLabels, ResourceDefinition } from "../registry/index.js";
import { convertBuiltin, hasBuiltinForms } from "../conversion/builtin.js";
import { badRequest } from "../status.js";
import type { Obj } from "../storage/index.js";

/** apimachinery's DefaultMetaV1FieldSelectorConversion, for kinds without their own. */
const DEFAULT_FIELD_LABELS: FieldLabels = {
  accepted: ["metadata.name", "metadata.namespace"],
  refusal: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
};

export interface ObjectFilter {
  /** True when nothing beyond the namespace is selected on. */
  readonly empty: boolean;
  matches(obj: Readonly<Obj>): boolean;
}

export function buildFilter(
  def: ResourceDefinition,
  namespace: string,
  query: URLSearchParams,
): ObjectFilter {
  let labels: LabelSelector;
  let fields: FieldSelector;
  try {
    labels = parseLabelSelector(query.get("labelSelector") ?? "");
  } catch (e) {
    if (e instanceof SelectorParseError) throw badRequest(e.message);
    throw e;
  }
  try {
    fields = parseFieldSelector(query.get("fieldSelector") ?? "");
  } catch (e) {
    if (e instanceof FieldSelectorParseError) throw badRequest(e.message);
    throw e;
  }
  const labelsOf = def.fieldLabels ?? DEFAULT_FIELD_LABELS;
  const renamed = new Map<string, string>();
  for (const r of fields.requirements) {
    if (!labelsOf.accepted.includes(r.field)) throw badRequest(labelsOf.refusal(r.field));
    renamed.set(r.field, labelsOf.renamed?.[r.field] ?? r.field);
  }
  // A label the kind takes but does not fill (Pod's status.podIPs) compares as "", as in kube.
  const fieldValue = (obj: Readonly<Obj>) => (label: string) => {
    const field = renamed.get(label) ?? label;
    const meta = obj.metadata as Obj;
    if (field === "metadata.name") return meta.name as string;
    if (field === "metadata.namespace") return (meta.namespace as string | undefined) ?? "";
    return def.selectableFields[field]?.(obj as Obj) ?? "";
  };
  const empty = labels.empty && fields.empty;
  // Fields are compared on the object as this resource serves it (another group may have written it).
  const view = hasBuiltinForms(def)
    ? (obj: Readonly<Obj>) => convertBuiltin(def, obj) ?? obj
    : (obj: Readonly<Obj>) => obj;
  return {
    empty,
    matches(obj) {
      const meta = obj.metadata as Obj;
      if (namespace && meta.namespace !== namespace) return false;
      if (empty) return true;
      if (!labels.matches(meta.labels as Record<string, string> | undefined)) return false;
      return fields.empty || fields.matches(fieldValue(view(obj)));
    },
  };
}
