/** @module controller-runtime/predicate */
// predicate: filters between a source and its handler: `funcs`, the update filters
// (`generationChanged`, `resourceVersionChanged`, `labelChanged`, `annotationChanged`),
// `labelSelector`, and the combinators `and`, `or`, `not`.
export type { Predicate, PredicateFuncs } from "./predicate.js";
export { and, funcs, newPredicateFuncs, not, or } from "./predicate.js";
export {
  annotationChanged,
  generationChanged,
  labelChanged,
  labelSelector,
  resourceVersionChanged,
} from "./changed.js";
