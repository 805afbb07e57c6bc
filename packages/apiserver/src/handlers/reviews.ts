// The review endpoints: create-only resources answered at once and never stored.
// SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectAccessReview ask the authorizer
// about one request; SelfSubjectRulesReview lists the requester's rules in a namespace;
// TokenReview asks the authenticator about a bearer token (how webhooks and metrics endpoints
// check callers). Validation and answers as kube-apiserver 1.37 words them.
import { pathAttributes } from "../authz/attributes.js";
import { readBody } from "../http-io.js";
import { apiVersionOfDef, kubeTime } from "../object/meta.js";
import { ApiError, badRequest, invalid } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import type { AccessAttributes, ResourceRequest, UserInfo } from "./context.js";
import { formOf, sendInForm } from "./negotiation.js";
import { checkTypeMeta, decodeObject, stampManagedFields } from "./write.js";
import { cloneJson } from "../object/deep-json.js";

const str = (v: unknown) => (typeof v === "string" ? v : "");
const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const isObject = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

export async function handleReview(r: ResourceRequest): Promise<void> {
  // Reviews have no table convertor: a Table is refused before the review is read.
  const form = formOf(r, "write", false);
  const body = await readBody(r.req, r.server.limits.maxBodyBytes);
  const { obj } = decodeObject(r, body);
  checkTypeMeta(r, obj);
  if (!isObject(obj.spec)) obj.spec = {};
  switch (r.def.kind) {
    case "SelfSubjectRulesReview":
      sendInForm(r, 201, JSON.stringify(rulesReview(r, obj)), form);
      return;
    case "TokenReview":
      sendInForm(r, 201, JSON.stringify(tokenReview(r, obj)), form);
      return;
    case "SelfSubjectReview":
      sendInForm(r, 201, JSON.stringify(selfSubjectReview(r, obj)), form);
      return;
    default:
      sendInForm(r, 201, JSON.stringify(accessReview(r, obj)), form);
  }
}

/**
 * The internal NonResourceAttributes as kube 1.37 prints a bad value: json.Marshal of a struct
 * without JSON tags, so Go's field names (kube 1.26 printed Go's %#v).
 */
function nonResourceText(n: Obj | undefined): string {
  return n ? JSON.stringify({ Path: str(n.path), Verb: str(n.verb) }) : "null";
}

const invalidCause = (field: string, value: string, detail: string): StatusCause => ({
  reason: "FieldValueInvalid",
  message: `Invalid value: ${value}: ${detail}`,
  field,
});

/** The response's metadata: an unstored object's, with no creationTimestamp (omitzero by 1.37). */
function responseMeta(r: ResourceRequest, obj: Obj): void {
  const given = obj.metadata as Obj;
  stampManagedFields(r, undefined, obj);
  const meta: Obj = {};
  if (r.def.namespaced) meta.namespace = r.namespace;
  if (given.managedFields) meta.managedFields = given.managedFields;
  obj.metadata = meta;
}

/** The metadata check of ValidateSubjectAccessReview and its Self and Local siblings. */
function metaCauses(r: ResourceRequest, obj: Obj): StatusCause[] {
  const { managedFields: _m, namespace, ...rest } = obj.metadata as Obj;
  const local = r.def.kind === "LocalSubjectAccessReview";
  // kube compares Go's ObjectMeta: a null creationTimestamp (Go's zero time) is empty.
  const set = Object.entries(rest).filter(([, v]) => v !== null && v !== "" && v !== 0);
  if (set.length === 0 && (local || !namespace)) return [];
  return [
    invalidCause(
      "metadata",
      JSON.stringify(obj.metadata),
      local ? "must be empty except for namespace" : "must be empty",
    ),
  ];
}

/**
 * kube 1.37's validation of an access review, every error at once: exactly one kind of
 * attributes (an error on `spec`, printing the non-resource attributes), a subject for the
 * reviews about others, empty metadata, and for a local review its namespace.
 */
function accessReviewCauses(r: ResourceRequest, obj: Obj, res: Obj | undefined, nonRes: Obj | undefined) {
  const spec = obj.spec as Obj;
  const causes: StatusCause[] = [];
  if (!res === !nonRes) {
    causes.push(
      invalidCause(
        "spec",
        nonResourceText(nonRes),
        "exactly one of nonResourceAttributes or resourceAttributes must be specified",
      ),
    );
  }
  if (r.def.kind !== "SelfSubjectAccessReview" && !str(spec.user) && strings(spec.groups).length === 0) {
    causes.push(invalidCause("spec.user", '""', "at least one of user or group must be specified"));
  }
  causes.push(...metaCauses(r, obj));
  if (r.def.kind === "LocalSubjectAccessReview") {
    if (res && str(res.namespace) !== r.namespace) {
      causes.push(
        invalidCause(
          "spec.resourceAttributes.namespace",
          JSON.stringify(str(res.namespace)),
          "must match metadata.namespace",
        ),
      );
    }
    if (nonRes) {
      causes.push(
        invalidCause(
          "spec.nonResourceAttributes",
          nonResourceText(nonRes),
          "disallowed on this kind of request",
        ),
      );
    }
  }
  return causes;
}

function accessReview(r: ResourceRequest, obj: Obj): Obj {
  const authz = r.server.authorization;
  if (!authz) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
  const spec = obj.spec as Obj;
  const namespace = (obj.metadata as Obj).namespace;
  if (
    r.def.kind === "LocalSubjectAccessReview" &&
    namespace !== undefined &&
    namespace !== "" &&
    namespace !== r.namespace
  ) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  const res = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const nonRes = isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  const causes = accessReviewCauses(r, obj, res, nonRes);
  if (causes.length > 0) throw invalid({ group: r.def.group, resource: "", kind: "" }, "", causes);
  let user: UserInfo;
  if (r.def.kind === "SelfSubjectAccessReview") {
    user = r.user;
  } else {
    user = { name: str(spec.user), groups: strings(spec.groups) };
    if (str(spec.uid)) user.uid = str(spec.uid);
    if (isObject(spec.extra))
      user.extra = Object.fromEntries(Object.entries(spec.extra).map(([k, v]) => [k, strings(v)]));
  }
  const attrs: AccessAttributes = res
    ? {
        user,
        verb: str(res.verb),
        resourceRequest: true,
        path: "",
        apiGroup: str(res.group),
        apiVersion: str(res.version),
        namespace: str(res.namespace),
        resource: str(res.resource),
        subresource: str(res.subresource),
        name: str(res.name),
      }
    : pathAttributes(user, str(nonRes?.verb), str(nonRes?.path));
  const decision = authz.decide(attrs);
  responseMeta(r, obj);
  const status: Obj = { allowed: decision.allowed };
  if (decision.reason) status.reason = decision.reason;
  return {
    kind: obj.kind,
    apiVersion: obj.apiVersion,
    metadata: obj.metadata,
    spec: orderedAccessSpec(spec),
    status,
  };
}

/** The spec in Go's field order. */
function orderedAccessSpec(spec: Obj): Obj {
  const out: Obj = {};
  const order = (o: Obj, keys: string[]) =>
    Object.fromEntries(keys.filter((k) => o[k] !== undefined && o[k] !== "").map((k) => [k, o[k]]));
  if (isObject(spec.resourceAttributes)) {
    out.resourceAttributes = order(spec.resourceAttributes, [
      "namespace",
      "verb",
      "group",
      "version",
      "resource",
      "subresource",
      "name",
    ]);
  }
  if (isObject(spec.nonResourceAttributes))
    out.nonResourceAttributes = order(spec.nonResourceAttributes, ["path", "verb"]);
  for (const k of ["user", "groups", "extra", "uid"])
    if (spec[k] !== undefined && spec[k] !== "") out[k] = spec[k];
  return out;
}

function rulesReview(r: ResourceRequest, obj: Obj): Obj {
  const authz = r.server.authorization;
  if (!authz) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
  const namespace = str((obj.spec as Obj).namespace);
  if (!namespace) throw badRequest("no namespace on request");
  const { rules, errors } = authz.rulesFor(r.user, namespace);
  const resourceRules: Obj[] = [];
  const nonResourceRules: Obj[] = [];
  for (const rule of rules) {
    if (rule.resources?.length) {
      const out: Obj = { verbs: rule.verbs, apiGroups: rule.apiGroups ?? [], resources: rule.resources };
      if (rule.resourceNames?.length) out.resourceNames = rule.resourceNames;
      resourceRules.push(out);
    }
    if (rule.nonResourceURLs?.length)
      nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs });
  }
  const status: Obj = { resourceRules, nonResourceRules, incomplete: false };
  if (errors.length > 0) {
    const unique = [...new Set(errors)];
    status.evaluationError = unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
  }
  return {
    kind: r.def.kind,
    apiVersion: apiVersionOfDef(r.def),
    metadata: {},
    spec: {},
    status,
  };
}

/**
 * SelfSubjectReview (`kubectl auth whoami`): who the server takes the caller to be. kube answers
 * a new object, created now, with no managed fields.
 */
function selfSubjectReview(r: ResourceRequest, obj: Obj): Obj {
  const userInfo: Obj = { username: r.user.name };
  if (r.user.uid) userInfo.uid = r.user.uid;
  userInfo.groups = [...r.user.groups];
  if (r.user.extra && Object.keys(r.user.extra).length > 0) userInfo.extra = cloneJson(r.user.extra);
  return {
    kind: obj.kind,
    apiVersion: obj.apiVersion,
    metadata: { creationTimestamp: kubeTime(r.server.now()) },
    status: { userInfo },
  };
}

function tokenReview(r: ResourceRequest, obj: Obj): Obj {
  const authn = r.server.authentication;
  if (!authn) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
  const spec = obj.spec as Obj;
  const token = str(spec.token);
  if (!token) throw badRequest("token is required for TokenReview in authentication");
  const wanted = strings(spec.audiences);
  const found = authn.reviewToken(token, wanted.length > 0 ? wanted : undefined);
  responseMeta(r, obj);
  let status: Obj;
  if ("user" in found) {
    const user: Obj = { username: found.user.name };
    if (found.user.uid) user.uid = found.user.uid;
    user.groups = found.user.groups;
    if (found.user.extra) user.extra = found.user.extra;
    status = { authenticated: true, user, audiences: found.audiences };
  } else status = { user: {}, error: found.error };
  const orderedSpec: Obj = { token };
  if (wanted.length > 0) orderedSpec.audiences = wanted;
  return { kind: obj.kind, apiVersion: obj.apiVersion, metadata: obj.metadata, spec: orderedSpec, status };
}
