// Computes RFC 6902 operations that turn one JSON document into another.
import { escapePointerToken, type JsonPatchOperation } from "./json-patch.js";
import { type JsonValue, cloneJson, isObject, jsonEqual } from "./json.js";

/**
 * Operations that turn `original` into `modified`: objects are diffed member by member, lists
 * element by element (then trailing elements added or removed), anything else is replaced.
 */
export function createJsonPatch(original: unknown, modified: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diff(original as JsonValue, modified as JsonValue, "", ops);
  return ops;
}

function diff(o: JsonValue, m: JsonValue, path: string, ops: JsonPatchOperation[]): void {
  if (isObject(o) && isObject(m)) {
    for (const k of Object.keys(o)) {
      if (!Object.hasOwn(m, k) || m[k] === undefined)
        ops.push({ op: "remove", path: `${path}/${escapePointerToken(k)}` });
    }
    for (const k of Object.keys(m)) {
      if (m[k] === undefined) continue;
      const p = `${path}/${escapePointerToken(k)}`;
      if (!Object.hasOwn(o, k) || o[k] === undefined)
        ops.push({ op: "add", path: p, value: cloneJson(m[k]) });
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
      ops.push({ op: "add", path: `${path}/${i}`, value: cloneJson(m[i]) });
    return;
  }
  if (!jsonEqual(o, m)) ops.push({ op: "replace", path, value: cloneJson(m) });
}
