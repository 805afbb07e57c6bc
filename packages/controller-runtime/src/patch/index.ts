/** @module controller-runtime/patch */
// patch: JSON patch, JSON merge patch and strategic merge patch: applying them (the API server)
// and computing them from two objects (the client's mergeFrom / strategicMergeFrom).
export type { PatchMeta } from "./patch-meta.js";
export type { PatchErrorReason } from "./errors.js";
export { PatchError } from "./errors.js";
export type { JSONObject, JSONValue } from "./json.js";
export { cloneJSON, jsonEqual } from "./json.js";
export type { JSONPatchOperation } from "./json-patch.js";
export { applyJSONPatch, escapePointerToken, parsePointer } from "./json-patch.js";
export { applyMergePatch, createMergePatch } from "./merge-patch.js";
export { applyStrategicMergePatch } from "./strategic-merge-patch.js";
export { builtinPatchMeta } from "./builtin-meta.js";
export { createJSONPatch } from "./json-patch-diff.js";
export { createStrategicMergePatch } from "./strategic-merge-diff.js";
// Deprecated names, kept for one release.
export type { JsonObject, JsonPatchOperation, JsonValue } from "./deprecated.js";
export { applyJsonPatch, cloneJson, createJsonPatch } from "./deprecated.js";
