/** @module controller-runtime/controllerutil */
// controllerutil: helpers for reconcilers, as controller-runtime's: createOrUpdate and
// createOrPatch, owner and controller references, finalizers. Every helper returns new objects
// and leaves the ones it is given alone (objects from the cache are frozen).
export type {
  CreateOrUpdateOptions,
  CreateOrUpdateResult,
  MutateFn,
  OperationResult,
} from "./create-or-update.js";
export { createOrPatch, createOrUpdate } from "./create-or-update.js";
export {
  AlreadyOwnedError,
  InvalidOwnerError,
  MutatedKeyError,
  OwnerReferenceNotFoundError,
} from "./errors.js";
export { addFinalizer, containsFinalizer, removeFinalizer } from "./finalizers.js";
export type { ControllerReferenceOptions, OwnerReferenceOptions } from "./owner-references.js";
export {
  getControllerOf,
  hasControllerReference,
  hasOwnerReference,
  removeControllerReference,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from "./owner-references.js";
