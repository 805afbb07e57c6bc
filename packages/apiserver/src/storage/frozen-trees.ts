// Stored objects are deep-frozen trees. Parts that many objects hold alike are stored once: the field sets of
// managedFields (every object a manager wrote the same way has the same fieldsV1 tree, a dozen
// small objects; written in the same second, the same managedFields) and label maps (the replicas of a workload share theirs). Stored objects are
// deep-frozen and read-only, so sharing an equal frozen subtree changes nothing a reader sees;
// it cut the server's heap per stored ConfigMap by about a sixth (bench/apiserver-memory.ts).
import { stringifyJson } from "../object/deep-json.js";
import type { Obj } from "./types.js";

/** Shared trees by their JSON; bounded, and emptied when full (sharing is only a saving). */
const trees = new Map<string, Obj>();
const MAX_TREES = 4096;
/** Larger trees are rarely alike; their JSON would cost more than sharing saves. */
const MAX_TREE_JSON = 2048;

/**
 * Freezes `value` and everything under it (a frozen node's subtree is frozen already).
 * Iterative: objects may nest as deep as kube accepts (10 000 levels).
 */
export function deepFreeze(value: unknown): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== "object" || Object.isFrozen(v)) continue;
    Object.freeze(v);
    // for...in rather than Object.values: no array of every member per node.
    for (const k in v) {
      const c = (v as Record<string, unknown>)[k];
      if (c !== null && typeof c === "object") stack.push(c);
    }
  }
}

/** An equal tree stored before, or `tree` itself (frozen) from now on. */
function shared(tree: Obj): Obj {
  if (Object.isFrozen(tree)) return tree;
  const json = stringifyJson(tree);
  if (json.length > MAX_TREE_JSON) return tree;
  const found = trees.get(json);
  if (found) return found;
  if (trees.size >= MAX_TREES) trees.clear();
  deepFreeze(tree);
  trees.set(json, tree);
  return tree;
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Replaces `obj`'s labels, managedFields and their field sets with equal ones stored before. */
export function shareCommonTrees(obj: Obj): void {
  const metadata = obj.metadata;
  if (!isObj(metadata) || Object.isFrozen(metadata)) return;
  if (isObj(metadata.labels)) metadata.labels = shared(metadata.labels);
  const managed = metadata.managedFields;
  if (!Array.isArray(managed) || Object.isFrozen(managed)) return;
  for (const entry of managed) {
    if (isObj(entry) && !Object.isFrozen(entry) && isObj(entry.fieldsV1))
      entry.fieldsV1 = shared(entry.fieldsV1);
  }
  // Objects written alike in the same second have equal managedFields, times included.
  metadata.managedFields = shared(managed as unknown as Obj);
}
