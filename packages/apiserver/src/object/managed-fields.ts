// metadata.managedFields for the write path: who manages a write, and the entries after it.
// The field-ownership machinery (field sets, merge types, apply) lives in ../apply.
import type { ManagedFieldsEntry } from "kubernetes-types/meta/v1.js";
import { updatedManagedFields, type WriteContext } from "../apply/index.js";
import type { Obj } from "../storage/index.js";

export interface ManagedFieldsUpdate extends WriteContext {
  manager: string;
}

/**
 * The managedFields after an Update by `u.manager` turned `oldObj` into `newObj` (oldObj
 * undefined on create): the fields it changed become its own, other managers lose them.
 */
export function updateManagedFields(
  oldObj: Readonly<Obj> | undefined,
  newObj: Readonly<Obj>,
  u: ManagedFieldsUpdate,
): ManagedFieldsEntry[] {
  return updatedManagedFields(oldObj, newObj, u.manager, u);
}

/**
 * The manager of a write: `?fieldManager=`, else the User-Agent's program name (what precedes
 * the first `/`, printable characters only, at most 128 bytes), as kube's managerOrUserAgent.
 */
export function managerName(fieldManager: string | null, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  // A memo, not state: clients send one User-Agent on every request, and the scan tests a
  // Unicode regex per character.
  if (userAgent === memoAgent) return memoName;
  const name = managerFromUserAgent(userAgent);
  memoAgent = userAgent;
  memoName = name;
  return name;
}

let memoAgent: string | undefined = "";
let memoName = managerFromUserAgent("");

function managerFromUserAgent(userAgent: string | undefined): string {
  let out = "";
  for (const ch of (userAgent ?? "").split("/")[0]) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > 128) break;
    out += ch;
  }
  return out.trim() || "unknown";
}
