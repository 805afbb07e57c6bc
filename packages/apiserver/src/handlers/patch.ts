// PATCH: JSON patch, merge patch, strategic merge patch (built-in kinds only, as kube), and
// server-side apply (../apply).
import {
  applyJSONPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  builtinPatchMeta,
  PatchError,
} from "controller-runtime/patch";
import { mediaType, readBody } from "../http-io.js";
import { storeNameOf } from "../registry/index.js";
import { ApiError, badRequest, notFound, unsupportedMediaType } from "../status.js";
import { objectKey, type Obj } from "../storage/index.js";
import { refOf, type ResourceRequest } from "./context.js";
import { handleApply } from "./apply.js";
import { formOf, sendInForm } from "./negotiation.js";
import { updateWithAdmission } from "../admission/index.js";
import { inRequestVersion } from "../conversion/index.js";
import { parseJsonBounded } from "../nesting.js";
import { goDefinitionOf } from "../object/go-encoding.js";
import { findDuplicateFields, goTypeError } from "../schema/index.js";
import { unstructuredConversionError } from "../schema/go-conversion.js";
import { jsonPatchSortSpec, mergePatchSortSpec, patchedText } from "./patched-text.js";
import { goPrint, jsonPatchOpProblems, jsonTypeName, patchInvalid, pruneNulls } from "./patch-decoding.js";
import { checkTypeMeta, fieldValidationMode, unknownFieldProblems, warningHeaders } from "./write.js";
import { validateWriteOptions } from "./write-options.js";

const JSON_PATCH = "application/json-patch+json";
const MERGE_PATCH = "application/merge-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";

/**
 * validateAndTranscodePatch: a JSON, merge or strategic patch must be valid JSON (Go's json.Valid,
 * which also stops at 10 000 levels), or kube answers 400 "invalid JSON patch" before anything.
 */
function parsePatch(text: string): unknown {
  try {
    return parseJsonBounded(text);
  } catch {
    throw badRequest("invalid JSON patch");
  }
}

/** What kube's strict decoding of the patch itself finds (fieldValidation Warn or Strict), per patch type. */
function patchDecodingProblems(ct: string, patch: unknown, text: string): string[] {
  if (ct === JSON_PATCH) {
    const { typeError, problems } = jsonPatchOpProblems(patch, findDuplicateFields(text));
    if (typeError) throw badRequest(`error decoding patch: ${typeError}`);
    return problems.map((p) => `json patch ${p}`);
  }
  if (patch !== null && (typeof patch !== "object" || Array.isArray(patch))) {
    const why = `json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type map[string]interface {}`;
    // kube decodes a strategic patch's map without the "error decoding patch" prefix.
    throw badRequest(ct === STRATEGIC ? why : `error decoding patch: ${why}`);
  }
  return findDuplicateFields(text).map((d) => `duplicate field "${d}"`);
}

/** kube's maxJSONPatchOperations (endpoints/handlers/patch.go). */
const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * How many request bodies' worth of bytes a JSON patch's copies may add. kube sets no bound (its
 * json-patch's AccumulatedCopySizeLimit is 0), and a few dozen copies of a document into itself
 * would ask any server for terabytes; no object that large could be stored, so a patch that
 * copies more is refused as kube refuses a patch it cannot apply.
 */
const JSON_PATCH_COPY_FACTOR = 4;

export async function handlePatch(r: ResourceRequest): Promise<void> {
  const form = formOf(r, "write");
  const ct = mediaType(r.req.headers["content-type"]);
  const accepted = r.def.crdName
    ? [JSON_PATCH, MERGE_PATCH, APPLY]
    : [JSON_PATCH, MERGE_PATCH, APPLY, STRATEGIC];
  if (!accepted.includes(ct)) throw unsupportedMediaType(accepted);
  validateWriteOptions(r, "PatchOptions", ct === APPLY);
  if (ct === APPLY) return handleApply(r, form);
  const body = await readBody(r.req, r.server.limits.maxBodyBytes);
  const text = body.toString("utf8");
  const patch = parsePatch(text);
  const mode = fieldValidationMode(r);
  const patchProblems = mode === "Ignore" ? [] : patchDecodingProblems(ct, patch, text);
  if (ct === MERGE_PATCH && (patch === null || typeof patch !== "object")) {
    // evanphx's MergePatch: only a list is taken as the whole document (and then cannot decode).
    throw badRequest("Invalid JSON Patch");
  }
  const ref = refOf(r.def);
  const found = r.server.storage.get(storeNameOf(r.def), objectKey(r.namespace, r.name));
  if (!found) throw notFound(ref, r.name);
  const current = await inRequestVersion(r, found);

  if (ct === JSON_PATCH && Array.isArray(patch) && patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError(
      413,
      "RequestEntityTooLarge",
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`,
    );
  }
  let patched: unknown;
  const base = JSON.parse(current.json) as Obj;
  try {
    if (ct === JSON_PATCH)
      patched = applyJSONPatch(base, patch, {
        maxCopyBytes: JSON_PATCH_COPY_FACTOR * r.server.limits.maxBodyBytes,
      });
    else if (ct === STRATEGIC) {
      const meta = r.def.patchMeta ?? builtinPatchMeta(r.def.group, r.def.version, r.def.kind);
      patched = applyStrategicMergePatch(base, patch, meta);
    } else patched = applyMergePatch(base, patch);
  } catch (e) {
    if (e instanceof PatchError) {
      // NewGenericServerResponse's 422 carries empty details.
      const details = e.reason === "Invalid" ? {} : undefined;
      throw new ApiError(e.code, e.reason === "InternalError" ? "" : e.reason, e.statusMessage, details);
    }
    throw e;
  }
  if (patched === null || typeof patched !== "object" || Array.isArray(patched)) {
    // Not an object: what kube's decoder says of it, before it looks for the kind.
    const shownValue = ct === MERGE_PATCH ? pruneNulls(patched) : patched;
    throw patchInvalid(
      patchedText(shownValue, { all: ct === MERGE_PATCH }),
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(patched)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const obj = patched as Obj;
  // The patched object decodes into the kind's Go type, or the patch is invalid: a JSON or merge
  // patch's result through Go's JSON decoder, a strategic one's through the unstructured converter.
  const shown = () =>
    ct === STRATEGIC
      ? goPrint(patch ?? {})
      : patchedText(obj, ct === JSON_PATCH ? jsonPatchSortSpec(patch) : mergePatchSortSpec(base, patch));
  if (r.def.schema && !r.def.crdName) {
    const typeError =
      ct === STRATEGIC
        ? unstructuredConversionError(r.def, obj, goDefinitionOf(r.def.group, r.def.version, r.def.kind))
        : goTypeError(r.def, obj, () => text);
    if (typeError) throw patchInvalid(shown(), typeError);
  }
  checkTypeMeta(r, obj);
  // kube's checkName: a patched object must still name itself as the URL does; a namespace it
  // no longer states is the request's.
  obj.metadata ??= {};
  const meta = obj.metadata as Obj;
  if (typeof meta.name !== "string" || meta.name === "") {
    throw badRequest(
      `the name of the object (${r.name} based on URL) was undeterminable: name must be provided`,
    );
  }
  if (meta.name !== r.name) {
    throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${r.name})`);
  }
  if (
    r.def.namespaced &&
    meta.namespace !== undefined &&
    meta.namespace !== "" &&
    meta.namespace !== r.namespace
  ) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  if (r.def.namespaced) meta.namespace = r.namespace;
  if (meta.resourceVersion === undefined || meta.resourceVersion === null)
    meta.resourceVersion = String(current.rv);
  // Strict decoding: the patch's own problems, then the patched object's unknown fields (the
  // converter's sorted, as it sorts them).
  let warnings: string[] = [];
  if (mode !== "Ignore") {
    const unknown = unknownFieldProblems(r, obj);
    if (ct === STRATEGIC) unknown.sort();
    warnings = [...patchProblems, ...unknown];
    if (mode === "Strict" && warnings.length > 0) {
      throw patchInvalid(shown(), `strict decoding error: ${warnings.join(", ")}`);
    }
  }
  const result = await updateWithAdmission(r, current, obj, warnings);
  sendInForm(r, 200, result.json, form, warningHeaders(warnings), result.stored?.obj);
}
