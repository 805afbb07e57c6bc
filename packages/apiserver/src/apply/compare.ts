// What changed between two versions of an object, as SMD's TypedValue.Compare: leaves (scalars,
// atomic lists and maps, empty containers) added, modified or removed, and the maps, lists and
// list items that appeared or disappeared as a whole.
import { deepEqual } from "../object/meta.js";
import { trampoline, type Walk } from "../object/trampoline.js";
import { FieldCursor, FieldSet } from "./field-set.js";
import { indexList } from "./list-items.js";
import type { Json, PathElement } from "./path-element.js";
import { type TypeNode, typeFor } from "./type-model.js";

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/** Compares `lhs` (before) with `rhs` (after); undefined stands for an absent value. */
export function compareObjects(lhs: Json | undefined, rhs: Json | undefined, t: TypeNode): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  // A trampoline: objects may nest as deep as kube accepts (10 000 levels).
  trampoline(walk(lhs, rhs, t, [], new FieldCursor(), c));
  return c;
}

/** The comparison without the paths under top-level fields `drop` selects (ignored fields). */
export function excludeTopLevel(c: Comparison, drop: (pe: PathElement) => boolean): Comparison {
  return {
    added: c.added.withoutTopLevel(drop),
    modified: c.modified.withoutTopLevel(drop),
    removed: c.removed.withoutTopLevel(drop),
  };
}

function leaf(l: Json | undefined, r: Json | undefined, at: FieldCursor, c: Comparison): void {
  if (l === undefined) at.insertInto(c.added);
  else if (r === undefined) at.insertInto(c.removed);
  else if (!deepEqual(l, r)) at.insertInto(c.modified);
}

function isEmpty(v: Json | undefined): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== "object") return false;
  for (const _ in v) return false;
  return true;
}

function isContainerOrNull(v: Json): boolean {
  return v === null || typeof v === "object";
}

function* walk(
  l: Json | undefined,
  r: Json | undefined,
  declared: TypeNode,
  path: PathElement[],
  at: FieldCursor,
  c: Comparison,
): Walk<void> {
  if (l === undefined && r === undefined) return;
  // Both empty or null: one leaf, so that null and empty differ (SMD's emptyPromoteToLeaf; Go
  // writes a nil slice null and a decoded `[]` as it is).
  if (
    isEmpty(l) &&
    isEmpty(r) &&
    l !== undefined &&
    r !== undefined &&
    isContainerOrNull(l) &&
    isContainerOrNull(r)
  ) {
    const t = typeFor(declared, r === null ? l : r);
    if (t.kind !== "scalar") {
      leaf(l, r, at, c);
      return;
    }
  }
  // SMD reads a null where a list or map is declared as that container, empty and present (Go
  // writes nil slices and maps as null): its items are added, the container itself is not.
  if (l === null && r !== null && r !== undefined) {
    const kind = typeFor(declared, r).kind;
    if (kind === "list") l = [];
    else if (kind === "map") l = {};
  }
  const tl = l === undefined ? undefined : typeFor(declared, l);
  const tr = r === undefined ? undefined : typeFor(declared, r);
  const t = tr ?? tl;
  if (!t || t.kind === "scalar" || (tl && tr && tl.kind !== tr.kind)) {
    leaf(l, r, at, c);
    return;
  }
  if (t.kind === "list") {
    if (t.listType === "atomic" || (isEmpty(l) && isEmpty(r))) {
      leaf(l, r, at, c);
      return;
    }
    yield compareItems(l as Json[] | undefined, r as Json[] | undefined, t, path, at, c);
  } else {
    if (t.atomic || (isEmpty(l) && isEmpty(r))) {
      leaf(l, r, at, c);
      return;
    }
    const lm = (l ?? {}) as Record<string, Json>;
    const rm = (r ?? {}) as Record<string, Json>;
    for (const k in lm) {
      const pe = { field: k };
      path.push(pe);
      yield walk(
        lm[k],
        Object.hasOwn(rm, k) ? rm[k] : undefined,
        t.field(k) ?? t.element(),
        path,
        at.child(pe),
        c,
      );
      path.pop();
    }
    for (const k in rm) {
      if (Object.hasOwn(lm, k)) continue;
      const pe = { field: k };
      path.push(pe);
      yield walk(undefined, rm[k], t.field(k) ?? t.element(), path, at.child(pe), c);
      path.pop();
    }
  }
  // A map or list that appeared or disappeared is itself added or removed.
  if (l === undefined) at.insertInto(c.added);
  else if (r === undefined) at.insertInto(c.removed);
}

function* compareItems(
  l: Json[] | undefined,
  r: Json[] | undefined,
  t: Extract<TypeNode, { kind: "list" }>,
  path: PathElement[],
  parent: FieldCursor,
  c: Comparison,
): Walk<void> {
  const li = indexList(t, l ?? [], path);
  const ri = indexList(t, r ?? [], path);
  const keys = new Set([...li.keys(), ...ri.keys()]);
  for (const k of keys) {
    const a = li.get(k);
    const b = ri.get(k);
    const pe = (a ?? b)!.pe;
    const ln = a?.values.length ?? 0;
    const rn = b?.values.length ?? 0;
    path.push(pe);
    const at = parent.child(pe);
    if (ln <= 1 && rn <= 1) yield walk(a?.values[0], b?.values[0], t.element(), path, at, c);
    else if (ln >= 2 && rn >= 2) {
      // Duplicates on both sides are compared as one atomic value.
      if (!deepEqual(a?.values, b?.values)) at.insertInto(c.modified);
    } else if (ln >= 2) {
      if (rn !== 0) yield walk(undefined, b?.values[0], t.element(), path, at, c);
      at.insertInto(c.removed);
    } else {
      if (ln !== 0) yield walk(a?.values[0], undefined, t.element(), path, at, c);
      at.insertInto(c.added);
    }
    path.pop();
  }
}
