// Computes a strategic merge patch between two versions of an object, as apimachinery's
// CreateTwoWayMergePatch does: keyed lists as changed entries plus `$setElementOrder`, removed
// entries as `$patch: delete`, primitive merge lists with `$deleteFromPrimitiveList`.
import { PatchError } from "./errors.js";
import {
  type JSONObject,
  type JSONValue,
  cloneJSON,
  getOwn,
  isObject,
  jsonEqual,
  kindOf,
  setOwn,
} from "./json.js";
import type { PatchMeta } from "./patch-meta.js";
import {
  DELETE_FROM_PRIMITIVE_LIST,
  DIRECTIVE,
  SET_ELEMENT_ORDER,
  fieldMeta,
  isMergeList,
} from "./strategic-merge-patch.js";

/**
 * The strategic merge patch that turns `original` into `modified` for a kind described by `meta`:
 * `applyStrategicMergePatch(original, patch, meta)` deep-equals `modified` (for documents without
 * `null` members, which no patch format can set, and merge lists whose keys are distinct).
 */
export function createStrategicMergePatch(
  original: unknown,
  modified: unknown,
  meta?: PatchMeta,
): JSONObject {
  if (!isObject(modified))
    throw new PatchError("BadRequest", "a strategic merge patch needs an object to describe");
  return diffMaps(isObject(original) ? original : {}, modified, meta);
}

function diffMaps(o: JSONObject, m: JSONObject, meta: PatchMeta | undefined): JSONObject {
  const patch: JSONObject = {};
  for (const k of Object.keys(o)) {
    if (getOwn(m, k) === undefined) setOwn(patch, k, null);
  }
  for (const k of Object.keys(m)) {
    const mv = m[k];
    if (mv === undefined) continue;
    const ov = getOwn(o, k);
    const childMeta = fieldMeta(meta, k);
    if (ov === undefined || ov === null || kindOf(ov) !== kindOf(mv)) {
      if (ov === undefined || !jsonEqual(ov, mv)) setOwn(patch, k, cloneJSON(mv));
    } else if (isObject(mv)) {
      if (childMeta?.strategy === "replace") {
        if (!jsonEqual(ov, mv)) setOwn(patch, k, cloneJSON(mv));
      } else {
        const sub = diffMaps(ov as JSONObject, mv, childMeta);
        if (Object.keys(sub).length > 0) setOwn(patch, k, sub);
      }
    } else if (Array.isArray(mv)) {
      if (isMergeList(childMeta)) diffMergeList(patch, k, ov as JSONValue[], mv, childMeta);
      else if (!jsonEqual(ov, mv)) setOwn(patch, k, cloneJSON(mv));
    } else if (ov !== mv) {
      setOwn(patch, k, mv);
    }
  }
  return patch;
}

function diffMergeList(
  patch: JSONObject,
  k: string,
  o: JSONValue[],
  m: JSONValue[],
  meta: PatchMeta | undefined,
): void {
  if (jsonEqual(o, m)) return;
  if (o.length === 0) {
    setOwn(patch, k, cloneJSON(m));
    return;
  }
  const all = [...o, ...m];
  const objects = all.every(isObject);
  if (!objects) {
    if (all.some((v) => typeof v === "object")) {
      throw new PatchError("BadRequest", `list ${k} mixes objects and other values; it cannot be merged`);
    }
    const inOriginal = new Set(o);
    const inModified = new Set(m);
    const added = m.filter((v) => !inOriginal.has(v));
    const removed = [...new Set(o.filter((v) => !inModified.has(v)))];
    if (added.length > 0) setOwn(patch, k, added);
    if (removed.length > 0) setOwn(patch, `${DELETE_FROM_PRIMITIVE_LIST}${k}`, removed);
    setOwn(patch, `${SET_ELEMENT_ORDER}${k}`, [...m]);
    return;
  }
  const mergeKey = meta?.mergeKey;
  const keyOf = (v: JSONValue) => (mergeKey ? getOwn(v as JSONObject, mergeKey) : undefined);
  const keysOk = (list: JSONValue[]) => {
    const seen = new Set<unknown>();
    for (const v of list) {
      const key = keyOf(v);
      if (key === undefined || key === null || typeof key === "object" || seen.has(key)) return false;
      seen.add(key);
    }
    return true;
  };
  if (!mergeKey || !keysOk(o) || !keysOk(m)) {
    // Without usable keys the list can only be replaced whole.
    setOwn(patch, k, [...m.map((v) => cloneJSON(v)), { [DIRECTIVE]: "replace" }]);
    return;
  }
  const byKey = new Map<unknown, JSONObject>();
  for (const v of o) byKey.set(keyOf(v), v as JSONObject);
  const inModified = new Set(m.map(keyOf));
  const items: JSONValue[] = [];
  for (const v of m) {
    const key = keyOf(v) as JSONValue;
    const before = byKey.get(key);
    if (before === undefined) items.push(cloneJSON(v));
    else {
      const sub = diffMaps(before, v as JSONObject, meta?.items);
      if (Object.keys(sub).length > 0) {
        setOwn(sub, mergeKey, key);
        items.push(sub);
      }
    }
  }
  for (const v of o) {
    const key = keyOf(v) as JSONValue;
    if (!inModified.has(key)) items.push({ [mergeKey]: key, [DIRECTIVE]: "delete" });
  }
  if (items.length > 0) setOwn(patch, k, items);
  setOwn(
    patch,
    `${SET_ELEMENT_ORDER}${k}`,
    m.map((v) => ({ [mergeKey]: keyOf(v) as JSONValue })),
  );
}
