// Built-in kinds kube serves in more than one group or version from one storage: an Event written
// through events.k8s.io/v1 is read through core/v1 and the other way round; a
// HorizontalPodAutoscaler through autoscaling/v1 and v2. Objects are kept in
// the form they were written in (as custom resources are); a read through the other form converts
// them as kube's conversion functions do (pkg/apis/events/v1/conversion.go), then writes them as
// the target's Go struct would (field order, zero values).
import { apiVersionOfDef, normalizeOrder } from "../object/meta.js";
import type { ResourceDefinition } from "../registry/index.js";
import type { Obj, StoredObject } from "../storage/index.js";
import { hpaFromV1, hpaToV1 } from "./hpa.js";
import { cloneJson } from "../object/deep-json.js";
import { stringifyJson } from "../object/deep-json.js";

/** Two forms of one kind in one storage, and how each becomes the other. */
interface FormPair {
  kind: string;
  a: string;
  b: string;
  toB(obj: Readonly<Obj>): Obj;
  toA(obj: Readonly<Obj>): Obj;
}

/** Top-level fields renamed, from the first form's names to the second's. */
function renaming(
  renames: Readonly<Record<string, string>>,
  apiVersion: string,
): (obj: Readonly<Obj>) => Obj {
  return (obj) => {
    const out: Obj = {};
    // An empty string is Go's zero value: the target writes it only where its field has no omitempty.
    for (const [k, v] of Object.entries(obj)) if (v !== "") out[renames[k] ?? k] = v;
    out.apiVersion = apiVersion;
    return out;
  };
}

const EVENT_RENAMES = {
  involvedObject: "regarding",
  message: "note",
  source: "deprecatedSource",
  firstTimestamp: "deprecatedFirstTimestamp",
  lastTimestamp: "deprecatedLastTimestamp",
  count: "deprecatedCount",
  reportingComponent: "reportingController",
};
const reversed = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [v, k]));

const PAIRS: readonly FormPair[] = [
  {
    kind: "Event",
    a: "v1",
    b: "events.k8s.io/v1",
    toB: renaming(EVENT_RENAMES, "events.k8s.io/v1"),
    toA: renaming(reversed(EVENT_RENAMES), "v1"),
  },
  { kind: "HorizontalPodAutoscaler", a: "autoscaling/v1", b: "autoscaling/v2", toB: hpaFromV1, toA: hpaToV1 },
];

function converterFor(kind: string, from: string, to: string): ((obj: Readonly<Obj>) => Obj) | undefined {
  for (const p of PAIRS) {
    if (p.kind !== kind) continue;
    if (p.a === from && p.b === to) return p.toB;
    if (p.b === from && p.a === to) return p.toA;
  }
  return undefined;
}

/** An Event of either form under core/v1's field names (unordered; for validation). */
export function asCoreEvent(obj: Readonly<Obj>): Obj {
  return obj.apiVersion === "events.k8s.io/v1" ? renaming(reversed(EVENT_RENAMES), "v1")(obj) : (obj as Obj);
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
  const convert = converterFor(def.kind, String(obj.apiVersion), to);
  if (!convert) return undefined;
  return normalizeOrder(def, cloneJson(convert(obj)));
}

/** The stored object as `def`'s form serves it (the same object when no conversion applies). */
export function builtinView(def: ResourceDefinition, stored: StoredObject): StoredObject {
  const converted = convertBuiltin(def, stored.obj);
  if (!converted) return stored;
  return { ...stored, obj: converted, json: stringifyJson(converted) };
}
