// RFC 7386 JSON merge patch: apply, and compute the smallest patch between two documents.
import { trampoline, type Walk } from "../internal/trampoline.js";
import { type JSONObject, type JSONValue, cloneJSON, getOwn, isObject, jsonEqual, setOwn } from "./json.js";

/**
 * Applies an RFC 7386 merge patch: objects merge member by member, `null` deletes a member,
 * anything else (lists included) replaces. Neither input is mutated and the result shares nothing
 * with them. A patch that is not an object replaces the document, as the RFC says.
 */
export function applyMergePatch<T = unknown>(doc: T, patch: unknown): T {
  return mergeInto(cloneJSON(doc) as JSONValue | undefined, patch as JSONValue) as T;
}

// Mutates `target` (a private copy) and returns the merged value. Iterative: a patch may nest
// as deep as kube accepts.
function mergeInto(target: JSONValue | undefined, patch: JSONValue): JSONValue {
  if (!isObject(patch)) return cloneJSON(patch);
  const root: JSONObject = isObject(target) ? target : {};
  const stack: [JSONObject, JSONObject][] = [[root, patch]];
  while (stack.length > 0) {
    const [out, p] = stack.pop()!;
    for (const k of Object.keys(p)) {
      const v = p[k];
      if (v === null) delete out[k];
      else if (!isObject(v)) setOwn(out, k, cloneJSON(v));
      else {
        const cur = getOwn(out, k);
        const next: JSONObject = isObject(cur) ? cur : {};
        setOwn(out, k, next);
        stack.push([next, v]);
      }
    }
  }
  return root;
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
  return trampoline(diffWalk(original, modified));
}

function* diffWalk(original: JSONObject, modified: JSONObject): Walk<JSONObject> {
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
      const sub: JSONObject = yield diffWalk(o, m);
      if (Object.keys(sub).length > 0) setOwn(patch, k, sub);
    } else if (o === undefined || !jsonEqual(o, m)) {
      // A new object member must not carry nulls: they would delete nothing and vanish.
      setOwn(patch, k, cloneJSON(m));
    }
  }
  return patch;
}
