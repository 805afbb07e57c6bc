// The field set a create records for its manager, written straight to FieldsV1. An Update that
// creates an object with no managers before it owns exactly what the comparison with an empty
// object calls added, less the ignored top-level fields and the stripped metadata; building that
// through FieldSet algebra (compare, union, difference, emit) costs most of a create's
// managedFields time, so this walk does the same comparison with `lhs` absent and emits directly.
// The general path (updater.ts's recordUpdate) stays the definition; a test checks both agree.
import type { FieldsV1 } from "./fields-v1.js";
import { indexList } from "./list-items.js";
import { comparePathElements, elementKey, type Json, type PathElement } from "./path-element.js";
import { type MapType, type TypeNode, typeFor } from "./type-model.js";

type Obj = Record<string, Json>;

// kube's stripMetaManager, as updater.ts's STRIPPED: these metadata members are nobody's.
const STRIPPED_META = new Set([
  "name",
  "namespace",
  "creationTimestamp",
  "selfLink",
  "uid",
  "clusterName",
  "generation",
  "managedFields",
  "resourceVersion",
]);

function isEmpty(v: Json): boolean {
  if (v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== "object") return false;
  for (const _ in v) return false;
  return true;
}

/**
 * The children of an added value (each a member), or undefined for a leaf: scalars, atomic and
 * empty containers, and values whose shape disagrees with their type.
 */
function addedChildren(r: Json, declared: TypeNode, path: PathElement[]): FieldsV1 | undefined {
  const t = typeFor(declared, r);
  if (t.kind === "scalar") return undefined;
  if (t.kind === "list") {
    if (t.listType === "atomic" || isEmpty(r)) return undefined;
    const items = indexList(t, r as Json[], path);
    const entries: { pe: PathElement; node: FieldsV1 }[] = [];
    for (const { pe, values } of items.values()) {
      // Two items with one key are owned as one atomic value.
      if (values.length >= 2) entries.push({ pe, node: {} });
      else {
        path.push(pe);
        entries.push({ pe, node: memberNode(values[0], t.element(), path) });
        path.pop();
      }
    }
    entries.sort((a, b) => comparePathElements(a.pe, b.pe));
    const out: FieldsV1 = {};
    for (const e of entries) out[elementKey(e.pe)] = e.node;
    return out;
  }
  if (t.atomic || isEmpty(r)) return undefined;
  const m = r as Obj;
  const out: FieldsV1 = {};
  for (const k of Object.keys(m).sort(compareStrings)) {
    const v = m[k];
    if (v === undefined) continue;
    path.push({ field: k });
    out[`f:${k}`] = memberNode(v, t.field(k) ?? t.element(), path);
    path.pop();
  }
  return out;
}

/** A member's FieldsV1 node: `{}` for a leaf, `{".": {}, ...children}` for a container. */
function memberNode(r: Json, declared: TypeNode, path: PathElement[]): FieldsV1 {
  const children = addedChildren(r, declared, path);
  return children && hasKeys(children) ? { ".": {}, ...children } : {};
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The FieldsV1 an Update by one manager records when it creates `obj` (without managedFields)
 * and no manager owned anything before; undefined when it owns nothing. Throws ApplyTypeError
 * where the general path does (lists that break their merge rules).
 */
export function createdFieldsV1(
  obj: Obj,
  type: MapType,
  ignored: (pe: PathElement) => boolean,
): FieldsV1 | undefined {
  const out: FieldsV1 = {};
  let any = false;
  const path: PathElement[] = [];
  for (const k of Object.keys(obj).sort(compareStrings)) {
    // apiVersion and kind are the object's own before and after: never changed, never added.
    if (k === "apiVersion" || k === "kind") continue;
    const v = obj[k];
    if (v === undefined) continue;
    const pe = { field: k };
    if (ignored(pe)) continue;
    path.push(pe);
    const declared = type.field(k) ?? type.element();
    if (k === "metadata") {
      // The metadata member itself and its server-set fields are stripped; what remains below
      // keeps its own membership.
      const children = addedChildren(v, declared, path);
      const kept: FieldsV1 = {};
      let keep = false;
      for (const ck in children) {
        const child = children[ck];
        if (ck.startsWith("f:") && STRIPPED_META.has(ck.slice(2))) {
          const { ".": _, ...below } = child;
          if (!hasKeys(below)) continue;
          kept[ck] = below;
        } else kept[ck] = child;
        keep = true;
      }
      if (keep) out[`f:${k}`] = kept;
      any ||= keep;
    } else {
      out[`f:${k}`] = memberNode(v, declared, path);
      any = true;
    }
    path.pop();
  }
  return any ? out : undefined;
}
