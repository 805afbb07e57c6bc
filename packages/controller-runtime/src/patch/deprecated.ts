// Names replaced by the naming rules in the README's "Project layout" (acronyms in one case,
// `new*` factories), kept for one release so code written against them still compiles. Each is the new one.
import { type JSONObject, type JSONValue, cloneJSON } from "./json.js";
import { type JSONPatchOperation, applyJSONPatch } from "./json-patch.js";
import { createJSONPatch } from "./json-patch-diff.js";

/** @deprecated Use {@link JSONObject}; removed in the next release. */
export type JsonObject = JSONObject;
/** @deprecated Use {@link JSONValue}; removed in the next release. */
export type JsonValue = JSONValue;
/** @deprecated Use {@link JSONPatchOperation}; removed in the next release. */
export type JsonPatchOperation = JSONPatchOperation;
/** @deprecated Use {@link applyJSONPatch}; removed in the next release. */
export const applyJsonPatch = applyJSONPatch;
/** @deprecated Use {@link createJSONPatch}; removed in the next release. */
export const createJsonPatch = createJSONPatch;
/** @deprecated Use {@link cloneJSON}; removed in the next release. */
export const cloneJson = cloneJSON;
