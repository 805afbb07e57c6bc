/** @module controller-runtime/finalizer */
// finalizer: a registry of named finalizers run together in one reconcile, as controller-runtime's
// pkg/finalizer. Keys are added while the object lives and removed once their cleanup succeeded.
export { FinalizeError, FinalizerAlreadyRegisteredError } from "./errors.js";
export type {
  FinalizeContext,
  FinalizeResult,
  Finalizer,
  Finalizers,
  FinalizerResult,
} from "./finalizers.js";
export { newFinalizers } from "./finalizers.js";
