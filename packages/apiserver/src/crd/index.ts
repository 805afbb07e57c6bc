// crd: CustomResourceDefinitions in the embedded API server: validating them, the resources
// they serve, and the status conditions kube sets on them.
export type { CRDStatusUpdate, NamesInUse } from "./conditions.js";
export { conditionTime, crdConditions, terminatingCondition } from "./conditions.js";
export { dns1035LabelErrors, dns1123SubdomainErrors } from "./names.js";
export { CUSTOM_RESOURCE_VERBS, resourcesFromCRD } from "./resources-from-crd.js";
export { validateCRD } from "./validate-crd.js";
