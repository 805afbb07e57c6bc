// Which objects a list or watch selects: namespace, label selector and field selector, with the
// per-kind field set kube-apiserver supports.
import { type FieldSelector, FieldSelectorParseError, parseFieldSelector } from "../../api/index.js";
import { type LabelSelector, parseLabelSelector, SelectorParseError } from "../../api/index.js";
import type { ResourceDefinition } from "../registry/index.js";
import { badRequest } from "../status.js";
import type { Obj } from "../storage/index.js";

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
  for (const r of fields.requirements) {
    if (r.field === "metadata.name" || r.field === "metadata.namespace") continue;
    if (def.selectableFields[r.field]) continue;
    const custom = Object.keys(def.selectableFields).length > 0;
    throw badRequest(
      custom
        ? `field label not supported: ${r.field}`
        : `"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
    );
  }
  const fieldValue = (obj: Readonly<Obj>) => (field: string) => {
    const meta = obj.metadata as Obj;
    if (field === "metadata.name") return meta.name as string;
    if (field === "metadata.namespace") return (meta.namespace as string | undefined) ?? "";
    return def.selectableFields[field]?.(obj as Obj);
  };
  const empty = labels.empty && fields.empty;
  return {
    empty,
    matches(obj) {
      const meta = obj.metadata as Obj;
      if (namespace && meta.namespace !== namespace) return false;
      if (empty) return true;
      if (!labels.matches(meta.labels as Record<string, string> | undefined)) return false;
      return fields.matches(fieldValue(obj));
    },
  };
}
