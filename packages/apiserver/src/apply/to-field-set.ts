// The fields a value sets, as SMD's TypedValue.ToFieldSet: every scalar, every list item of a
// set or map list, atomic lists and maps as one leaf, and map keys the schema does not name.
// Declared struct fields are not members themselves (ensureNamedFieldsAreMembers adds them).
import { trampoline, type Walk } from "../object/trampoline.js";
import { FieldCursor, FieldSet } from "./field-set.js";
import { ApplyTypeError, indexList } from "./list-items.js";
import { type Json, type PathElement, pathText } from "./path-element.js";
import { DEDUCED, type TypeNode, typeFor } from "./type-model.js";

/**
 * The field set of `value`. For an apply configuration (`config`), duplicate list keys and
 * fields a struct does not declare are errors, as SMD's typed conversion makes them.
 */
export function toFieldSet(value: Json, t: TypeNode, config = false): FieldSet {
  const set = new FieldSet();
  // A trampoline: values may nest as deep as kube accepts (10 000 levels).
  trampoline(walk(value, t, [], new FieldCursor(), set, config));
  return set;
}

function* walk(
  v: Json,
  declared: TypeNode,
  path: PathElement[],
  at: FieldCursor,
  set: FieldSet,
  config: boolean,
): Walk<void> {
  const t = typeFor(declared, v);
  if (t.kind === "scalar") {
    // A null where a map or list is declared sets nothing, as SMD's nil map/list.
    if (v === null && (declared.kind === "map" || declared.kind === "list")) return;
    at.insertInto(set);
    return;
  }
  if (t.kind === "list") {
    if (t.listType === "atomic") {
      at.insertInto(set);
      return;
    }
    const items = indexList(t, v as Json[], path, config);
    for (const { pe, values } of items.values()) {
      path.push(pe);
      const item = at.child(pe);
      for (const value of values) yield walk(value, t.element(), path, item, set, config);
      item.insertInto(set);
      path.pop();
    }
    return;
  }
  if (t.atomic) {
    at.insertInto(set);
    return;
  }
  for (const [k, child] of Object.entries(v as Record<string, Json>)) {
    const ft = t.field(k);
    const pe = { field: k };
    path.push(pe);
    if (!ft && t.closed && config)
      throw new ApplyTypeError(`${pathText(path)}: field not declared in schema`);
    const field = at.child(pe);
    yield walk(child, ft ?? t.element(), path, field, set, config);
    // A member the schema does not name, and a null or empty map, is a leaf of its own (SMD's
    // visitMapItems): an apply of `emptyDir: {}` owns emptyDir.
    if (!ft || child === null || isEmptyMap(child)) field.insertInto(set);
    path.pop();
  }
}

function isEmptyMap(v: Json): boolean {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  for (const _ in v) return false;
  return true;
}

/** The type below one path element of a value of type `t` (deduced when unknown). */
export function childType(t: TypeNode, pe: PathElement): TypeNode {
  if ("field" in pe) return t.kind === "map" ? (t.field(pe.field) ?? t.element()) : DEDUCED;
  if ("key" in pe || "index" in pe) return t.kind === "list" ? t.element() : DEDUCED;
  return DEDUCED;
}

/**
 * `set` plus the declared struct fields its paths go through, so that removing such a field
 * removes it whole (SMD's Set.EnsureNamedFieldsAreMembers).
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, t: TypeNode): FieldSet {
  return trampoline(namedMembers(set, t));
}

function* namedMembers(set: FieldSet, t: TypeNode): Walk<FieldSet> {
  const out = new FieldSet();
  for (const pe of set.members()) out.insertMember(pe);
  for (const { pe, set: child } of set.children()) {
    if ("field" in pe && t.kind === "map" && t.field(pe.field)) out.insertMember(pe);
    out.addUnder(pe, yield namedMembers(child, childType(t, pe)));
  }
  return out;
}
