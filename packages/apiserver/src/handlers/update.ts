// PUT: replace an object (or its status) with optimistic concurrency.
import { updateWithAdmission } from "../admission/index.js";
import { inRequestVersion } from "../conversion/index.js";
import { readBody } from "../http-io.js";
import { badRequest } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import { mustGet } from "./get.js";
import { formOf, sendInForm } from "./negotiation.js";
import { checkFields, checkTypeMeta, decodeObject, warningHeaders } from "./write.js";

export async function handleUpdate(r: ResourceRequest): Promise<void> {
  const form = formOf(r, "write");
  const body = await readBody(r.req, r.server.limits.maxBodyBytes);
  const { obj, text } = decodeObject(r, body);
  checkTypeMeta(r, obj, text);
  const meta = obj.metadata as Obj;
  if (
    r.def.namespaced &&
    meta.namespace !== undefined &&
    meta.namespace !== "" &&
    meta.namespace !== r.namespace
  ) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  if (meta.name !== undefined && meta.name !== "" && meta.name !== r.name) {
    throw badRequest(
      `the name of the object (${String(meta.name)}) does not match the name on the URL (${r.name})`,
    );
  }
  const warnings = checkFields(r, obj, text);
  const current = await inRequestVersion(r, mustGet(r));
  const result = await updateWithAdmission(r, current, obj, warnings);
  sendInForm(r, 200, result.json, form, warningHeaders(warnings), result.stored?.obj);
}
