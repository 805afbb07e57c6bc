// metadata.managedFields for Update operations: each manager owns the fields it set or changed;
// a change by one manager takes the field from the others. A simplified FieldsV1: maps nest,
// lists are atomic leaves except `metadata.finalizers` (a set). Server-side apply is its own
// issue and will grow from here.
import type { ManagedFieldsEntry } from "kubernetes-types/meta/v1.js";
import type { Obj } from "../storage/index.js";

const SEP = "\u0000";
const ownedMetadata = ["labels", "annotations", "finalizers", "ownerReferences"];

export interface ManagedFieldsUpdate {
  manager: string;
  apiVersion: string;
  /** `status` for writes through /status; the main resource otherwise. */
  subresource: string;
  /** RFC 3339, seconds. */
  time: string;
  /** Whether the object has a status subresource (then `status` belongs to /status writes). */
  statusSubresource: boolean;
}

/** Leaf and map-node paths of the fields a write to `subresource` can touch, with leaf values. */
function collect(obj: Readonly<Obj> | undefined, u: ManagedFieldsUpdate): Map<string, string> {
  const out = new Map<string, string>();
  if (!obj) return out;
  for (const [k, v] of Object.entries(obj)) {
    if (k === "apiVersion" || k === "kind") continue;
    if (u.statusSubresource && (k === "status") !== (u.subresource === "status")) continue;
    if (k === "metadata") {
      const meta = (v ?? {}) as Obj;
      for (const m of ownedMetadata) {
        if (meta[m] === undefined) continue;
        if (m === "finalizers" && Array.isArray(meta[m])) {
          const base = `f:metadata${SEP}f:finalizers`;
          out.set(`${base}${SEP}.`, "");
          for (const f of meta[m] as unknown[]) out.set(`${base}${SEP}v:${JSON.stringify(f)}`, "");
        } else walk(meta[m], `f:metadata${SEP}f:${m}`, out);
      }
      continue;
    }
    walk(v, `f:${k}`, out);
  }
  return out;
}

function walk(v: unknown, path: string, out: Map<string, string>): void {
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    out.set(`${path}${SEP}.`, "");
    for (const [k, child] of Object.entries(v)) walk(child, `${path}${SEP}f:${k}`, out);
    return;
  }
  out.set(path, JSON.stringify(v) ?? "null");
}

function toTree(paths: Iterable<string>): Obj {
  const root: Obj = {};
  for (const p of paths) {
    let node = root;
    for (const seg of p.split(SEP)) {
      node[seg] ??= {};
      node = node[seg] as Obj;
    }
  }
  return root;
}

function fromTree(tree: unknown, prefix: string, out: Set<string>): void {
  if (tree === null || typeof tree !== "object") return;
  const entries = Object.entries(tree as Obj);
  if (entries.length === 0 && prefix) out.add(prefix);
  for (const [k, child] of entries) fromTree(child, prefix ? `${prefix}${SEP}${k}` : k, out);
}

/**
 * The managedFields after an Update by `u.manager` turned `oldObj` into `newObj`
 * (oldObj undefined on create).
 */
export function updateManagedFields(
  oldObj: Readonly<Obj> | undefined,
  newObj: Readonly<Obj>,
  u: ManagedFieldsUpdate,
): ManagedFieldsEntry[] {
  const before = collect(oldObj, u);
  const after = collect(newObj, u);
  const changed = new Set<string>();
  for (const [p, v] of after) if (before.get(p) !== v) changed.add(p);
  const previous = ((oldObj?.metadata as Obj | undefined)?.managedFields ?? []) as ManagedFieldsEntry[];
  const sub = u.subresource === "status" ? "status" : "";
  const entries: ManagedFieldsEntry[] = [];
  let mine: ManagedFieldsEntry | undefined;
  for (const e of previous) {
    const isMine =
      e.manager === u.manager &&
      e.operation === "Update" &&
      (e.subresource ?? "") === sub &&
      e.apiVersion === u.apiVersion;
    const owned = new Set<string>();
    fromTree(e.fieldsV1, "", owned);
    const touchesThisWrite = (p: string) =>
      u.statusSubresource ? p.startsWith("f:status") === (sub === "status") : true;
    const kept = [...owned].filter(
      (p) => !touchesThisWrite(p) || (after.has(p) && (isMine || !changed.has(p))),
    );
    if (isMine) {
      for (const p of changed) if (!kept.includes(p)) kept.push(p);
      mine = { ...e, fieldsV1: toTree(kept), time: changed.size > 0 ? u.time : e.time };
      if (kept.length > 0) entries.push(mine);
      continue;
    }
    if (kept.length > 0) entries.push({ ...e, fieldsV1: toTree(kept) });
  }
  if (!mine && changed.size > 0) {
    const entry: ManagedFieldsEntry = {
      manager: u.manager,
      operation: "Update",
      apiVersion: u.apiVersion,
      time: u.time,
      fieldsType: "FieldsV1",
      fieldsV1: toTree(changed),
    };
    if (sub) entry.subresource = sub;
    entries.push(entry);
  }
  return entries;
}

/** The manager of a write: `?fieldManager=`, else the User-Agent's first word, as kube does. */
export function managerName(fieldManager: string | null, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const ua = (userAgent ?? "").split("/")[0].trim();
  return ua.slice(0, 128) || "unknown";
}
