// Merging an apply configuration into the live object, as SMD's TypedValue.Merge: the
// configuration wins on leaves and atomic values, granular maps merge key by key, and set and
// map lists merge item by item, keeping live-only items where they were.
import { cloneJson } from "../object/deep-json.js";
import { trampoline, type Walk } from "../object/trampoline.js";
import { indexList, type IndexedItem } from "./list-items.js";
import type { Json, PathElement } from "./path-element.js";
import { type ListType, type TypeNode, typeFor } from "./type-model.js";

/** `live` with `config` merged in; neither input is changed. */
export function mergeObjects(
  live: Json | undefined,
  config: Json | undefined,
  t: TypeNode,
): Json | undefined {
  // A trampoline: objects may nest as deep as kube accepts (10 000 levels).
  return trampoline(merge(live, config, t, []));
}

function isEmpty(v: Json): boolean {
  if (v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && Object.keys(v).length === 0;
}

function* merge(
  l: Json | undefined,
  r: Json | undefined,
  declared: TypeNode,
  path: PathElement[],
): Walk<Json | undefined> {
  if (r === undefined) return l === undefined ? undefined : cloneJson(l);
  // A configured value with nothing live is still walked, so that its lists are checked.
  if (l === undefined) return yield mergeLone(r, declared, path);
  const tl = typeFor(declared, l);
  const tr = typeFor(declared, r);
  if (tl.kind !== tr.kind || tr.kind === "scalar") return cloneJson(r);
  if (tr.kind === "list") {
    if (tr.listType === "atomic" || (isEmpty(l) && isEmpty(r))) return cloneJson(r);
    return yield mergeList(l as Json[], r as Json[], tr, path);
  }
  if (tr.atomic || (isEmpty(l) && isEmpty(r))) return cloneJson(r);
  return yield mergeMap(l as Record<string, Json>, r, declared, path);
}

function* mergeLone(r: Json, declared: TypeNode, path: PathElement[]): Walk<Json> {
  const t = typeFor(declared, r);
  if (t.kind === "list" && t.listType !== "atomic") return yield mergeList([], r as Json[], t, path);
  if (t.kind === "map" && !t.atomic) return yield mergeMap(undefined, r, declared, path);
  return cloneJson(r);
}

function* mergeMap(
  l: Record<string, Json> | undefined,
  r: Json,
  declared: TypeNode,
  path: PathElement[],
): Walk<Record<string, Json>> {
  const t = typeFor(declared, r);
  const rm = r as Record<string, Json>;
  const out: Record<string, Json> = {};
  const keys = l
    ? [...Object.keys(l), ...Object.keys(rm).filter((k) => !Object.hasOwn(l, k))]
    : Object.keys(rm);
  for (const k of keys) {
    const ft = t.kind === "map" ? (t.field(k) ?? t.element()) : declared;
    path.push({ field: k });
    const v: Json | undefined = yield merge(
      l && Object.hasOwn(l, k) ? l[k] : undefined,
      Object.hasOwn(rm, k) ? rm[k] : undefined,
      ft,
      path,
    );
    path.pop();
    // A null in a configuration is a value SMD keeps: a custom resource stores it, and a built-in
    // object's decoding then gives it Go's meaning (an optional field unset, a string "").
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function* mergeItem(
  t: ListType,
  a: IndexedItem | undefined,
  b: IndexedItem,
  path: PathElement[],
): Walk<Json> {
  path.push(b.pe);
  // With duplicates on the live side the configured item replaces them all.
  const lv = a && a.values.length === 1 ? a.values[0] : undefined;
  const out = (yield merge(lv, b.values[0], t.element(), path)) as Json;
  path.pop();
  return out;
}

/**
 * Items in both lists keep the configuration's relative order; live-only items stay next to the
 * items they followed (SMD's merge order).
 */
function* mergeList(l: Json[], r: Json[], t: ListType, path: PathElement[]): Walk<Json[]> {
  const li = indexList(t, l, path);
  const ri = indexList(t, r, path, true);
  const lk = [...li.keys()];
  const rk = [...ri.keys()];
  const shared = rk.filter((k) => li.has(k));
  let nextShared = shared.shift();
  const merged = new Set<string>();
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < lk.length || j < rk.length) {
    if (i < lk.length && j < rk.length) {
      if (lk[i] === rk[j]) {
        merged.add(lk[i]);
        out.push(yield mergeItem(t, li.get(lk[i]), ri.get(rk[j])!, path));
        i++;
        j++;
        nextShared = shared.shift();
        continue;
      }
      if (ri.has(lk[i]) && nextShared !== undefined && nextShared !== lk[i]) {
        i++;
        continue;
      }
    }
    if (i < lk.length) {
      if (!ri.has(lk[i])) {
        for (const v of li.get(lk[i])!.values) out.push(cloneJson(v));
        i++;
        continue;
      }
      if (merged.has(lk[i])) {
        i++;
        continue;
      }
    }
    if (j < rk.length) {
      merged.add(rk[j]);
      out.push(yield mergeItem(t, li.get(rk[j]), ri.get(rk[j])!, path));
      if (nextShared === rk[j]) nextShared = shared.shift();
      j++;
    }
  }
  return out;
}
