// PUT: replace an object (or its status) with optimistic concurrency.
import { createWithAdmission, updateWithAdmission } from "../admission/index.js";
import { inRequestVersion } from "../conversion/index.js";
import { readBody } from "../http-io.js";
import { badRequest } from "../status.js";
import { storeNameOf } from "../registry/index.js";
import { objectKey, type Obj } from "../storage/index.js";
import { createObject } from "./create.js";
import type { ResourceRequest } from "./context.js";
import { mustGet } from "./get.js";
import { formOf, sendInForm } from "./negotiation.js";
import { checkFields, checkTypeMeta, decodeObject, warningHeaders } from "./write.js";
import { validateWriteOptions } from "./write-options.js";

/**
 * The kinds whose strategy allows a create on update (AllowCreateOnUpdate), by group/kind:
 * every other kind answers a PUT of a missing object 404.
 */
const CREATE_ON_UPDATE = new Set([
  "coordination.k8s.io/Lease",
  "coordination.k8s.io/LeaseCandidate",
  "/Endpoints",
  "/Event",
  "events.k8s.io/Event",
  "/LimitRange",
  "/Service",
  "node.k8s.io/RuntimeClass",
  "rbac.authorization.k8s.io/ClusterRole",
  "rbac.authorization.k8s.io/ClusterRoleBinding",
  "rbac.authorization.k8s.io/Role",
  "rbac.authorization.k8s.io/RoleBinding",
]);

export async function handleUpdate(r: ResourceRequest): Promise<void> {
  const form = formOf(r, "write");
  validateWriteOptions(r, "UpdateOptions");
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
  // kube's checkName: the object names itself, as the URL does.
  if (typeof meta.name !== "string" || meta.name === "") {
    throw badRequest(
      `the name of the object (${r.name} based on URL) was undeterminable: name must be provided`,
    );
  }
  if (meta.name !== r.name) {
    throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${r.name})`);
  }
  if (
    r.subresource === "" &&
    CREATE_ON_UPDATE.has(`${r.def.group}/${r.def.kind}`) &&
    !r.server.storage.get(storeNameOf(r.def), objectKey(r.namespace, r.name))
  ) {
    // AllowCreateOnUpdate: a PUT of a missing object creates it, through the create's admission.
    const { json, headers, source } = await createWithAdmission(r, obj, text, createObject);
    sendInForm(r, 201, json, form, headers, source);
    return;
  }
  const warnings = checkFields(r, obj, text);
  const current = await inRequestVersion(r, mustGet(r));
  const result = await updateWithAdmission(r, current, obj, warnings);
  sendInForm(r, 200, result.json, form, warningHeaders(warnings), result.stored?.obj);
}
