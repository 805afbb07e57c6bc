// RFC 7386 JSON merge patch: apply, and compute the smallest patch between two documents.
import { type JSONObject, type JSONValue, cloneJSON, getOwn, isObject, jsonEqual, setOwn } from "./json.js";

/**
 * Applies an RFC 7386 merge patch: objects merge member by member, `null` deletes a member,
 * anything else (lists included) replaces. Neither input is mutated and the result shares nothing
 * with them. A patch that is not an object replaces the document, as the RFC says.
 */
export function applyMergePatch<T = unknown>(doc: T, patch: unknown): T {
  return mergeInto(cloneJSON(doc) as JSONValue | undefined, patch as JSONValue) as T;
}

// Mutates `target` (a private copy) and returns the merged value.
function mergeInto(target: JSONValue | undefined, patch: JSONValue): JSONValue {
  if (!isObject(patch)) return cloneJSON(patch);
  const out: JSONObject = isObject(target) ? target : {};
  for (const k of Object.keys(patch)) {
    const v = patch[k];
    if (v === null) delete out[k];
    else setOwn(out, k, mergeInto(getOwn(out, k), v));
  }
  return out;
}

/**
 * The smallest merge patch that turns `original` into `modified`: changed members, `null` for
 * removed ones, lists whole. A modified member that is itself `null` cannot be expressed by
 * RFC 7386 and is sent as a deletion.
 */
export function createMergePatch(original: unknown, modified: unknown): JSONValue {
  if (!isObject(original) || !isObject(modified)) return cloneJSON(modified as JSONValue);
  return diffObjects(original, modified);
}

function diffObjects(original: JSONObject, modified: JSONObject): JSONObject {
  const patch: JSONObject = {};
  for (const k of Object.keys(original)) {
    const gone = !Object.hasOwn(modified, k) || modified[k] === undefined;
    if (gone || (modified[k] === null && original[k] !== null)) setOwn(patch, k, null);
  }
  for (const k of Object.keys(modified)) {
    const m = modified[k];
    if (m === null || m === undefined) continue;
    const o = getOwn(original, k);
    if (isObject(o) && isObject(m)) {
      const sub = diffObjects(o, m);
      if (Object.keys(sub).length > 0) setOwn(patch, k, sub);
    } else if (o === undefined || !jsonEqual(o, m)) {
      // A new object member must not carry nulls: they would delete nothing and vanish.
      setOwn(patch, k, cloneJSON(m));
    }
  }
  return patch;
}
