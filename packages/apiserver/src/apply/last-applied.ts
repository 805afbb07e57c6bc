// kubectl's move from client-side to server-side apply, as kube's lastAppliedManager and
// lastAppliedUpdater handle it for the `kubectl` manager: conflicts on fields whose live value
// is still the one in the last-applied-configuration annotation are not conflicts, and the
// annotation keeps following what kubectl applies.
import { compareObjects } from "./compare.js";
import type { ManagerConflict } from "./conflict.js";
import type { FieldSet } from "./field-set.js";
import { ApplyTypeError } from "./list-items.js";
import { canonicalJson, type Json } from "./path-element.js";
import { toFieldSet } from "./to-field-set.js";
import type { MapType } from "./type-model.js";
import { cloneJson } from "../object/deep-json.js";

export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** The only manager this applies to: kubectl's default for `apply --server-side`. */
export const KUBECTL_MANAGER = "kubectl";

type Obj = Record<string, Json>;

function annotations(obj: Obj): Record<string, Json> | undefined {
  const meta = obj.metadata;
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) return undefined;
  const a = meta.annotations;
  return a !== null && typeof a === "object" && !Array.isArray(a) ? a : undefined;
}

export function hasLastApplied(obj: Obj): boolean {
  const v = annotations(obj)?.[LAST_APPLIED];
  return typeof v === "string" && v !== "";
}

/** Fields the last client-side apply set and that still hold its values; undefined without one. */
function allowedConflicts(live: Obj, t: MapType): FieldSet | undefined {
  const text = annotations(live)?.[LAST_APPLIED];
  if (typeof text !== "string" || text === "") return undefined;
  try {
    const last = JSON.parse(text) as Json;
    if (last === null || typeof last !== "object" || Array.isArray(last)) return undefined;
    return toFieldSet(last, t).difference(compareObjects(last, live, t).modified);
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof ApplyTypeError) return undefined;
    throw e;
  }
}

/**
 * The conflicts that remain once those the last-applied annotation explains are set aside, or
 * undefined when there is no annotation to consult.
 */
export function conflictsBeyondLastApplied(
  live: Obj,
  conflicts: readonly ManagerConflict[],
  t: MapType,
): ManagerConflict[] | undefined {
  const allowed = allowedConflicts(live, t);
  if (!allowed) return undefined;
  return conflicts
    .map((c) => ({ ...c, paths: c.paths.filter((p) => !allowed.has(p)) }))
    .filter((c) => c.paths.length > 0);
}

/** Sets the annotation to `config` (without the annotation itself), as kubectl would have. */
export function setLastApplied(obj: Obj, config: Obj): void {
  const copy = cloneJson(config);
  const a = annotations(copy);
  if (a) {
    delete a[LAST_APPLIED];
    if (Object.keys(a).length === 0) delete (copy.metadata as Obj).annotations;
  }
  const meta = obj.metadata as Obj;
  meta.annotations = { ...(annotations(obj) ?? {}), [LAST_APPLIED]: `${canonicalJson(copy)}\n` };
}
