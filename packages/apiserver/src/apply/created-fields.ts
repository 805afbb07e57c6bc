// The field set a create records for its manager, written straight to FieldsV1. An Update that
// creates an object with no managers before it owns exactly what the comparison with an empty
// object calls added, less the ignored top-level fields and the stripped metadata; building that
// through FieldSet algebra (compare, union, difference, emit) costs most of a create's
// managedFields time, so this walk does the same comparison with `lhs` absent and emits directly.
// The general path (updater.ts's recordUpdate) stays the definition; a test checks both agree.
import { jsonEqual } from "../object/deep-json.js";
import { trampoline, type Walk } from "../object/trampoline.js";
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

/**
 * A scalar value (not an object or a list) is a leaf whatever its declared type (typeFor reads a
 * shape that disagrees as a scalar): its node is `{}`, found without starting a walk (most
 * members of most objects are leaves, and each walk is a generator).
 */
function isLeaf(v: Json): boolean {
  return v === null || typeof v !== "object";
}

function isEmpty(v: Json): boolean {
  if (v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== "object") return false;
  for (const _ in v) return false;
  return true;
}

/**
 * Adds the members below an added value to `out` and answers how many: none for a leaf
 * (scalars, atomic and empty containers, values whose shape disagrees with their type).
 */
function* addChildren(r: Json, declared: TypeNode, path: PathElement[], out: FieldsV1): Walk<number> {
  const t = typeFor(declared, r);
  if (t.kind === "scalar") return 0;
  if (t.kind === "list") {
    if (t.listType === "atomic" || isEmpty(r)) return 0;
    const items = indexList(t, r as Json[], path);
    const entries: { pe: PathElement; node: FieldsV1 }[] = [];
    for (const { pe, values } of items.values()) {
      // Two items with one key are owned as one atomic value.
      if (values.length >= 2) entries.push({ pe, node: {} });
      else {
        const value = values[0];
        if (isLeaf(value)) entries.push({ pe, node: {} });
        else {
          path.push(pe);
          entries.push({ pe, node: yield memberNode(value, t.element(), path) });
          path.pop();
        }
      }
    }
    if (entries.length > 1) entries.sort((a, b) => comparePathElements(a.pe, b.pe));
    for (const e of entries) out[elementKey(e.pe)] = e.node;
    return entries.length;
  }
  if (t.atomic || isEmpty(r)) return 0;
  const m = r as Obj;
  let n = 0;
  for (const k of sortedKeys(m)) {
    const v = m[k];
    if (v === undefined) continue;
    n++;
    if (isLeaf(v)) {
      out[`f:${k}`] = {};
      continue;
    }
    path.push({ field: k });
    out[`f:${k}`] = yield memberNode(v, t.field(k) ?? t.element(), path);
    path.pop();
  }
  return n;
}

/** A member's FieldsV1 node: `{}` for a leaf, `{".": {}, ...children}` for a container. */
function* memberNode(r: Json, declared: TypeNode, path: PathElement[]): Walk<FieldsV1> {
  const node: FieldsV1 = { ".": {} };
  return (yield addChildren(r, declared, path, node)) > 0 ? node : {};
}

/** Keys in UTF-16 code unit order (the default sort's, and Go's byte order for field names). */
function sortedKeys(o: object): string[] {
  const keys = Object.keys(o);
  if (keys.length > 1) keys.sort();
  return keys;
}

/**
 * What metadata contributes: its own membership and its server-set members' are stripped,
 * their children (if a client sent containers there) and every other member kept.
 */
function* addMetadata(meta: Json, declared: TypeNode, path: PathElement[], out: FieldsV1): Walk<number> {
  const t = typeFor(declared, meta);
  if (t.kind !== "map" || t.atomic) return 0;
  const m = meta as Obj;
  let n = 0;
  for (const k of sortedKeys(m)) {
    const v = m[k];
    if (v === undefined) continue;
    if (isLeaf(v)) {
      // A stripped leaf has nothing below it; any other is owned as a leaf.
      if (!STRIPPED_META.has(k)) {
        out[`f:${k}`] = {};
        n++;
      }
      continue;
    }
    path.push({ field: k });
    const sub = t.field(k) ?? t.element();
    if (STRIPPED_META.has(k)) {
      const below: FieldsV1 = {};
      if ((yield addChildren(v, sub, path, below)) > 0) {
        out[`f:${k}`] = below;
        n++;
      }
    } else {
      out[`f:${k}`] = yield memberNode(v, sub, path);
      n++;
    }
    path.pop();
  }
  return n;
}

/** changedAgainst of a leaf: owned unless Go wrote the same scalar there. */
function leafChanged(r: Json, z: Json): FieldsV1 | undefined {
  return z === undefined || r !== z ? {} : undefined;
}

function sameJson(a: Json, b: Json): boolean {
  return a === b || jsonEqual(a, b);
}

/**
 * What `r` changes against `z`, the same field of the empty object as Go writes it (a struct
 * value, a zero scalar, or null): a struct present there is no member itself, only what
 * differs below it; a zero value left as it was is nobody's; a list where Go wrote null owns its
 * items but not itself. Undefined when nothing changed.
 */
function* changedAgainst(
  r: Json,
  z: Json,
  declared: TypeNode,
  path: PathElement[],
): Walk<FieldsV1 | undefined> {
  if (z === undefined) return yield memberNode(r, declared, path);
  if (sameJson(r, z)) return undefined;
  const t = typeFor(declared, r);
  if (t.kind === "map" && !t.atomic && z !== null && typeof z === "object" && !Array.isArray(z)) {
    const out: FieldsV1 = {};
    let n = 0;
    const m = r as Obj;
    for (const k of sortedKeys(m)) {
      const v = m[k];
      if (v === undefined) continue;
      let below: FieldsV1 | undefined;
      if (isLeaf(v)) below = leafChanged(v, (z as Obj)[k]);
      else {
        path.push({ field: k });
        below = yield changedAgainst(v, (z as Obj)[k], t.field(k) ?? t.element(), path);
        path.pop();
      }
      if (below) {
        out[`f:${k}`] = below;
        n++;
      }
    }
    return n > 0 ? out : undefined;
  }
  const granular = (t.kind === "list" && t.listType !== "atomic") || (t.kind === "map" && !t.atomic);
  if (z === null && granular) {
    // An empty list or map where Go wrote null: one leaf, as SMD's emptyPromoteToLeaf.
    if (isEmpty(r)) return {};
    const out: FieldsV1 = {};
    return (yield addChildren(r, declared, path, out)) > 0 ? out : undefined;
  }
  return {};
}

/**
 * The FieldsV1 an Update by one manager records when it creates `obj` (without managedFields)
 * and no manager owned anything before; undefined when it owns nothing. `zero` is the empty
 * object as Go writes the kind (built-ins: its struct values and zero fields), which the
 * comparison starts from. Throws ApplyTypeError where the general path does (lists that break
 * their merge rules).
 */
export function createdFieldsV1(
  obj: Obj,
  type: MapType,
  ignored: (pe: PathElement) => boolean,
  zero: Obj = {},
): FieldsV1 | undefined {
  // A trampoline: objects may nest as deep as kube accepts (10 000 levels).
  return trampoline(createdWalk(obj, type, ignored, zero));
}

function* createdWalk(
  obj: Obj,
  type: MapType,
  ignored: (pe: PathElement) => boolean,
  zero: Obj,
): Walk<FieldsV1 | undefined> {
  const out: FieldsV1 = {};
  let any = false;
  const path: PathElement[] = [];
  for (const k of sortedKeys(obj)) {
    // apiVersion and kind are the object's own before and after: never changed, never added.
    if (k === "apiVersion" || k === "kind") continue;
    const v = obj[k];
    if (v === undefined) continue;
    const pe = { field: k };
    if (ignored(pe)) continue;
    path.push(pe);
    const declared = type.field(k) ?? type.element();
    if (k === "metadata") {
      const kept: FieldsV1 = {};
      if ((yield addMetadata(v, declared, path, kept)) > 0) {
        out[`f:${k}`] = kept;
        any = true;
      }
    } else {
      const node: FieldsV1 | undefined = isLeaf(v)
        ? leafChanged(v, zero[k])
        : yield changedAgainst(v, zero[k], declared, path);
      if (node) {
        out[`f:${k}`] = node;
        any = true;
      }
    }
    path.pop();
  }
  return any ? out : undefined;
}
