// The JSON text of a patched object as kube quotes it when the object does not decode (the value
// of its 422 on `patch`). kube patches with evanphx/json-patch, which keeps every part of the
// document it did not have to look into as it was written and re-encodes with Go's map order
// (sorted keys) what it did: the top level, the objects a merge patch merges into and the values
// it brings, the containers a JSON patch's paths go through. Go's encoder escapes <, > and &.
import type { Obj } from "../storage/index.js";

/** Which objects of a value are re-encoded with sorted keys: all below, or some children. */
export interface SortSpec {
  all?: boolean;
  children?: Map<string, SortSpec>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function child(spec: SortSpec, key: string): SortSpec {
  spec.children ??= new Map();
  let c = spec.children.get(key);
  if (!c) {
    c = {};
    spec.children.set(key, c);
  }
  return c;
}

/** What evanphx's MergePatch parses (and so sorts) merging `patch` into `doc`. */
export function mergePatchSortSpec(doc: unknown, patch: unknown): SortSpec {
  const root: SortSpec = {};
  const stack: { cur: Record<string, unknown>; patch: Record<string, unknown>; spec: SortSpec }[] = [];
  if (isObject(doc) && isObject(patch)) stack.push({ cur: doc, patch, spec: root });
  while (stack.length > 0) {
    const { cur, patch: p, spec } = stack.pop()!;
    for (const [k, v] of Object.entries(p)) {
      if (v === null) continue;
      const c = Object.hasOwn(cur, k) ? cur[k] : undefined;
      // A value where there was none (or no object) is pruned of its nulls: parsed throughout.
      if (c === undefined || c === null || !isObject(c)) child(spec, k).all = true;
      else if (isObject(v)) stack.push({ cur: c, patch: v, spec: child(spec, k) });
      // A scalar or list over an object is kept as the patch wrote it.
    }
  }
  return root;
}

/** What evanphx's Patch.Apply parses: every container on the way to an operation's path or from. */
export function jsonPatchSortSpec(ops: unknown): SortSpec {
  const root: SortSpec = {};
  if (!Array.isArray(ops)) return root;
  for (const op of ops) {
    if (!isObject(op)) continue;
    for (const pointer of [op.path, op.from]) {
      if (typeof pointer !== "string" || !pointer.startsWith("/")) continue;
      const tokens = pointer
        .slice(1)
        .split("/")
        .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
      let spec = root;
      for (const t of tokens.slice(0, -1)) spec = child(spec, t);
    }
  }
  return root;
}

const HTML = /[<>&\u2028\u2029]/g;
const HTML_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/**
 * `value` as Go's encoder would write it with `spec`'s objects (and the top level) sorted and
 * the others in their stored order. Iterative: the value may nest as deep as bodies may.
 */
export function patchedText(value: Obj | unknown[] | unknown, spec: SortSpec): string {
  const out: string[] = [];
  type Frame = {
    keys: string[];
    values: unknown[];
    specs: (SortSpec | undefined)[];
    i: number;
    array: boolean;
  };
  const stack: Frame[] = [];
  const open = (v: unknown, s: SortSpec | undefined, sorted: boolean) => {
    if (Array.isArray(v)) {
      out.push("[");
      stack.push({
        keys: [],
        values: v,
        specs: v.map((_, i) => (s?.all ? s : s?.children?.get(String(i)))),
        i: 0,
        array: true,
      });
    } else if (isObject(v)) {
      const keys = Object.keys(v);
      if (sorted || s?.all) keys.sort();
      out.push("{");
      stack.push({
        keys,
        values: keys.map((k) => v[k]),
        specs: keys.map((k) => (s?.all ? s : s?.children?.get(k))),
        i: 0,
        array: false,
      });
    } else out.push(JSON.stringify(v) ?? "null");
  };
  open(value, spec, true);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.i >= top.values.length) {
      out.push(top.array ? "]" : "}");
      stack.pop();
      continue;
    }
    const i = top.i++;
    if (i > 0) out.push(",");
    if (!top.array) out.push(`${JSON.stringify(top.keys[i])}:`);
    const s = top.specs[i];
    open(top.values[i], s, s !== undefined);
  }
  return out.join("").replace(HTML, (c) => HTML_ESCAPES[c]);
}
