// DeleteOptions as kube's DELETE and deletecollection handlers read them: from the body when
// there is one (the query's options are then ignored, as in kube), else from the query, and
// checked by ValidateDeleteOptions (a 422 on DeleteOptions.meta.k8s.io).
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { mediaType, readBody } from "../http-io.js";
import { PROTOBUF } from "../protobuf/media-type.js";
import { badRequest, cause, invalid } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import type { DeleteOptions } from "./finalize.js";
import { isTrue, parseInt64 } from "./list-options.js";
import { jsonTypeName } from "./patch-decoding.js";
import { decodeProtobufBody } from "./write.js";

const POLICIES = ["Foreground", "Background", "Orphan"];

interface Requested {
  propagationPolicy?: unknown;
  orphanDependents?: unknown;
  gracePeriodSeconds?: unknown;
  preconditions?: unknown;
  dryRun?: unknown;
}

export async function deleteOptions(r: ResourceRequest): Promise<DeleteOptions> {
  const body = await readBody(r.req, r.server.limits.maxBodyBytes);
  const asked = body.length > 0 ? fromBody(r, body) : fromQuery(r.query);
  const causes: StatusCause[] = [];
  if (asked.orphanDependents !== undefined && asked.propagationPolicy !== undefined) {
    causes.push(
      cause.invalid(
        "propagationPolicy",
        asked.propagationPolicy,
        "orphanDependents and deletionPropagation cannot be both set",
      ),
    );
  }
  const policy = asked.propagationPolicy;
  if (policy !== undefined && !POLICIES.includes(policy as string)) {
    causes.push(cause.notSupported("propagationPolicy", policy, [...POLICIES, "nil"]));
  }
  const dryRun = Array.isArray(asked.dryRun) ? (asked.dryRun as unknown[]).map(String) : [];
  if (dryRun.some((v) => v !== "All")) causes.push(cause.notSupported("dryRun", dryRun, ["All"]));
  if (causes.length > 0) {
    throw invalid({ group: "meta.k8s.io", kind: "DeleteOptions", resource: "" }, "", causes);
  }
  const opts: DeleteOptions = { dryRun: dryRun.length > 0 };
  if (typeof policy === "string") opts.propagationPolicy = policy;
  else if (asked.orphanDependents === true) opts.propagationPolicy = "Orphan";
  if (typeof asked.gracePeriodSeconds === "number") opts.gracePeriodSeconds = asked.gracePeriodSeconds;
  if (asked.preconditions && typeof asked.preconditions === "object") {
    opts.preconditions = asked.preconditions as DeleteOptions["preconditions"];
  }
  return opts;
}

/**
 * The query as kube's parameter codec decodes it into DeleteOptions: `uid` and `resourceVersion`
 * are preconditions (so deletecollection's `?resourceVersion=0` is one no object meets).
 */
function fromQuery(query: URLSearchParams): Requested {
  const asked: Requested = {};
  const uid = query.get("uid") ?? "";
  const resourceVersion = query.get("resourceVersion") ?? "";
  if (uid !== "" || resourceVersion !== "") {
    asked.preconditions = {
      ...(uid !== "" ? { uid } : {}),
      ...(resourceVersion !== "" ? { resourceVersion } : {}),
    };
  }
  const policy = query.get("propagationPolicy");
  if (policy !== null) asked.propagationPolicy = policy;
  const orphan = query.get("orphanDependents");
  if (orphan !== null) asked.orphanDependents = isTrue(orphan);
  const grace = query.get("gracePeriodSeconds");
  if (grace !== null) asked.gracePeriodSeconds = parseInt64(grace);
  const dryRun = query.getAll("dryRun");
  if (dryRun.length > 0) asked.dryRun = dryRun;
  return asked;
}

function fromBody(r: ResourceRequest, body: Buffer): Requested {
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
  // kube's decoder reads the kind first: a body that is no object has none to read, and a kind
  // that is no DeleteOptions is none the options' scheme knows.
  if (parsed === null) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw badRequest(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(parsed)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const kind = parsed.kind;
  if (typeof kind === "string" && kind !== "" && !kind.endsWith("Options")) {
    const version =
      typeof parsed.apiVersion === "string" && parsed.apiVersion !== ""
        ? parsed.apiVersion
        : "meta.k8s.io/v1";
    throw badRequest(
      `no kind "${kind}" is registered for version "${version}" in scheme "pkg/runtime/scheme.go:111"`,
    );
  }
  const asked: Requested = {};
  // null is Go's nil pointer: as if absent.
  for (const k of [
    "propagationPolicy",
    "orphanDependents",
    "gracePeriodSeconds",
    "preconditions",
    "dryRun",
  ]) {
    if (parsed[k] !== undefined && parsed[k] !== null) asked[k as keyof Requested] = parsed[k];
  }
  return asked;
}
