/** @module controller-runtime/api */
// api: the object model shared by every other folder.
export type { GroupVersion, GroupVersionKind, GroupVersionResource } from "./gvk.js";
export { apiVersionOf, gvkString, parseAPIVersion } from "./gvk.js";
export type { Kind, KindOptions, ObjectFields, ObjectOf } from "./kind.js";
export { defineKind, newObject, pluralize } from "./kind.js";
export * as kinds from "./kinds.js";
export type { DeepMutable, DeepReadonly } from "./deep-readonly.js";
export type { KubeList, KubeObject, ListMeta, ObjectKey, ObjectMeta, Unstructured } from "./object.js";
export { keyOf, objectKeyString, parseObjectKey } from "./object.js";
export type { LabelOperator, Requirement } from "./label-requirement.js";
export {
  SelectorParseError,
  labelValueErrors,
  newRequirement,
  qualifiedNameErrors,
} from "./label-requirement.js";
export type { LabelSelector } from "./labels.js";
export {
  everythingLabelSelector,
  labelSelectorFromObject,
  labelSelectorFromRequirements,
  labelSelectorFromSet,
  parseLabelSelector,
} from "./labels.js";
export type { FieldOperator, FieldRequirement, FieldSelector } from "./fields.js";
export {
  FieldSelectorParseError,
  escapeFieldValue,
  fieldSelectorFromRequirements,
  fieldSelectorFromSet,
  parseFieldSelector,
  unescapeFieldValue,
} from "./fields.js";
export { parseGoDuration } from "./duration.js";
export type { Quantity, QuantityFormat, QuantityValue } from "./quantity.js";
export {
  addQuantities,
  canonicalQuantityText,
  compareQuantities,
  formatQuantity,
  parseQuantity,
  QUANTITY_FORMAT_WRONG,
  QUANTITY_NUMERIC_WRONG,
  QUANTITY_SUFFIX_WRONG,
  readQuantity,
  subtractQuantities,
} from "./quantity.js";
export * as quota from "./quota.js";
export * as namespaceDeletion from "./namespace-deletion.js";
export type { Condition, NewCondition } from "./conditions.js";
export {
  conditionSchema,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  metav1Time,
  removeStatusCondition,
  setStatusCondition,
} from "./conditions.js";
export { deepCopy } from "./deep-copy.js";
// Deprecated names, kept for one release.
export { parseApiVersion } from "./deprecated.js";
