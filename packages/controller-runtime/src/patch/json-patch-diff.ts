// Computes RFC 6902 operations that turn one JSON document into another.
import { escapePointerToken, type JSONPatchOperation } from "./json-patch.js";
import { type JSONValue, cloneJSON, isObject, jsonEqual } from "./json.js";

/**
 * Operations that turn `original` into `modified`: objects are diffed member by member, lists
 * element by element (then trailing elements added or removed), anything else is replaced.
 */
export function createJSONPatch(original: unknown, modified: unknown): JSONPatchOperation[] {
  const ops: JSONPatchOperation[] = [];
  diff(original as JSONValue, modified as JSONValue, "", ops);
  return ops;
}

function diff(o: JSONValue, m: JSONValue, path: string, ops: JSONPatchOperation[]): void {
  if (isObject(o) && isObject(m)) {
    for (const k of Object.keys(o)) {
      if (!Object.hasOwn(m, k) || m[k] === undefined)
        ops.push({ op: "remove", path: `${path}/${escapePointerToken(k)}` });
    }
    for (const k of Object.keys(m)) {
      if (m[k] === undefined) continue;
      const p = `${path}/${escapePointerToken(k)}`;
      if (!Object.hasOwn(o, k) || o[k] === undefined)
        ops.push({ op: "add", path: p, value: cloneJSON(m[k]) });
      else diff(o[k], m[k], p, ops);
    }
    return;
  }
  if (Array.isArray(o) && Array.isArray(m)) {
    const common = Math.min(o.length, m.length);
    for (let i = 0; i < common; i++) diff(o[i], m[i], `${path}/${i}`, ops);
    // Remove from the end so that earlier indexes stay valid.
    for (let i = o.length - 1; i >= m.length; i--) ops.push({ op: "remove", path: `${path}/${i}` });
    for (let i = o.length; i < m.length; i++)
      ops.push({ op: "add", path: `${path}/${i}`, value: cloneJSON(m[i]) });
    return;
  }
  if (!jsonEqual(o, m)) ops.push({ op: "replace", path, value: cloneJSON(m) });
}
