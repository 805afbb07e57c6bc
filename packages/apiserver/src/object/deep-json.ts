// JSON values walked without recursion: kube-apiserver accepts objects nested 10 000 levels
// deep, V8's stack gives out near 2 000 frames of a real walk (and JSON.stringify near 4 000).
// Each helper is as fast as its recursive form on ordinary objects.

type Json = unknown;

// Equality and copying are the library's own (as iterative, and published by it).
export { cloneJSON as cloneJson, jsonEqual } from "controller-runtime/patch";

/** The deepest nesting of a JSON value (a scalar is 0, `{}` is 1). */
export function jsonDepth(v: Json): number {
  let max = 0;
  const stack: [Json, number][] = [[v, 0]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (typeof x !== "object" || x === null) continue;
    const depth = d + 1;
    if (depth > max) max = depth;
    for (const c of Array.isArray(x) ? x : Object.values(x))
      if (typeof c === "object" && c !== null) stack.push([c, depth]);
  }
  return max;
}

/** Literal text among the values jsonText's stack still has to write. */
class Text {
  constructor(readonly text: string) {}
}

/**
 * JSON.stringify of a JSON value, without its recursion: tried natively first (V8's is fast and
 * safe up to a few thousand levels), written here when that runs out of stack.
 */
export function stringifyJson(v: Json): string {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
  }
  const out: string[] = [];
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x instanceof Text) {
      out.push(x.text);
      continue;
    }
    if (typeof x !== "object" || x === null || typeof (x as { toJSON?: unknown }).toJSON === "function") {
      out.push(JSON.stringify(x) ?? "null");
      continue;
    }
    if (Array.isArray(x)) {
      out.push("[");
      stack.push(new Text("]"));
      for (let i = x.length - 1; i >= 0; i--) {
        // Like JSON.stringify: undefined and functions in lists are null.
        const e = x[i];
        stack.push(e === undefined || typeof e === "function" ? null : e);
        if (i > 0) stack.push(new Text(","));
      }
      continue;
    }
    const entries = Object.entries(x).filter(([, e]) => e !== undefined && typeof e !== "function");
    out.push("{");
    stack.push(new Text("}"));
    for (let i = entries.length - 1; i >= 0; i--) {
      stack.push(entries[i][1], new Text(`${JSON.stringify(entries[i][0])}:`));
      if (i > 0) stack.push(new Text(","));
    }
  }
  return out.join("");
}
