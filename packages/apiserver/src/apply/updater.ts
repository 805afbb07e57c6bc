// Field ownership through writes, as SMD's merge.Updater wrapped the way kube-apiserver wraps it
// (managed-fields updater, metadata stripping, reset fields): `apply` merges a configuration
// and fails on conflicts unless forced; `update` records what a create, update or patch changed.
import { deepEqual } from "../object/meta.js";
import { type Comparison, compareObjects, excludeTopLevel } from "./compare.js";
import { type ManagerConflict, ApplyConflictError } from "./conflict.js";
import { FieldSet } from "./field-set.js";
import { capUpdateManagers, type Managers, type ManagerSet, managerIdentity } from "./managers.js";
import { mergeObjects } from "./merge.js";
import type { Json, Path, PathElement } from "./path-element.js";
import { removeItems } from "./remove-items.js";
import { ensureNamedFieldsAreMembers, toFieldSet } from "./to-field-set.js";
import type { MapType } from "./type-model.js";

type Obj = Record<string, Json>;

export interface OwnershipContext {
  /** The merge type of the whole object. */
  readonly type: MapType;
  /** The endpoint's apiVersion, recorded in entries. */
  readonly apiVersion: string;
  /** "" for the main resource, `status` for /status. */
  readonly subresource: string;
  /** Top-level fields this endpoint resets (status on the main resource of kinds with /status). */
  readonly ignored: (pe: PathElement) => boolean;
  /** Fields below the top level it resets (a CSR's status.conditions through /status). */
  readonly reset?: readonly Path[];
  /** RFC 3339 time for entries that changed. */
  readonly time: string;
}

const f = (name: string): PathElement => ({ field: name });

// Fields no manager owns (kube's stripMetaManager): identity and server-set metadata.
const STRIPPED = FieldSet.of(
  [f("apiVersion")],
  [f("kind")],
  [f("metadata")],
  ...[
    "name",
    "namespace",
    "creationTimestamp",
    "selfLink",
    "uid",
    "clusterName",
    "generation",
    "managedFields",
    "resourceVersion",
  ].map((n) => [f("metadata"), f(n)]),
);

function excludeReset(c: Comparison, ctx: OwnershipContext): Comparison {
  const reset = ctx.reset ?? [];
  if (reset.length === 0) return c;
  return {
    added: c.added.withoutSubtrees(reset),
    modified: c.modified.withoutSubtrees(reset),
    removed: c.removed.withoutSubtrees(reset),
  };
}

interface Update {
  managers: Managers;
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * SMD's Updater.update: fields `workflow` changes are taken from every other manager (an error
 * listing them unless `force`), and removed fields leave every other manager's set.
 */
function takeOwnership(
  oldObj: Obj,
  newObj: Obj,
  managers: Managers,
  workflow: string,
  force: boolean,
  ctx: OwnershipContext,
): Update {
  const cmp = excludeReset(excludeTopLevel(compareObjects(oldObj, newObj, ctx.type), ctx.ignored), ctx);
  const changed = cmp.modified.union(cmp.added);
  const conflicts: ManagerConflict[] = [];
  for (const [id, m] of managers) {
    if (id === workflow) continue;
    const taken = m.set.intersection(changed);
    if (!taken.isEmpty()) conflicts.push({ identity: id, owner: m, paths: taken.paths() });
  }
  if (!force && conflicts.length > 0) throw new ApplyConflictError(conflicts);
  const out: Managers = new Map();
  for (const [id, m] of managers) {
    let set = m.set;
    if (id !== workflow) set = set.difference(changed).difference(cmp.removed);
    if (!set.isEmpty()) out.set(id, set === m.set ? m : { ...m, set });
  }
  return { managers: out, ...cmp };
}

/**
 * The managers after an Update by `manager` turned `oldObj` into `newObj`: the fields it changed
 * join its entry (time updated), other managers lose them, removed fields leave everyone.
 */
export function recordUpdate(
  oldObj: Obj,
  newObj: Obj,
  managers: Managers,
  manager: string,
  ctx: OwnershipContext,
): Managers {
  // As kube's managedFieldsUpdater: the operation's changes are computed as their own manager,
  // so the manager's earlier entry loses what this write removed.
  const self = "\u0000current-operation";
  const u = takeOwnership(oldObj, newObj, managers, self, true, ctx);
  const mine = u.modified
    .union(u.added)
    .difference(u.removed)
    .withoutTopLevel(ctx.ignored)
    .withoutSubtrees(ctx.reset ?? [])
    .difference(STRIPPED);
  const out = u.managers;
  if (mine.isEmpty()) return out;
  const entry = { manager, operation: "Update", apiVersion: ctx.apiVersion, subresource: ctx.subresource };
  const id = managerIdentity(entry);
  const previous = out.get(id);
  out.set(id, { ...entry, time: ctx.time, set: previous ? mine.union(previous.set) : mine });
  return capUpdateManagers(out);
}

export interface ApplyResult {
  /** The merged object (equal to the live one when nothing changed). */
  object: Obj;
  /** Whether the object itself changed (the applier's entry then gets a new time). */
  changed: boolean;
  managers: Managers;
}

/** Applies `config` by `manager` to `live` (both without managedFields). */
export function applyConfiguration(
  live: Obj,
  config: Obj,
  managers: Managers,
  manager: string,
  force: boolean,
  ctx: OwnershipContext,
): ApplyResult {
  const t = ctx.type;
  const entry = { manager, operation: "Apply", apiVersion: ctx.apiVersion, subresource: ctx.subresource };
  const id = managerIdentity(entry);
  let merged = mergeObjects(live, config, t) as Obj;
  const last = managers.get(id);
  const set = toFieldSet(config, t, true)
    .withoutTopLevel(ctx.ignored)
    .withoutSubtrees(ctx.reset ?? []);
  const withNew: Managers = new Map(managers);
  const mine: ManagerSet = { ...entry, time: last?.time, set };
  withNew.set(id, mine);
  if (last && !last.set.isEmpty()) merged = prune(merged, withNew, last.set, ctx);
  const u = takeOwnership(live, merged, withNew, id, force, ctx);
  const changed = !deepEqual(live, merged);
  const stripped = set.difference(STRIPPED);
  const out = u.managers;
  if (stripped.isEmpty()) out.delete(id);
  else out.set(id, { ...mine, set: stripped, time: changed ? ctx.time : last?.time });
  return { object: changed ? merged : live, changed, managers: out };
}

/**
 * SMD's prune: removes what the applier applied last time and no longer does, unless another
 * manager (or the new configuration) owns it, and only what the applier had owned.
 */
function prune(merged: Obj, managers: Managers, lastSet: FieldSet, ctx: OwnershipContext): Obj {
  const t = ctx.type;
  const named = (s: FieldSet) => ensureNamedFieldsAreMembers(s, t);
  const last = named(lastSet);
  const firstPass = removeItems(merged, t, last);
  let owned = new FieldSet();
  for (const m of managers.values()) owned = owned.union(m.set);
  const mergedSet = named(toFieldSet(merged, t));
  const keep = named(toFieldSet(firstPass, t)).union(named(owned));
  const pruned = removeItems(merged, t, mergedSet.difference(keep));
  const prunedSet = named(toFieldSet(pruned, t));
  return removeItems(merged, t, mergedSet.difference(prunedSet).intersection(last)) as Obj;
}
