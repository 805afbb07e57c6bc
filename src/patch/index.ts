// patch: JSON patch, JSON merge patch and strategic merge patch: applying them (the API server)
// and computing them from two objects (the client's mergeFrom / strategicMergeFrom).
export type { PatchMeta } from "./patch-meta.js";
export type { PatchErrorReason } from "./errors.js";
export { PatchError } from "./errors.js";
export type { JsonObject, JsonValue } from "./json.js";
export { cloneJson, jsonEqual } from "./json.js";
export type { JsonPatchOperation } from "./json-patch.js";
export { applyJsonPatch, escapePointerToken, parsePointer } from "./json-patch.js";
export { applyMergePatch, createMergePatch } from "./merge-patch.js";
export { applyStrategicMergePatch } from "./strategic-merge-patch.js";
export { builtinPatchMeta } from "./builtin-meta.js";
export { createJsonPatch } from "./json-patch-diff.js";
export { createStrategicMergePatch } from "./strategic-merge-diff.js";
