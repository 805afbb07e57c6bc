// POST serviceaccounts/{name}/token: a TokenRequest (authentication.k8s.io/v1) answered with a
// token for the ServiceAccount, as `kubectl create token` asks for it. Audiences default to the
// server's, expiry to an hour (at least ten minutes); a bound Pod or Secret must exist, and the
// token dies with it.
import { readBody } from "../http-io.js";
import { kubeTime } from "../object/meta.js";
import { ApiError, badRequest, invalid, notFound } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { ResourceDefinition } from "../registry/index.js";
import { asJSONSchemaProps, builtinSchema } from "../schema/index.js";
import type { ResourceRequest } from "./context.js";
import { mustGet } from "./get.js";
import { formOf, sendInForm } from "./negotiation.js";
import { checkTypeMeta, decodeObject, stampManagedFields } from "./write.js";

const ref = { group: "authentication.k8s.io", resource: "tokenrequests", kind: "TokenRequest" };
const maxExpirationSeconds = 2 ** 32;

// The TokenRequest type, for the field manager's record of the request (built once).
let tokenRequestDef: ResourceDefinition | undefined;
function tokenRequestDefinition(serviceAccounts: ResourceDefinition): ResourceDefinition {
  const schema = builtinSchema("authentication.k8s.io", "v1", "TokenRequest");
  tokenRequestDef ??= {
    ...serviceAccounts,
    group: "authentication.k8s.io",
    kind: "TokenRequest",
    listKind: "TokenRequestList",
    schema: schema === undefined ? undefined : asJSONSchemaProps(schema),
  };
  return tokenRequestDef;
}

export function isTokenRequest(r: Pick<ResourceRequest, "def" | "subresource">): boolean {
  return r.subresource === "token" && r.def.group === "" && r.def.kind === "ServiceAccount" && !r.def.crdName;
}

export async function handleTokenRequest(r: ResourceRequest): Promise<void> {
  const authn = r.server.authentication;
  if (!authn) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
  const form = formOf(r, "write", false);
  const body = await readBody(r.req, r.server.limits.maxBodyBytes);
  const asTokenRequest = { ...r, def: tokenRequestDefinition(r.def) };
  const { obj: request } = decodeObject(asTokenRequest, body);
  checkTypeMeta(asTokenRequest, request);
  const spec = (request.spec && typeof request.spec === "object" ? request.spec : {}) as Obj;
  const sa = mustGet(r);
  const expirationSeconds =
    spec.expirationSeconds === undefined || spec.expirationSeconds === null ? 3600 : spec.expirationSeconds;
  if (typeof expirationSeconds !== "number" || !Number.isInteger(expirationSeconds)) {
    throw badRequest(
      `TokenRequest in version "v1" cannot be handled as a TokenRequest: spec.expirationSeconds must be an integer`,
    );
  }
  if (expirationSeconds < 600) {
    throw invalid(ref, "", [
      {
        reason: "FieldValueInvalid",
        message: `Invalid value: ${expirationSeconds}: may not specify a duration less than 10 minutes`,
        field: "spec.expirationSeconds",
      },
    ]);
  }
  if (expirationSeconds > maxExpirationSeconds) {
    throw invalid(ref, "", [
      {
        reason: "FieldValueTooLong",
        message: `Invalid value: ${expirationSeconds}: may not specify a duration larger than 2^32 seconds`,
        field: "spec.expirationSeconds",
      },
    ]);
  }
  const given = Array.isArray(spec.audiences)
    ? spec.audiences.filter((a): a is string => typeof a === "string")
    : [];
  const audiences = given.length > 0 ? given : [...authn.apiAudiences];
  let bound: { kind: "Pod" | "Secret"; name: string; uid: string } | undefined;
  const boundRef = spec.boundObjectRef as Obj | null | undefined;
  if (boundRef && typeof boundRef === "object") {
    const kind = boundRef.kind;
    if (kind !== "Pod" && kind !== "Secret") {
      throw badRequest(`cannot bind token to object of type ${String(kind)}`);
    }
    const store = kind === "Pod" ? "/pods" : "/secrets";
    const name = String(boundRef.name ?? "");
    const obj = r.server.storage.get(store, `${r.namespace}/${name}`);
    if (!obj) throw notFound({ group: "", resource: kind === "Pod" ? "pods" : "secrets", kind }, name);
    const uid = (obj.obj.metadata as Obj).uid as string;
    if (boundRef.uid && boundRef.uid !== uid) {
      throw new ApiError(
        409,
        "Conflict",
        `Operation cannot be fulfilled on ${kind === "Pod" ? "pods" : "secrets"} "${name}": the UID in the bound object reference (${String(boundRef.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
        { name, kind: kind === "Pod" ? "pods" : "secrets" },
      );
    }
    bound = { kind, name, uid };
  }
  const saMeta = sa.obj.metadata as Obj;
  const issued = authn.issueToken(
    { namespace: r.namespace, name: r.name, uid: saMeta.uid as string },
    audiences,
    expirationSeconds,
    bound,
  );
  const metadata: Obj = { name: r.name, namespace: r.namespace, creationTimestamp: kubeTime(r.server.now()) };
  // kube's field manager records the request as sent, before the defaults.
  const asSent: Obj = { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", metadata: {}, spec };
  stampManagedFields(asTokenRequest, undefined, asSent);
  const managed = (asSent.metadata as Obj).managedFields;
  if (managed) metadata.managedFields = managed;
  const boundObjectRef = bound
    ? { kind: bound.kind, apiVersion: "v1", name: bound.name, uid: bound.uid }
    : null;
  const response: Obj = {
    kind: "TokenRequest",
    apiVersion: "authentication.k8s.io/v1",
    metadata,
    spec: { audiences, expirationSeconds, boundObjectRef },
    status: { token: issued.token, expirationTimestamp: kubeTime(issued.expires) },
  };
  sendInForm(r, 201, JSON.stringify(response), form);
}
