// registry: the resources the server serves, built-in and from CustomResourceDefinitions.
export { builtinResources, fieldAt } from "./builtins.js";
export type { ServedGroup } from "./registry.js";
export { compareKubeVersions, Registry, storeNameOf } from "./registry.js";
export type { FieldLabels, PrinterColumn, ResourceDefinition } from "./resource.js";
