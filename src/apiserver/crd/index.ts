// crd: CustomResourceDefinitions in the embedded API server: validating them, the resources
// they serve, and the status conditions kube sets on them.
export { CUSTOM_RESOURCE_VERBS, resourcesFromCRD } from "./resources-from-crd.js";
