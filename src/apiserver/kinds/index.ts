// kinds: per-kind behaviour of built-in resources (defaults, validation, deletion rules).
import type { ResourceDefinition } from "../registry/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { namespaceBehaviour } from "./namespace.js";

export type { KindBehaviour } from "./behaviour.js";

const none: KindBehaviour = {};

const byKind: Record<string, KindBehaviour> = {
  "/Namespace": namespaceBehaviour,
};

export function kindBehaviour(def: ResourceDefinition): KindBehaviour {
  if (def.crdName) return none;
  return byKind[`${def.group}/${def.kind}`] ?? none;
}
