// DELETE of one object and deletecollection.
import { deleteWithAdmission } from "../admission/index.js";
import { mediaType, readBody, sendJson } from "../http-io.js";
import { storeNameOf } from "../registry/index.js";
import { badRequest, deleteSuccess } from "../status.js";
import type { Obj } from "../storage/index.js";
import { builtinView } from "../conversion/index.js";
import { formOf, sendInForm } from "./negotiation.js";
import { refOf, type ResourceRequest } from "./context.js";
import { type DeleteOptions, deleteStored } from "./finalize.js";
import { mustGet } from "./get.js";
import { selectPage } from "./list.js";
import { itemJson, listJson } from "./serialize.js";
import { decodeProtobufBody, isDryRun } from "./write.js";
import { PROTOBUF } from "../protobuf/media-type.js";

async function deleteOptions(r: ResourceRequest): Promise<DeleteOptions> {
  const body = await readBody(r.req, r.server.limits.maxBodyBytes);
  const opts: DeleteOptions = { dryRun: isDryRun(r) };
  const policy = r.query.get("propagationPolicy");
  if (policy) opts.propagationPolicy = policy;
  const grace = r.query.get("gracePeriodSeconds");
  if (grace !== null) opts.gracePeriodSeconds = Number(grace);
  if (body.length > 0) {
    const ct = mediaType(r.req.headers["content-type"]);
    if (ct !== "" && ct !== "application/json" && ct !== "application/yaml" && ct !== PROTOBUF) {
      throw badRequest(`unsupported content type for DeleteOptions: ${ct}`);
    }
    let parsed: Obj;
    if (ct === PROTOBUF) parsed = decodeProtobufBody(body, "meta.k8s.io/v1", "DeleteOptions");
    else {
      try {
        parsed = JSON.parse(body.toString("utf8")) as Obj;
      } catch (e) {
        throw badRequest(
          `the object provided is unrecognized (must be of type DeleteOptions): ${(e as Error).message}`,
        );
      }
    }
    if (parsed && typeof parsed === "object") {
      if (typeof parsed.propagationPolicy === "string") opts.propagationPolicy = parsed.propagationPolicy;
      if (parsed.orphanDependents === true && !opts.propagationPolicy) opts.propagationPolicy = "Orphan";
      if (typeof parsed.gracePeriodSeconds === "number") opts.gracePeriodSeconds = parsed.gracePeriodSeconds;
      if (parsed.preconditions && typeof parsed.preconditions === "object") {
        opts.preconditions = parsed.preconditions as DeleteOptions["preconditions"];
      }
      if (Array.isArray(parsed.dryRun) && parsed.dryRun.includes("All")) opts.dryRun = true;
    }
  }
  const policyValue = opts.propagationPolicy;
  if (policyValue && !["Foreground", "Background", "Orphan"].includes(policyValue)) {
    throw badRequest(
      `propagationPolicy: Unsupported value: "${policyValue}": supported values: "Foreground", "Background", "Orphan"`,
    );
  }
  return opts;
}

export async function handleDelete(r: ResourceRequest): Promise<void> {
  const form = formOf(r, "write");
  const opts = await deleteOptions(r);
  const current = await deleteWithAdmission(r, mustGet(r), opts);
  const outcome = deleteStored(r.server, r.def, current, opts);
  // An object still held by finalizers is answered; one gone is a Status (custom resources too).
  if (!outcome.removed || r.def.returnDeletedObject) {
    sendInForm(r, 200, builtinView(r.def, outcome.stored).json, form);
    return;
  }
  const uid = String((current.obj.metadata as Obj).uid);
  sendJson(r.res, 200, JSON.stringify(deleteSuccess(refOf(r.def), r.name, uid)));
}

export async function handleDeleteCollection(r: ResourceRequest): Promise<void> {
  const opts = await deleteOptions(r);
  const page = selectPage(r);
  const items: string[] = [];
  for (const o of page.items) {
    const listed = r.server.storage.get(storeNameOf(r.def), o.key);
    if (!listed) continue;
    const current = await deleteWithAdmission(r, listed, opts, listed.name);
    const outcome = deleteStored(r.server, r.def, current, { ...opts, preconditions: undefined });
    items.push(itemJson(r.def, builtinView(r.def, outcome.stored)));
  }
  sendJson(
    r.res,
    200,
    listJson(r.def, items, { resourceVersion: String(r.server.storage.resourceVersion) }, "object"),
  );
}
