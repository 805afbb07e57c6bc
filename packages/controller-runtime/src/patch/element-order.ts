// The element order of merged lists, as apimachinery's normalizeElementOrder decides it.
import type { JSONValue } from "./json.js";

/**
 * apimachinery's normalizeElementOrder: patch items in `patchOrder`, server-only items in
 * `serverOrder`, then interleaved so that a server-only item goes before a patch item only when
 * both were in the live list in that order. New items therefore come first, as in kube.
 */
export function normalizeOrder(
  patchItems: JSONValue[],
  serverOnly: JSONValue[],
  patchOrder: JSONValue[],
  serverOrder: JSONValue[],
  keyOf: (v: JSONValue) => JSONValue | undefined,
): JSONValue[] {
  const patchPos = positions(patchOrder, keyOf);
  const serverPos = positions(serverOrder, keyOf);
  const left = sortBy(serverOnly, serverPos, keyOf);
  const right = sortBy(patchItems, patchPos, keyOf);
  const out: JSONValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++]);
    else if (i >= left.length) out.push(right[j++]);
    else {
      const li = serverPos.get(keyOf(left[i]));
      const ri = serverPos.get(keyOf(right[j]));
      if (li !== undefined && ri !== undefined && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function positions(list: JSONValue[], keyOf: (v: JSONValue) => JSONValue | undefined): Map<unknown, number> {
  const m = new Map<unknown, number>();
  list.forEach((v, i) => {
    const k = keyOf(v);
    if (!m.has(k)) m.set(k, i);
  });
  return m;
}

// A stable sort by position; items without one keep their relative order at the end.
function sortBy(
  list: JSONValue[],
  pos: Map<unknown, number>,
  keyOf: (v: JSONValue) => JSONValue | undefined,
): JSONValue[] {
  const at = (v: JSONValue) => pos.get(keyOf(v)) ?? Number.MAX_SAFE_INTEGER;
  return list
    .map((v, i) => [v, at(v), i] as const)
    .sort((a, b) => a[1] - b[1] || a[2] - b[2])
    .map((x) => x[0]);
}
