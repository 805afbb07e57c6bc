// metadata.managedFields as kube's fieldmanager holds it: one field set per manager identity.
// An identity is the entry without its time and fields, and without the apiVersion for
// appliers (so an applier keeps its entry across versions), written as kube's identifier JSON.
import type { ManagedFieldsEntry } from "kubernetes-types/meta/v1.js";
import type { FieldSet } from "./field-set.js";
import { fromFieldsV1, toFieldsV1 } from "./fields-v1.js";

export interface ManagerSet {
  readonly manager: string;
  /** `Apply` or `Update` (anything else read from a client is kept as is). */
  readonly operation: string;
  readonly apiVersion: string;
  /** "" for the main resource. */
  readonly subresource: string;
  /** RFC 3339; undefined when kube would leave it out (an apply that changed nothing). */
  readonly time: string | undefined;
  readonly set: FieldSet;
}

/** Manager sets by identity. */
export type Managers = Map<string, ManagerSet>;

/** kube's BuildManagerIdentifier: the entry's JSON without time and fields (and apiVersion for Apply). */
export function managerIdentity(m: {
  manager: string;
  operation: string;
  apiVersion: string;
  subresource: string;
}): string {
  const id: Record<string, string> = {};
  if (m.manager) id.manager = m.manager;
  if (m.operation) id.operation = m.operation;
  if (m.operation !== "Apply" && m.apiVersion) id.apiVersion = m.apiVersion;
  if (m.subresource) id.subresource = m.subresource;
  return JSON.stringify(id);
}

/** Reads managedFields; throws FieldsV1Error on a fieldsV1 kube could not decode. */
export function decodeManagedFields(entries: unknown): Managers {
  const out: Managers = new Map();
  if (!Array.isArray(entries)) return out;
  for (const raw of entries) {
    const e = (raw ?? {}) as ManagedFieldsEntry;
    const m: ManagerSet = {
      manager: e.manager ?? "",
      operation: e.operation ?? "",
      apiVersion: e.apiVersion ?? "",
      subresource: e.subresource ?? "",
      time: e.time,
      set: fromFieldsV1(e.fieldsV1),
    };
    out.set(managerIdentity(m), m);
  }
  return out;
}

function seconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Writes managedFields in kube's order: by operation, time, manager, apiVersion, subresource. */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] {
  const list = [...managers.values()].filter((m) => !m.set.isEmpty());
  list.sort(
    (p, q) =>
      compareText(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      compareText(p.manager, q.manager) ||
      compareText(p.apiVersion, q.apiVersion) ||
      compareText(p.subresource, q.subresource),
  );
  return list.map((m) => {
    // Go's field order: manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource.
    const e: ManagedFieldsEntry = {};
    if (m.manager) e.manager = m.manager;
    if (m.operation) e.operation = m.operation;
    if (m.apiVersion) e.apiVersion = m.apiVersion;
    if (m.time) e.time = m.time;
    e.fieldsType = "FieldsV1";
    e.fieldsV1 = toFieldsV1(m.set);
    if (m.subresource) e.subresource = m.subresource;
    return e;
  });
}

/** How many Update entries kube keeps before folding the oldest into `ancient-changes`. */
export const MAX_UPDATE_MANAGERS = 10;

/**
 * kube's capManagersManager: past MAX_UPDATE_MANAGERS Update entries, the oldest are merged
 * into one `ancient-changes` entry per apiVersion, so managedFields cannot grow without bound.
 */
export function capUpdateManagers(managers: Managers, max = MAX_UPDATE_MANAGERS): Managers {
  const updaters = [...managers].filter(([, m]) => m.operation !== "Apply");
  if (updaters.length <= max) return managers;
  updaters.sort(([ia, a], [ib, b]) => seconds(a.time) - seconds(b.time) || compareText(ia, ib));
  const out: Managers = new Map(managers);
  let count = updaters.length;
  for (const [id, m] of updaters) {
    if (count <= max) break;
    const bucket = {
      manager: "ancient-changes",
      operation: "Update",
      apiVersion: m.apiVersion,
      subresource: "",
    };
    const bucketId = managerIdentity(bucket);
    if (bucketId === id) continue;
    const previous = out.get(bucketId);
    if (!previous) count++;
    const time = previous && seconds(previous.time) >= seconds(m.time) ? previous.time : m.time;
    out.set(bucketId, { ...bucket, time, set: previous ? m.set.union(previous.set) : m.set });
    out.delete(id);
    count--;
  }
  return out;
}
