// Kubernetes strategic merge patch, applied as apimachinery's strategicpatch.StrategicMergeMapPatch
// applies it: lists with a merge key merge by key, primitive lists with the `merge` strategy merge
// as sets, other lists replace; directives `$patch`, `$retainKeys`, `$setElementOrder/<field>` and
// `$deleteFromPrimitiveList/<field>`. A field without metadata merges like a JSON merge patch.
import { PatchError, badRequest } from "./errors.js";
import { type JSONObject, type JSONValue, getOwn, isObject, jsonEqual, kindOf, setOwn } from "./json.js";
import type { PatchMeta } from "./patch-meta.js";
import { normalizeOrder } from "./element-order.js";
import { goFormat, goReflectType, goTypeName } from "./go-format.js";
import { cloneJSON } from "./json.js";
import { trampoline, type Walk } from "../internal/trampoline.js";

export const DIRECTIVE = "$patch";
export const RETAIN_KEYS = "$retainKeys";
export const SET_ELEMENT_ORDER = "$setElementOrder/";
export const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList/";

/**
 * Applies a strategic merge patch to a copy of `doc`; `meta` describes the kind (see
 * `builtinPatchMeta`). Neither input is mutated and the result shares nothing with them.
 */
export function applyStrategicMergePatch<T = unknown>(doc: T, patch: unknown, meta?: PatchMeta): T {
  // Go decodes `null` into the empty map kube starts from: nothing to apply.
  if (patch === null) patch = {};
  if (!isObject(patch)) {
    throw badRequest(
      `json: cannot unmarshal ${goTypeName(patch)} into Go value of type map[string]interface {}`,
    );
  }
  const original = isObject(doc) ? (cloneJSON(doc) as JSONObject) : {};
  // A trampoline: patches may nest as deep as kube accepts (10 000 levels).
  return trampoline(mergeMap(original, patch, meta)) as T;
}

/** The metadata of member `key` of a value described by `meta`. */
export function fieldMeta(meta: PatchMeta | undefined, key: string): PatchMeta | undefined {
  if (meta === undefined) return undefined;
  return meta.fields ? (Object.hasOwn(meta.fields, key) ? meta.fields[key] : undefined) : meta.items;
}

/** True when a list field merges (`merge` or `merge,retainKeys`) rather than being replaced. */
export function isMergeList(meta: PatchMeta | undefined): boolean {
  return meta?.strategy === "merge" || meta?.strategy === "merge,retainKeys";
}

function internal(message: string): PatchError {
  return new PatchError("InternalError", message);
}

/** mergepatch.ErrBadArgType where a list was expected: Go's reflect type of what was found. */
function badArgType(found: JSONValue): PatchError {
  return internal(`expected a []interface {}, but received a ${goReflectType(found)}`);
}

// Merges `patch` into `original`, which this function owns and mutates.
function* mergeMap(original: JSONObject, patch: JSONObject, meta: PatchMeta | undefined): Walk<JSONObject> {
  if (Object.hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    if (directive === "delete") return {};
    if (directive === "replace") {
      const rest: JSONObject = {};
      for (const k of Object.keys(patch)) if (k !== DIRECTIVE) setOwn(rest, k, patch[k]);
      return yield mergeMap({}, rest, meta);
    }
    throw internal(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(patch)}`);
  }

  if (Object.hasOwn(patch, RETAIN_KEYS)) applyRetainKeys(original, patch);

  let done: Set<string> | undefined;
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const field = key.slice(SET_ELEMENT_ORDER.length);
    if (field === "") throw badRequest("invalid patch format of setElementOrder list");
    yield applySetElementOrder(original, patch, field, patch[key], fieldMeta(meta, field));
    done ??= new Set();
    done.add(field);
  }

  for (const key of Object.keys(patch)) {
    if (key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER) || done?.has(key)) continue;
    const patchV = patch[key];
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      deleteFromPrimitiveList(original, key, patchV);
      continue;
    }
    if (patchV === null) {
      delete original[key];
      continue;
    }
    const childMeta = fieldMeta(meta, key);
    const origV = getOwn(original, key);
    if (origV === undefined || kindOf(origV) !== kindOf(patchV)) {
      setOwn(original, key, yield fresh(patchV, childMeta));
    } else if (isObject(patchV)) {
      setOwn(
        original,
        key,
        childMeta?.strategy === "replace"
          ? yield fresh(patchV, childMeta)
          : yield mergeMap(origV as JSONObject, patchV, childMeta),
      );
    } else if (Array.isArray(patchV)) {
      setOwn(
        original,
        key,
        isMergeList(childMeta)
          ? yield mergeSlice(origV as JSONValue[], patchV, childMeta)
          : yield fresh(patchV, childMeta),
      );
    } else {
      setOwn(original, key, patchV);
    }
  }
  return original;
}

// A patch value that lands where nothing was: a copy with its directives applied to nothing.
function* fresh(v: JSONValue, meta: PatchMeta | undefined): Walk<JSONValue> {
  if (isObject(v)) return yield mergeMap({}, v, meta);
  if (Array.isArray(v)) {
    if (isMergeList(meta)) return yield mergeSlice([], v, meta);
    const out: JSONValue[] = [];
    for (const el of v) out.push(yield fresh(el, meta?.items));
    return out;
  }
  return v;
}

function applyRetainKeys(original: JSONObject, patch: JSONObject): void {
  const list = patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw badRequest("invalid patch format of retainKeys");
  const keep = new Set(list);
  for (const k of Object.keys(patch)) {
    if (k === RETAIN_KEYS || patch[k] === null) continue;
    if (k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw badRequest("invalid patch format of retainKeys");
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

// kube's mergeMap skips a deletion list that is not a list, or whose field is not one.
function deleteFromPrimitiveList(original: JSONObject, key: string, patchV: JSONValue): void {
  const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
  const list = getOwn(original, field);
  if (!Array.isArray(list) || !Array.isArray(patchV)) return;
  const gone = new Set(patchV);
  setOwn(
    original,
    field,
    list.filter((v) => !gone.has(v)),
  );
}

function* applySetElementOrder(
  original: JSONObject,
  patch: JSONObject,
  field: string,
  order: JSONValue,
  meta: PatchMeta | undefined,
): Walk<void> {
  if (!Array.isArray(order)) throw badArgType(order);
  const origV = getOwn(original, field);
  const patchV = getOwn(patch, field);
  if (origV !== undefined && !Array.isArray(origV)) throw badArgType(origV);
  if (patchV !== undefined && patchV !== null && !Array.isArray(patchV)) throw badArgType(patchV);
  if (patchV === null) {
    delete original[field];
    return;
  }
  let merged: JSONValue[];
  if (origV !== undefined && patchV !== undefined) {
    merged = isMergeList(meta)
      ? yield mergeSlice(origV, patchV, meta)
      : ((yield fresh(patchV, meta)) as JSONValue[]);
  } else if (origV !== undefined) merged = origV;
  else if (patchV !== undefined) merged = (yield fresh(patchV, meta)) as JSONValue[];
  else return;
  const mergeKey = meta?.mergeKey ?? "";
  const isMap = merged.length > 0 ? isObject(merged[0]) : isObject(order[0]);
  const keyOf = isMap
    ? (v: JSONValue) => (isObject(v) ? getOwn(v, mergeKey) : undefined)
    : (v: JSONValue) => v;
  const inOrder = new Set(order.map(keyOf));
  const patchItems: JSONValue[] = [];
  const serverOnly: JSONValue[] = [];
  for (const v of merged) (inOrder.has(keyOf(v)) ? patchItems : serverOnly).push(v);
  setOwn(original, field, normalizeOrder(patchItems, serverOnly, order, origV ?? [], keyOf));
}

// Merges two lists with merge semantics; `original` is owned and may be mutated.
function* mergeSlice(
  original: JSONValue[],
  patch: JSONValue[],
  meta: PatchMeta | undefined,
): Walk<JSONValue[]> {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  if (kind !== "object") {
    const seen = new Set<JSONValue>(original);
    const merged = [...original];
    for (const v of patch) {
      if (!seen.has(v)) {
        seen.add(v);
        merged.push(v);
      }
    }
    const inPatch = new Set(patch);
    const patchItems = merged.filter((v) => inPatch.has(v));
    const serverOnly = merged.filter((v) => !inPatch.has(v));
    return normalizeOrder(patchItems, serverOnly, patch, original, identity);
  }
  const mergeKey = meta?.mergeKey;
  if (!mergeKey) throw internal("cannot merge lists without merge key for type map");
  const keyOf = (v: JSONValue) => (isObject(v) ? getOwn(v, mergeKey) : undefined);

  // Directive elements first: `$patch: delete` removes by key, `$patch: replace` drops the original.
  let items: JSONValue[] = [];
  let replace = false;
  for (const v of patch) {
    const el = v as JSONObject;
    if (!Object.hasOwn(el, DIRECTIVE)) {
      items.push(el);
      continue;
    }
    const directive = el[DIRECTIVE];
    if (directive === "delete") {
      const key = getOwn(el, mergeKey);
      if (key === undefined) throw noMergeKey(el, mergeKey);
      original = original.filter((o) => !keyEquals(keyOf(o), key));
    } else if (directive === "replace") {
      replace = true;
    } else if (directive === "merge") {
      throw internal("merging lists cannot yet be specified in the patch");
    } else {
      throw internal(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(el)}`);
    }
  }
  if (replace) {
    const fresher: JSONValue[] = [];
    for (const v of items) fresher.push(yield fresh(v, meta?.items));
    original = fresher;
    items = [];
  }

  const index = new Map<JSONValue, number>();
  original.forEach((o, i) => {
    if (!isObject(o)) throw internal(`value for key ${i} is not a map.`);
    const k = getOwn(o, mergeKey);
    if (k !== undefined && !index.has(k)) index.set(k, i);
  });
  const merged = [...original];
  for (const v of items) {
    const el = v as JSONObject;
    const key = getOwn(el, mergeKey);
    if (key === undefined) throw noMergeKey(el, mergeKey);
    const at = index.get(key);
    if (at !== undefined) merged[at] = yield mergeMap(merged[at] as JSONObject, el, meta?.items);
    else {
      index.set(key, merged.length);
      merged.push(yield fresh(el, meta?.items));
    }
  }
  const inPatch = new Set(items.map(keyOf));
  const patchItems = merged.filter((v) => inPatch.has(keyOf(v)));
  const serverOnly = merged.filter((v) => !inPatch.has(keyOf(v)));
  return normalizeOrder(patchItems, serverOnly, items, original, keyOf);
}

const identity = (v: JSONValue) => v;

function keyEquals(a: JSONValue | undefined, b: JSONValue | undefined): boolean {
  return a === b || (typeof a === "object" && a !== null && jsonEqual(a, b));
}

function noMergeKey(el: JSONObject, mergeKey: string): PatchError {
  return internal(`map: ${goFormat(el)} does not contain declared merge key: ${mergeKey}`);
}

function elementKind(...lists: JSONValue[][]): string {
  let kind: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = kindOf(v);
      if (kind === undefined) {
        if (k === "array") throw new PatchError("Invalid", "lists of lists are not supported");
        kind = k;
      } else if (k !== kind) {
        throw internal(`list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  return kind ?? "null";
}
