/** @module controller-runtime/mapper */
// mapper: the RESTMapper. Kind ⇄ resource and scope, read lazily from discovery per group,
// cached, and read again once on a miss so that kinds installed after start are found.
export type { DiscoveryClient, GroupVersions } from "./discovery.js";
export { fetchGroupVersions, fetchResources } from "./discovery.js";
export { isNoMatchError, NoKindMatchError, NoResourceMatchError } from "./errors.js";
export type {
  GroupKind,
  MapperCallOptions,
  PartialResource,
  RESTMapper,
  RESTMapping,
  RESTMapperOptions,
} from "./rest-mapper.js";
export { newRESTMapper } from "./rest-mapper.js";
// Deprecated names, kept for one release.
export type { RestMapperOptions } from "./deprecated.js";
export { createRestMapper } from "./deprecated.js";
