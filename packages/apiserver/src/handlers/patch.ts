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
import { ApiError, badRequest, cause, invalid, notFound, unsupportedMediaType } from "../status.js";
import { objectKey, type Obj } from "../storage/index.js";
import { refOf, type ResourceRequest } from "./context.js";
import { handleApply } from "./apply.js";
import { formOf, sendInForm } from "./negotiation.js";
import { updateWithAdmission } from "../admission/index.js";
import { inRequestVersion } from "../conversion/index.js";
import { DepthExceededError, parseJsonBounded } from "../nesting.js";
import { goTypeError } from "../schema/index.js";
import { goPrint, patchInvalid } from "./patch-decoding.js";
import { checkFields, checkTypeMeta, warningHeaders } from "./write.js";

const JSON_PATCH = "application/json-patch+json";
const MERGE_PATCH = "application/merge-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";

function parsePatch(text: string, ct: string): unknown {
  try {
    return parseJsonBounded(text);
  } catch (e) {
    // kube decodes a strategic patch's depth error without its "error decoding patch" prefix.
    if (e instanceof DepthExceededError && ct === STRATEGIC) throw badRequest(e.message);
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
}

export async function handlePatch(r: ResourceRequest): Promise<void> {
  const form = formOf(r, "write");
  const ct = mediaType(r.req.headers["content-type"]);
  const accepted = r.def.crdName
    ? [JSON_PATCH, MERGE_PATCH, APPLY]
    : [JSON_PATCH, MERGE_PATCH, APPLY, STRATEGIC];
  if (!accepted.includes(ct)) throw unsupportedMediaType(accepted);
  if (ct === APPLY) return handleApply(r, form);
  if (r.query.has("force")) {
    throw new ApiError(
      422,
      "Invalid",
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
      {
        group: "meta.k8s.io",
        kind: "PatchOptions",
        causes: [cause.forbidden("force", "may not be specified for non-apply patch")],
      },
    );
  }
  const body = await readBody(r.req, r.server.limits.maxBodyBytes);
  const patch = parsePatch(body.toString("utf8"), ct);
  const ref = refOf(r.def);
  const found = r.server.storage.get(storeNameOf(r.def), objectKey(r.namespace, r.name));
  if (!found) throw notFound(ref, r.name);
  const current = await inRequestVersion(r, found);

  let patched: unknown;
  try {
    const base = JSON.parse(current.json) as Obj;
    if (ct === JSON_PATCH) patched = applyJSONPatch(base, patch);
    else if (ct === STRATEGIC) {
      const meta = r.def.patchMeta ?? builtinPatchMeta(r.def.group, r.def.version, r.def.kind);
      patched = applyStrategicMergePatch(base, patch, meta);
    } else patched = applyMergePatch(base, patch);
  } catch (e) {
    if (e instanceof PatchError) {
      throw new ApiError(e.code, e.reason === "InternalError" ? "" : e.reason, e.statusMessage);
    }
    throw e;
  }
  if (patched === null || typeof patched !== "object" || Array.isArray(patched)) {
    throw invalid(ref, r.name, [cause.invalid("", patched, "the patched object must be an object")]);
  }
  const obj = patched as Obj;
  // The patched object decodes into the kind's Go type, or the patch is invalid.
  const shown = () => (ct === STRATEGIC ? goPrint(patch) : JSON.stringify(obj));
  if (r.def.schema && !r.def.crdName && ct !== STRATEGIC) {
    const typeError = goTypeError(r.def, obj);
    if (typeError) throw patchInvalid(shown(), typeError);
  }
  checkTypeMeta(r, obj);
  const meta = obj.metadata as Obj;
  if (meta.name !== r.name) {
    throw badRequest(
      `the name of the object (${String(meta.name)}) does not match the name on the URL (${r.name})`,
    );
  }
  if (r.def.namespaced && meta.namespace !== r.namespace) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  if (meta.resourceVersion === undefined || meta.resourceVersion === null)
    meta.resourceVersion = String(current.rv);
  let warnings: string[];
  try {
    warnings = checkFields(r, obj, undefined);
  } catch (e) {
    const strict = e instanceof ApiError ? /strict decoding error: .*$/.exec(e.message) : null;
    if (strict) throw patchInvalid(shown(), strict[0]);
    throw e;
  }
  const result = await updateWithAdmission(r, current, obj, warnings);
  sendInForm(r, 200, result.json, form, warningHeaders(warnings));
}
