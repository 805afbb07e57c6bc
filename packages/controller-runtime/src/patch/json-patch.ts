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

// What follows is gopkg.in/evanphx/json-patch.v4 (v4.13), the library kube-apiserver and
// client-go's fake tracker apply JSON patches with, quirks included: a path's first segment is
// skipped whatever it holds ("data/x" is "/x"); an object's missing member reads as null (so a
// copy from it copies null, a replace of it sets it); an operation without a value uses null;
// array indices are strconv.Atoi's ("01", "+1") and may count from the end ("-1").

type Container = JSONObject | JSONValue[];

const isContainer = (v: JSONValue | undefined): v is Container => typeof v === "object" && v !== null;

/** RFC 6901's unescaping: `~1` first, then `~0` (a strings.Replacer, so "~01" is "~1"). */
function decodeKey(key: string): string {
  return key.includes("~") ? key.replace(/~[01]/g, (m) => (m === "~1" ? "/" : "~")) : key;
}

/** strconv.Atoi of an array key, or undefined when it is not a decimal integer. */
function atoi(key: string): number | undefined {
  return /^[+-]?[0-9]+$/.test(key) ? Number(key) : undefined;
}

/** An array index, negative counting from the end (SupportNegativeIndices), or an error text. */
function arrayIndex(list: JSONValue[], key: string, size = list.length): number | string {
  const idx = atoi(key);
  if (idx === undefined) return `strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`;
  if (idx < 0) {
    if (idx < -size) return `Unable to access invalid index: ${idx}: invalid index referenced`;
    return idx + size;
  }
  if (idx >= size) return `Unable to access invalid index: ${idx}: invalid index referenced`;
  return idx;
}

/** A bad array index met while reading: its error text. */
class BadIndex {
  constructor(readonly error: string) {}
}

/** A container's member: undefined for an object's missing one; BadIndex for a bad array index. */
function getIn(c: Container, key: string): JSONValue | undefined | BadIndex {
  if (!Array.isArray(c)) return getOwn(c, key);
  const idx = arrayIndex(c, key);
  return typeof idx === "string" ? new BadIndex(idx) : c[idx];
}

/** findObject: the container holding a path's last key, and that key; undefined if a step is missing. */
function findObject(root: JSONValue, path: string): [Container, string] | undefined {
  const split = path.split("/");
  if (split.length < 2 || !isContainer(root)) return undefined;
  let doc: Container = root;
  for (let i = 1; i < split.length - 1; i++) {
    const next = getIn(doc, decodeKey(split[i]!));
    if (next instanceof BadIndex || !isContainer(next)) return undefined;
    doc = next;
  }
  return [doc, decodeKey(split[split.length - 1]!)];
}

/** partialDoc.add / partialArray.add; an error text when the index is bad. */
function containerAdd(c: Container, key: string, value: JSONValue): string | undefined {
  if (!Array.isArray(c)) {
    setOwn(c, key, value);
    return undefined;
  }
  if (key === "-") {
    c.push(value);
    return undefined;
  }
  if (atoi(key) === undefined)
    return `value was not a proper array index: '${key}': strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`;
  const idx = arrayIndex(c, key, c.length + 1);
  if (typeof idx === "string") return idx;
  c.splice(idx, 0, value);
  return undefined;
}

/** partialDoc.remove / partialArray.remove. */
function containerRemove(c: Container, key: string): string | undefined {
  if (!Array.isArray(c)) {
    if (!Object.hasOwn(c, key)) return `Unable to remove nonexistent key: ${key}: missing value`;
    delete c[key];
    return undefined;
  }
  const idx = arrayIndex(c, key);
  if (typeof idx === "string") return idx;
  c.splice(idx, 1);
  return undefined;
}

/** An operation's value: a copy, or null when it has none (a nil lazyNode marshals as null). */
function operationValue(op: JSONObject): JSONValue {
  return Object.hasOwn(op, "value") ? cloneJSON(op.value) : null;
}

/** Options of {@link applyJSONPatch}. */
export interface JSONPatchOptions {
  /**
   * The most bytes (as JSON) all `copy` operations may add together: v4's
   * AccumulatedCopySizeLimit. A copy can double a document, so a few dozen operations could
   * otherwise ask for terabytes. Default: no limit, as kube-apiserver and client-go's tracker.
   */
  maxCopyBytes?: number;
}

/** Applies RFC 6902 operations to a copy of `doc`; the result shares nothing with the inputs. */
export function applyJSONPatch<T = unknown>(
  doc: T,
  ops: readonly JSONPatchOperation[] | unknown,
  options: JSONPatchOptions = {},
): T {
  // Go decodes `null` into an empty patch.
  if (ops === null) return cloneJSON(doc);
  if (!Array.isArray(ops))
    throw badRequest(`json: cannot unmarshal ${goTypeName(ops)} into Go value of type jsonpatch.Patch`);
  for (const op of ops) {
    if (op !== null && !isObject(op))
      throw badRequest(`json: cannot unmarshal ${goTypeName(op)} into Go value of type jsonpatch.Operation`);
  }
  const state = { root: cloneJSON(doc) as JSONValue, copied: 0 };
  // A null operation is an empty one: its kind is unknown.
  for (const raw of (ops as (JSONObject | null)[]).map((o) => o ?? {})) applyOne(state, raw, options);
  return state.root as T;
}

function pathOf(raw: JSONObject, field: "path" | "from", op: string): string {
  const v = raw[field];
  if (typeof v !== "string") throw invalid(`${op} operation failed to decode ${field}: missing value`);
  return v;
}

function applyOne(
  state: { root: JSONValue; copied: number },
  raw: JSONObject,
  options: JSONPatchOptions,
): void {
  const op = typeof raw.op === "string" ? raw.op : "unknown";
  switch (op) {
    case "add": {
      const path = pathOf(raw, "path", op);
      const found = findObject(state.root, path);
      if (!found)
        throw invalid(`add operation does not apply: doc is missing path: "${path}": missing value`);
      const err = containerAdd(found[0], found[1], operationValue(raw));
      if (err) throw invalid(`error in add for path: '${path}': ${err}`);
      return;
    }
    case "remove": {
      const path = pathOf(raw, "path", op);
      const found = findObject(state.root, path);
      if (!found)
        throw invalid(`remove operation does not apply: doc is missing path: "${path}": missing value`);
      const err = containerRemove(found[0], found[1]);
      if (err) throw invalid(`error in remove for path: '${path}': ${err}`);
      return;
    }
    case "replace": {
      const path = pathOf(raw, "path", op);
      if (path === "") {
        // The whole document, which must stay an object or an array.
        const value = Object.hasOwn(raw, "value") ? raw.value : undefined;
        if (!isContainer(value as JSONValue | undefined))
          throw invalid("replace operation value must be object or array");
        state.root = cloneJSON(value as JSONValue);
        return;
      }
      const found = findObject(state.root, path);
      if (!found)
        throw invalid(`replace operation does not apply: doc is missing path: ${path}: missing value`);
      const [c, key] = found;
      if (Array.isArray(c)) {
        const idx = arrayIndex(c, key);
        if (typeof idx === "string")
          throw invalid(`replace operation does not apply: doc is missing key: ${path}: missing value`);
        c[idx] = operationValue(raw);
      } else setOwn(c, key, operationValue(raw));
      return;
    }
    case "move": {
      const from = pathOf(raw, "from", op);
      const source = findObject(state.root, from);
      if (!source)
        throw invalid(`move operation does not apply: doc is missing from path: ${from}: missing value`);
      const value = getIn(source[0], source[1]);
      if (value instanceof BadIndex) throw invalid(`error in move for path: '${source[1]}': ${value.error}`);
      const removed = containerRemove(source[0], source[1]);
      if (removed) throw invalid(`error in move for path: '${source[1]}': ${removed}`);
      const path = pathOf(raw, "path", op);
      const target = findObject(state.root, path);
      if (!target)
        throw invalid(
          `move operation does not apply: doc is missing destination path: ${path}: missing value`,
        );
      const err = containerAdd(target[0], target[1], value ?? null);
      if (err) throw invalid(`error in move for path: '${path}': ${err}`);
      return;
    }
    case "test": {
      const path = pathOf(raw, "path", op);
      const hasValue = Object.hasOwn(raw, "value");
      if (path === "") {
        if (hasValue && jsonEqual(state.root, raw.value)) return;
        throw invalid(`testing value ${path} failed: test failed`);
      }
      const found = findObject(state.root, path);
      if (!found) throw invalid(`test operation does not apply: is missing path: ${path}: missing value`);
      const have = getIn(found[0], found[1]);
      if (have instanceof BadIndex) throw invalid(`error in test for path: '${path}': ${have.error}`);
      // A missing member passes a test for null, or one without a value.
      const ok =
        have === undefined ? !hasValue || raw.value === null : hasValue && jsonEqual(have, raw.value);
      if (!ok) throw invalid(`testing value ${path} failed: test failed`);
      return;
    }
    case "copy": {
      const from = pathOf(raw, "from", op);
      const source = findObject(state.root, from);
      if (!source)
        throw invalid(`copy operation does not apply: doc is missing from path: ${from}: missing value`);
      const value = getIn(source[0], source[1]);
      if (value instanceof BadIndex) throw invalid(`error in copy for from: '${from}': ${value.error}`);
      const path = pathOf(raw, "path", op);
      const target = findObject(state.root, path);
      if (!target)
        throw invalid(
          `copy operation does not apply: doc is missing destination path: ${path}: missing value`,
        );
      if (options.maxCopyBytes !== undefined && value !== undefined) {
        state.copied += JSON.stringify(value).length;
        if (state.copied > options.maxCopyBytes) {
          throw invalid(
            `Unable to complete the copy, the accumulated size increase of copy is ${state.copied}, exceeding the limit ${options.maxCopyBytes}`,
          );
        }
      }
      const err = containerAdd(target[0], target[1], value === undefined ? null : cloneJSON(value));
      if (err) throw invalid(`error while adding value during copy: ${err}`);
      return;
    }
    default:
      throw invalid(`Unexpected kind: ${op}`);
  }
}
