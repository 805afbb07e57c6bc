// Built-in kinds kube serves in more than one group or version from one storage: an Event written
// through events.k8s.io/v1 is read through core/v1 and the other way round. Objects are kept in
// the form they were written in (as custom resources are); a read through the other form converts
// them as kube's conversion functions do (pkg/apis/events/v1/conversion.go), then writes them as
// the target's Go struct would (field order, zero values).
import { apiVersionOfDef, normalizeOrder } from "../object/meta.js";
import type { ResourceDefinition } from "../registry/index.js";
import type { Obj, StoredObject } from "../storage/index.js";

/** Top-level fields renamed between two forms, from the first form's names to the second's. */
interface FormPair {
  kind: string;
  a: string;
  b: string;
  renames: Readonly<Record<string, string>>;
}

const PAIRS: readonly FormPair[] = [
  {
    kind: "Event",
    a: "v1",
    b: "events.k8s.io/v1",
    renames: {
      involvedObject: "regarding",
      message: "note",
      source: "deprecatedSource",
      firstTimestamp: "deprecatedFirstTimestamp",
      lastTimestamp: "deprecatedLastTimestamp",
      count: "deprecatedCount",
      reportingComponent: "reportingController",
    },
  },
];

function pairFor(kind: string, from: string, to: string): Record<string, string> | undefined {
  for (const p of PAIRS) {
    if (p.kind !== kind) continue;
    if (p.a === from && p.b === to) return { ...p.renames };
    if (p.b === from && p.a === to)
      return Object.fromEntries(Object.entries(p.renames).map(([k, v]) => [v, k]));
  }
  return undefined;
}

/** An Event of either form under core/v1's field names (unordered; for validation). */
export function asCoreEvent(obj: Readonly<Obj>): Obj {
  const renames = pairFor("Event", String(obj.apiVersion), "v1");
  if (!renames) return obj as Obj;
  const out: Obj = {};
  for (const [k, v] of Object.entries(obj)) out[renames[k] ?? k] = v;
  return out;
}

/** Whether objects of `def`'s storage may be in another built-in form than `def`'s. */
export function hasBuiltinForms(def: ResourceDefinition): boolean {
  if (def.crdName) return false;
  const mine = apiVersionOfDef(def);
  return PAIRS.some((p) => p.kind === def.kind && (p.a === mine || p.b === mine));
}

/** `obj` (of another form of the same storage) as `def`'s form; undefined when it is already. */
export function convertBuiltin(def: ResourceDefinition, obj: Readonly<Obj>): Obj | undefined {
  const to = apiVersionOfDef(def);
  if (obj.apiVersion === to) return undefined;
  const renames = pairFor(def.kind, String(obj.apiVersion), to);
  if (!renames) return undefined;
  const out: Obj = {};
  // An empty string is Go's zero value: the target writes it only where its field has no omitempty.
  for (const [k, v] of Object.entries(obj)) if (v !== "") out[renames[k] ?? k] = v;
  out.apiVersion = to;
  return normalizeOrder(def, structuredClone(out));
}

/** The stored object as `def`'s form serves it (the same object when no conversion applies). */
export function builtinView(def: ResourceDefinition, stored: StoredObject): StoredObject {
  const converted = convertBuiltin(def, stored.obj);
  if (!converted) return stored;
  return { ...stored, obj: converted, json: JSON.stringify(converted) };
}
