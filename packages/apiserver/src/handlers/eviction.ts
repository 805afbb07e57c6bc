// POST pods/{name}/eviction: an Eviction (policy/v1 or v1beta1) deletes the Pod with the
// Eviction's deleteOptions, answering 201 with a Success Status as kube-apiserver does. No
// PodDisruptionBudgets are served, so no eviction is refused for one.
import { formOf } from "./negotiation.js";
import { mediaType, readBody, sendJson } from "../http-io.js";
import { PROTOBUF } from "../protobuf/media-type.js";
import { ApiError, badRequest } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import { type DeleteOptions, deleteStored } from "./finalize.js";
import { mustGet } from "./get.js";
import { decodeProtobufBody, isDryRun } from "./write.js";

/** Whether `subresource` is the eviction of a core Pod. */
export function isEviction(r: Pick<ResourceRequest, "def" | "subresource">): boolean {
  return r.subresource === "eviction" && r.def.group === "" && r.def.kind === "Pod" && !r.def.crdName;
}

function parseEviction(body: Buffer, contentType: string): Obj {
  let parsed: unknown;
  try {
    parsed =
      contentType === PROTOBUF
        ? decodeProtobufBody(body, "policy/v1", "Eviction")
        : JSON.parse(body.toString("utf8"));
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw badRequest(
      `the object provided is unrecognized (must be of type Eviction): ${(e as Error).message}`,
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw badRequest("the object provided is unrecognized (must be of type Eviction)");
  }
  const obj = parsed as Obj;
  if (obj.kind !== "Eviction" || (obj.apiVersion !== "policy/v1" && obj.apiVersion !== "policy/v1beta1")) {
    throw badRequest(
      `the object provided is unrecognized (must be of type Eviction): ${obj.apiVersion}, Kind=${obj.kind}`,
    );
  }
  return obj;
}

export async function handleEviction(r: ResourceRequest): Promise<void> {
  formOf(r, "write", false); // no table convertor: a Table is refused first
  const body = await readBody(r.req, r.server.limits.maxBodyBytes);
  const eviction = parseEviction(body, mediaType(r.req.headers["content-type"]));
  const name = (eviction.metadata as Obj | undefined)?.name;
  if (name !== undefined && name !== r.name)
    throw badRequest("name in URL does not match name in Eviction object");
  const given = (eviction.deleteOptions ?? {}) as Obj;
  const opts: DeleteOptions = {
    dryRun: isDryRun(r) || (Array.isArray(given.dryRun) && given.dryRun.includes("All")),
  };
  if (typeof given.gracePeriodSeconds === "number") opts.gracePeriodSeconds = given.gracePeriodSeconds;
  if (typeof given.propagationPolicy === "string") opts.propagationPolicy = given.propagationPolicy;
  if (given.preconditions && typeof given.preconditions === "object") {
    opts.preconditions = given.preconditions as DeleteOptions["preconditions"];
  }
  deleteStored(r.server, r.def, mustGet(r), opts);
  sendJson(
    r.res,
    201,
    JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 }),
  );
}
