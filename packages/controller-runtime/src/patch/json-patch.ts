// RFC 6902 JSON Patch, applied the way kube-apiserver's json-patch library applies it.
import { PatchError, badRequest } from "./errors.js";
import { goTypeName } from "./go-format.js";
import { type JSONObject, type JSONValue, cloneJSON, getOwn, isObject, jsonEqual, setOwn } from "./json.js";

export type JSONPatchOperation =
  | { op: "add" | "replace" | "test"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "move" | "copy"; from: string; path: string };

/** Splits a JSON pointer into unescaped tokens (`~1` is `/`, `~0` is `~`). */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (pointer[0] !== "/")
    throw invalid(`JSON pointer must be empty or start with a "/": ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => (t.includes("~") ? t.replace(/~1/g, "/").replace(/~0/g, "~") : t));
}

/** Escapes one token for a JSON pointer. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function invalid(message: string): PatchError {
  const e = new PatchError("Invalid", message);
  e.jsonPatch = true;
  return e;
}

const INDEX = /^(0|[1-9][0-9]*)$/;

// The container that holds the last token of `tokens`, or undefined when a step is missing.
function parentOf(doc: JSONValue, tokens: string[]): JSONValue | undefined {
  let cur: JSONValue | undefined = doc;
  for (let i = 0; i < tokens.length - 1; i++) cur = child(cur, tokens[i]);
  return cur;
}

function child(v: JSONValue | undefined, token: string): JSONValue | undefined {
  if (Array.isArray(v)) return INDEX.test(token) ? v[Number(token)] : undefined;
  if (isObject(v)) return getOwn(v, token);
  return undefined;
}

function get(doc: JSONValue, tokens: string[]): JSONValue | undefined {
  let cur: JSONValue | undefined = doc;
  for (const t of tokens) cur = child(cur, t);
  return cur;
}

/** Applies RFC 6902 operations to a copy of `doc`; the result shares nothing with the inputs. */
export function applyJSONPatch<T = unknown>(doc: T, ops: readonly JSONPatchOperation[] | unknown): T {
  // Go decodes `null` into an empty patch.
  if (ops === null) return cloneJSON(doc);
  if (!Array.isArray(ops))
    throw badRequest(`json: cannot unmarshal ${goTypeName(ops)} into Go value of type jsonpatch.Patch`);
  for (const op of ops) {
    if (op !== null && !isObject(op))
      throw badRequest(`json: cannot unmarshal ${goTypeName(op)} into Go value of type jsonpatch.Operation`);
  }
  let root = cloneJSON(doc) as JSONValue;
  // A null operation is an empty one: its kind is unknown.
  for (const raw of (ops as (JSONObject | null)[]).map((o) => o ?? {})) {
    const op = raw.op;
    const path = raw.path;
    if (typeof path !== "string")
      throw invalid(`${String(op)} operation failed to decode path: missing value`);
    switch (op) {
      case "add":
        root = add(root, path, parsePointer(path), requireValue(raw, "add"), "add");
        break;
      case "remove":
        root = remove(root, path, parsePointer(path), "remove");
        break;
      case "replace": {
        const tokens = parsePointer(path);
        const parent = tokens.length === 0 ? undefined : parentOf(root, tokens);
        if (tokens.length > 0 && !Array.isArray(parent) && !isObject(parent)) {
          throw invalid(`replace operation does not apply: doc is missing path: ${path}: missing value`);
        }
        // kube's json-patch (v4) replaces a missing member of an object as if it were there (sets
        // it): only a missing array element, or a missing container, is refused.
        if (Array.isArray(parent) && get(root, tokens) === undefined) {
          throw invalid(`replace operation does not apply: doc is missing key: ${path}: missing value`);
        }
        const value = requireValue(raw, "replace");
        if (tokens.length === 0) root = value;
        else {
          if (get(root, tokens) !== undefined) root = remove(root, path, tokens, "replace");
          root = add(root, path, tokens, value, "replace");
        }
        break;
      }
      case "move":
      case "copy": {
        const from = raw.from;
        if (typeof from !== "string") throw invalid(`${op} operation failed to decode from: missing value`);
        const fromTokens = parsePointer(from);
        const value = get(root, fromTokens);
        if (value === undefined) {
          throw invalid(`${op} operation does not apply: doc is missing from path: ${from}: missing value`);
        }
        if (op === "move") {
          if (path.startsWith(`${from}/`))
            throw invalid(`move operation does not apply: ${path} is inside ${from}`);
          root = remove(root, from, fromTokens, "move");
          root = add(root, path, parsePointer(path), value, "move");
        } else {
          root = add(root, path, parsePointer(path), cloneJSON(value), "copy");
        }
        break;
      }
      case "test": {
        const have = get(root, parsePointer(path));
        const want = Object.hasOwn(raw, "value") ? raw.value : null;
        // A missing member passes a test for null, as in the json-patch library kube uses.
        if (have === undefined ? want !== null : !jsonEqual(have, want)) {
          throw invalid(`testing value ${path} failed: test failed`);
        }
        break;
      }
      default:
        throw invalid(`Unexpected kind: ${String(op)}`);
    }
  }
  return root as T;
}

function requireValue(op: JSONObject, name: string): JSONValue {
  if (!Object.hasOwn(op, "value")) throw invalid(`${name} operation has no value: missing value`);
  return cloneJSON(op.value);
}

function add(root: JSONValue, path: string, tokens: string[], value: JSONValue, opName: string): JSONValue {
  if (tokens.length === 0) return value;
  const parent = parentOf(root, tokens);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const index = last === "-" ? parent.length : INDEX.test(last) ? Number(last) : Number.NaN;
    if (!(index <= parent.length)) {
      throw invalid(
        `error in ${opName} for path: '${path}': Unable to access invalid index: ${last}: invalid index referenced`,
      );
    }
    parent.splice(index, 0, value);
  } else if (isObject(parent)) {
    setOwn(parent, last, value);
  } else {
    throw invalid(`${opName} operation does not apply: doc is missing path: "${path}": missing value`);
  }
  return root;
}

function remove(root: JSONValue, path: string, tokens: string[], opName: string): JSONValue {
  const parent = parentOf(root, tokens);
  const last = tokens[tokens.length - 1];
  if (tokens.length > 0 && Array.isArray(parent) && INDEX.test(last) && Number(last) < parent.length) {
    parent.splice(Number(last), 1);
    return root;
  }
  if (tokens.length > 0 && isObject(parent) && Object.hasOwn(parent, last)) {
    delete parent[last];
    return root;
  }
  throw invalid(`${opName} operation does not apply: doc is missing path: "${path}": missing value`);
}
