// POST pods/{name}/binding and POST bindings: a Binding assigns a Pod to a node, as the scheduler
// does. As kube's BindingREST: the Pod must exist, not be going, not be assigned already and have
// no scheduling gates; its nodeName is set, the Binding's annotations merged in and the
// PodScheduled condition set True, straight in storage (no managedFields entry); 201 Success.
import { formOf } from "./negotiation.js";
import { mediaType, readBody, sendJson } from "../http-io.js";
import { parseJsonBounded, parseYamlBounded } from "../nesting.js";
import { kubeTime, normalizeOrder } from "../object/meta.js";
import { PROTOBUF } from "../protobuf/media-type.js";
import { storeNameOf } from "../registry/index.js";
import { ApiError, badRequest, cause, conflict, invalid, unsupportedMediaType } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import { mustGet } from "./get.js";
import { decodeProtobufBody, isDryRun } from "./write.js";
import { cloneJson } from "../object/deep-json.js";

/** Whether the request is for the core `bindings` resource or a Pod's `binding` subresource. */
export function isBinding(r: Pick<ResourceRequest, "def" | "subresource">): boolean {
  if (r.def.crdName || r.def.group !== "") return false;
  return (
    (r.def.kind === "Binding" && r.subresource === "") ||
    (r.def.kind === "Pod" && r.subresource === "binding")
  );
}

const BINDINGS = { group: "", resource: "pods/binding", kind: "Binding" };
const isObject = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

function readBinding(body: Buffer, contentType: string): Obj {
  let value: unknown;
  if (contentType === PROTOBUF) return decodeProtobufBody(body, "v1", "Binding");
  if (contentType !== "" && contentType !== "application/json" && contentType !== "application/yaml") {
    throw unsupportedMediaType(["application/json", "application/yaml", PROTOBUF]);
  }
  try {
    const text = body.toString("utf8");
    value = contentType === "application/yaml" ? parseYamlBounded(text) : parseJsonBounded(text);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw badRequest(
      `the object provided is unrecognized (must be of type Binding): ${(e as Error).message}`,
    );
  }
  if (!isObject(value)) throw badRequest("the object provided is unrecognized (must be of type Binding)");
  if ((value.kind ?? "Binding") !== "Binding" || (value.apiVersion ?? "v1") !== "v1") {
    throw badRequest(
      `the object provided is unrecognized (must be of type Binding): ${String(value.apiVersion)}, Kind=${String(value.kind)}`,
    );
  }
  return value;
}

function podScheduled(pod: Obj, now: string): void {
  const status = isObject(pod.status) ? pod.status : {};
  pod.status = status;
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Obj[]) : [];
  const i = conditions.findIndex((c) => c?.type === "PodScheduled");
  const next: Obj = { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now };
  if (i < 0) conditions.push(next);
  else {
    // UpdatePodCondition keeps the transition time when the status stays.
    if (conditions[i].status === "True") next.lastTransitionTime = conditions[i].lastTransitionTime ?? now;
    conditions[i] = next;
  }
  status.conditions = conditions;
}

export async function handleBinding(r: ResourceRequest): Promise<void> {
  formOf(r, "write", false); // no table convertor: a Table is refused first
  const body = await readBody(r.req, r.server.limits.maxBodyBytes);
  const binding = readBinding(body, mediaType(r.req.headers["content-type"]));
  const meta = isObject(binding.metadata) ? binding.metadata : {};
  const podName = r.subresource === "binding" ? r.name : String(meta.name ?? "");
  if (r.subresource === "binding" && podName !== (meta.name ?? "")) {
    throw badRequest("name in URL does not match name in Binding object");
  }
  if (meta.namespace !== undefined && meta.namespace !== "" && meta.namespace !== r.namespace) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  const target = isObject(binding.target) ? binding.target : {};
  const causes = [];
  if (target.kind !== undefined && target.kind !== "" && target.kind !== "Node") {
    causes.push({
      ...cause.invalid("target.kind", target.kind, ""),
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${JSON.stringify(target.kind)}: supported values: "Node", "<empty>"`,
    });
  }
  if (!target.name) causes.push(cause.required("target.name"));
  if (causes.length > 0) throw invalid({ group: "", resource: "bindings", kind: "Binding" }, podName, causes);

  const pods = r.server.registry.lookup("", "v1", "pods")!;
  const current = mustGet({ ...r, def: pods, name: podName, subresource: "" });
  const rv = meta.resourceVersion;
  if (rv !== undefined && rv !== "" && rv !== String(current.rv)) {
    throw conflict(
      BINDINGS,
      podName,
      "the object has been modified; please apply your changes to the latest version and try again",
    );
  }
  const pod = cloneJson(current.obj) as Obj;
  const podMeta = pod.metadata as Obj;
  const spec = pod.spec as Obj;
  if (podMeta.deletionTimestamp)
    throw conflict(BINDINGS, podName, `pod ${podName} is being deleted, cannot be assigned to a host`);
  if (spec.nodeName) {
    throw conflict(
      BINDINGS,
      podName,
      `pod ${podName} is already assigned to node ${JSON.stringify(spec.nodeName)}`,
    );
  }
  if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) {
    throw conflict(BINDINGS, podName, `pod ${podName} has non-empty .spec.schedulingGates`);
  }
  spec.nodeName = target.name;
  if (isObject(meta.annotations) && Object.keys(meta.annotations).length > 0) {
    podMeta.annotations = {
      ...(isObject(podMeta.annotations) ? podMeta.annotations : {}),
      ...meta.annotations,
    };
  }
  podScheduled(pod, kubeTime(r.server.now()));
  if (!isDryRun(r)) {
    const stored = r.server.storage.put(storeNameOf(pods), normalizeOrder(pods, pod));
    r.server.hooks.afterWrite(pods, stored, current);
  }
  sendJson(
    r.res,
    201,
    JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 }),
  );
}
