/** @module controller-runtime/crd */
// crd: one definition of a custom resource. `defineCRD` takes TypeBox schemas written in
// Kubernetes' vocabulary (`k`) and gives both the typed Kind and the CustomResourceDefinition.
// TypeBox's `Type` and `Static` are re-exported so that one import is enough.
export { default as Type, type Static, type TSchema } from "typebox";
export type {
  CRDDefinition,
  CustomObject,
  DefinedCRD,
  PrinterColumn,
  VersionDefinition,
} from "./define-crd.js";
export { defineCRD } from "./define-crd.js";
export { CRDDefinitionError, toStructural } from "./structural.js";
export type { ValidationRule } from "./vocabulary.js";
export {
  anyJSON,
  atomicList,
  conditions,
  embeddedResource,
  intOrString,
  k,
  listMap,
  listSet,
  map,
  nullable,
  preserveUnknownFields,
  quantity,
  stringEnum,
  withRules,
} from "./vocabulary.js";
