// apply: server-side apply and field ownership (metadata.managedFields) for the embedded API
// server, after sigs.k8s.io/structured-merge-diff and kube-apiserver's fieldmanager: field sets
// and their FieldsV1 form, schema-driven merge types, merging and conflicts. The merge library
// only: the apply PATCH handler is handlers/apply.ts, beside the other handlers.
export type { FieldsV1 } from "./fields-v1.js";
export { FieldsV1Error, fromFieldsV1, toFieldsV1 } from "./fields-v1.js";
export { FieldSet } from "./field-set.js";
export type { Json, Path, PathElement } from "./path-element.js";
export { elementKey, FieldPathError, parseElementKey, pathText } from "./path-element.js";
export { ApplyConflictError, printManager } from "./conflict.js";
export { ApplyTypeError } from "./list-items.js";
export type { AppliedObject, WriteContext } from "./field-manager.js";
export { applyToObject, updatedManagedFields } from "./field-manager.js";
export type { MapType, TypeNode } from "./type-model.js";
export { TypeModels } from "./type-model.js";
export { toFieldSet } from "./to-field-set.js";
export { typedConfigurationErrors } from "./typed-check.js";
