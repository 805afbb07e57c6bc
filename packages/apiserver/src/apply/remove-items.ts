// Removing fields from an object by path, as SMD's TypedValue.RemoveItems: a path in the set
// removes that field or list item with everything below it; atomic values are never entered.
import { trampoline, type Walk } from "../object/trampoline.js";
import type { FieldSet } from "./field-set.js";
import { ApplyTypeError, listItemElement } from "./list-items.js";
import type { Json, PathElement } from "./path-element.js";
import { type TypeNode, typeFor } from "./type-model.js";

/** A copy of `v` without the paths in `toRemove` (containers emptied by it stay, empty). */
export function removeItems(v: Json, declared: TypeNode, toRemove: FieldSet): Json {
  // A trampoline: objects may nest as deep as kube accepts (10 000 levels).
  return trampoline(remove(v, declared, toRemove));
}

function* remove(v: Json, declared: TypeNode, toRemove: FieldSet): Walk<Json> {
  if (toRemove.isEmpty()) return v;
  const t = typeFor(declared, v);
  if (t.kind === "scalar") return v;
  if (t.kind === "list") {
    const list = v as Json[];
    if (t.listType === "atomic" || list.length === 0) return v;
    const out: Json[] = [];
    for (let i = 0; i < list.length; i++) {
      const item = list[i];
      let pe: PathElement;
      try {
        pe = listItemElement(t, item, i);
      } catch (e) {
        if (e instanceof ApplyTypeError) {
          out.push(item);
          continue;
        }
        throw e;
      }
      if (toRemove.hasMember(pe)) continue;
      const sub = toRemove.child(pe);
      out.push(sub ? yield remove(item, t.element(), sub) : item);
    }
    return out;
  }
  if (t.atomic) return v;
  const out: Record<string, Json> = {};
  for (const [k, child] of Object.entries(v as Record<string, Json>)) {
    const pe = { field: k };
    if (toRemove.hasMember(pe)) continue;
    const sub = toRemove.child(pe);
    out[k] = sub ? yield remove(child, t.field(k) ?? t.element(), sub) : child;
  }
  return out;
}
