// ObjectMeta rules kube-apiserver applies on every write: system fields set by the server,
// immutable fields kept, generation bumped on spec changes, status isolated behind /status.
import { randomUUID } from "node:crypto";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { labelValueErrors, qualifiedNameErrors } from "controller-runtime/api";
import type { ResourceDefinition } from "../registry/index.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import { encodeStruct, goDefinitionOf } from "./go-encoding.js";
import { finalizerCauses, ownerReferenceCauses } from "./meta-lists.js";
import { nameErrors } from "./names.js";
import { podResize } from "./pod-resize.js";
import { cloneJson } from "./deep-json.js";

// A memo of the last second formatted, not state: every write stamps the current time, often
// twice (creationTimestamp, managedFields), and thousands of writes share one second.
let memoSecond = Number.NaN;
let memoText = "";

/** RFC 3339 with seconds, as metav1.Time serializes. */
export function kubeTime(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== memoSecond) {
    memoText = d.toISOString().replace(/\.\d{3}Z$/, "Z");
    memoSecond = second;
  }
  return memoText;
}

export function apiVersionOfDef(def: ResourceDefinition, version = def.version): string {
  return def.group ? `${def.group}/${version}` : version;
}

const metaOrder = [
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
];

/**
 * A copy as kube writes it. Custom resources are unstructured JSON in kube (Go maps), so every
 * object's keys come sorted, metadata's too. Built-ins follow their Go structs: `kind`,
 * `apiVersion`, `metadata` in ObjectMeta order, then their fields in declaration order with
 * what Go always writes (go-encoding.ts); map keys sorted.
 */
export function normalizeOrder(def: ResourceDefinition, obj: Obj): Obj {
  if (def.crdName) return sortedDeep(obj) as Obj;
  const orderedMeta = inObjectMetaOrder((obj.metadata ?? {}) as Obj);
  for (const k of sortedMetaMaps)
    if (isPlainObject(orderedMeta[k])) orderedMeta[k] = sortedKeys(orderedMeta[k]);
  const out: Obj = { kind: obj.kind, apiVersion: obj.apiVersion, metadata: orderedMeta };
  const short = goDefinitionOf(def.group, def.version, def.kind);
  if (short) {
    const encoded = encodeStruct(short, obj);
    for (const k in encoded) if (!(k in out)) out[k] = encoded[k];
    return out;
  }
  const maps = def.group === "" && (def.kind === "ConfigMap" || def.kind === "Secret");
  for (const k in obj) {
    const v = obj[k];
    if (v === undefined || !Object.hasOwn(obj, k) || k in out) continue;
    out[k] = maps && (k === "data" || k === "binaryData") && isPlainObject(v) ? sortedKeys(v) : v;
  }
  return out;
}

/** apimachinery's ValidateLabels, at `field` (metadata.labels, a template's labels, a selector's matchLabels). */
export function labelCauses(labels: unknown, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (labels === undefined || labels === null) return causes;
  if (typeof labels !== "object" || Array.isArray(labels))
    return [cause.invalid(field, labels, "must be a map of strings")];
  for (const [k, v] of Object.entries(labels as Obj)) {
    for (const msg of qualifiedNameErrors(k)) causes.push(cause.invalid(field, k, msg));
    if (typeof v !== "string") causes.push(cause.invalid(field, v, "must be a string"));
    else for (const msg of labelValueErrors(v)) causes.push(cause.invalid(field, v, msg));
  }
  return causes;
}

/** apimachinery's ValidateAnnotations, at `field`. */
export function annotationCauses(annotations: unknown, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (annotations === undefined || annotations === null) return causes;
  if (typeof annotations !== "object" || Array.isArray(annotations)) {
    return [cause.invalid(field, annotations, "must be a map of strings")];
  }
  let total = 0;
  for (const [k, v] of Object.entries(annotations as Obj)) {
    for (const msg of qualifiedNameErrors(k.toLowerCase())) causes.push(cause.invalid(field, k, msg));
    if (typeof v !== "string") causes.push(cause.invalid(field, v, "must be a string"));
    total += k.length + (typeof v === "string" ? v.length : 0);
  }
  if (total > 262144) {
    causes.push({
      reason: "FieldValueTooLong",
      message: "Too long: may not be more than 262144 bytes",
      field,
    });
  }
  return causes;
}

/** An ObjectMeta's fields in Go's declaration order, then any others; undefined ones left out. */
export function inObjectMetaOrder(meta: Obj): Obj {
  const out: Obj = {};
  for (const k of metaOrder) if (meta[k] !== undefined) out[k] = meta[k];
  // for...in rather than Object.entries (no pair arrays): JSON objects have no inherited keys.
  for (const k in meta) {
    const v = meta[k];
    if (v !== undefined && Object.hasOwn(meta, k) && !(k in out)) out[k] = v;
  }
  return out;
}

const sortedMetaMaps = ["labels", "annotations"];

function isPlainObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function byKey(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The same entries with the keys in Go's order for maps (sorted); values as they are. */
function sortedKeys(o: Obj): Obj {
  const out: Obj = {};
  for (const k of Object.keys(o).sort(byKey)) out[k] = o[k];
  return out;
}

/**
 * Every object's keys sorted, at every depth, as Go writes a map[string]interface{}. Iterative:
 * objects may nest as deep as kube accepts (10 000 levels).
 */
function sortedDeep(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  const root: unknown = Array.isArray(v) ? [] : {};
  const stack: [unknown, unknown][] = [[v, root]];
  while (stack.length > 0) {
    const [src, out] = stack.pop()!;
    const keys = Array.isArray(src) ? src.map((_, i) => i) : Object.keys(src as Obj).sort(byKey);
    for (const k of keys) {
      const x = (src as Record<string | number, unknown>)[k];
      const copy = typeof x !== "object" || x === null ? x : Array.isArray(x) ? [] : {};
      if (Array.isArray(out)) out.push(copy);
      else (out as Obj)[k as string] = copy;
      if (copy !== x) stack.push([x, copy]);
    }
  }
  return root;
}

/** Whether `metadata.generation` is kept: always for custom resources, per kind for built-ins. */
export function tracksGeneration(def: ResourceDefinition): boolean {
  return def.tracksGeneration ?? def.crdName !== undefined;
}

const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

/** generateName's random suffix: five characters from apimachinery's alphabet. */
export function randomSuffix(): string {
  let s = "";
  for (let i = 0; i < 5; i++) s += suffixAlphabet[Math.floor(Math.random() * suffixAlphabet.length)];
  return s;
}

/** Problems with metadata that every kind shares (name, generateName, labels, annotations, owners, finalizers). */
export function validateMeta(def: ResourceDefinition, obj: Obj): StatusCause[] {
  const meta = (obj.metadata ?? {}) as Obj;
  const causes: StatusCause[] = [];
  const name = meta.name;
  const generateName = meta.generateName;
  // ValidateObjectMeta checks a generateName even beside a name (on create the name is generated
  // first), and before it.
  if (typeof generateName === "string" && generateName !== "") {
    for (const msg of nameErrors(def, generateName, true)) {
      causes.push(cause.invalid("metadata.generateName", generateName, msg));
    }
  }
  if (typeof name !== "string" || name === "") {
    if (typeof generateName !== "string" || generateName === "") {
      causes.push(cause.required("metadata.name", "name or generateName is required"));
    }
  } else {
    for (const msg of nameErrors(def, name)) causes.push(cause.invalid("metadata.name", name, msg));
  }
  causes.push(...labelCauses(meta.labels, "metadata.labels"));
  causes.push(...annotationCauses(meta.annotations, "metadata.annotations"));
  causes.push(...ownerReferenceCauses(meta.ownerReferences));
  const finalizers = meta.finalizers;
  if (finalizers !== undefined && finalizers !== null && !Array.isArray(finalizers)) {
    causes.push(cause.invalid("metadata.finalizers", finalizers, "must be a list of strings"));
  }
  causes.push(...finalizerCauses(def, finalizers));
  return causes;
}

/** Sets what the server owns on create. `obj.metadata.name` must already be final. */
export function prepareForCreate(def: ResourceDefinition, obj: Obj, namespace: string, now: Date): void {
  const meta = obj.metadata as Obj;
  if (def.namespaced) meta.namespace = namespace;
  else delete meta.namespace;
  meta.uid = randomUUID();
  meta.creationTimestamp = kubeTime(now);
  meta.resourceVersion = ""; // a placeholder keeping kube's field order; storage sets it
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  delete meta.managedFields;
  // Kinds without a generation keep the one a client sent (kube's BeforeCreate leaves it;
  // validation refuses a negative one); an update keeps the stored one (systemMeta).
  if (tracksGeneration(def)) meta.generation = 1;
  else if (!meta.generation) delete meta.generation;
  if (Array.isArray(meta.finalizers) && meta.finalizers.length === 0) delete meta.finalizers;
}

/**
 * With a status subresource, a create may not set status: kube's PrepareForCreate resets it to
 * the kind's zero status, which Go's encoding writes with the fields that have no omitempty (a
 * Service's `loadBalancer: {}`, a ReplicaSet's `replicas: 0`) and what the strategy sets (a
 * claim's phase). Kinds not listed have no status until someone writes one.
 */
export function dropStatusOnCreate(def: ResourceDefinition, obj: Obj): void {
  if (!def.statusSubresource || keepsStatusOnCreate(def)) return;
  const zero = def.crdName ? undefined : createdStatus[`${def.group}/${def.kind}`];
  if (zero) obj.status = zero();
  else delete obj.status;
}

// As kube-apiserver v1.26 answers a create (recorded against it); the group is "" for core kinds.
const createdStatus: Readonly<Record<string, () => Obj>> = {
  "/Service": () => ({ loadBalancer: {} }),
  "/PersistentVolumeClaim": () => ({ phase: "Pending" }),
  "apps/Deployment": () => ({}),
  "apps/ReplicaSet": () => ({ replicas: 0 }),
  "apps/StatefulSet": () => ({ replicas: 0, availableReplicas: 0 }),
  "apps/DaemonSet": () => ({
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
  }),
  "batch/Job": () => ({}),
};

// Kinds whose create keeps a client-set status (kube's nodeStrategy; CRDs get theirs from the server).
function keepsStatusOnCreate(def: ResourceDefinition): boolean {
  return def.group === "" && def.kind === "Node";
}

const systemMeta = [
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
];

/** What a write through /status may change in metadata: all kube's status strategies let. */
const STATUS_METADATA = ["labels", "annotations", "finalizers", "ownerReferences"];

/**
 * The metadata fields a write through /status may change. kube's status strategies differ by
 * kind: custom resources, VolumeAttachments, ServiceCIDRs, DeviceTaintRules, StorageVersionMigrations
 * and the flowcontrol kinds keep all metadata
 * (ResetObjectMetaForStatus or the whole ObjectMeta); a Deployment keeps its labels, a Pod its
 * owner references; the other built-ins take the request's metadata, a CRD's too (its strategy
 * resets its metadata to itself, as recorded from kube-apiserver 1.37.2).
 */
export function statusWritableMetadata(def: ResourceDefinition): readonly string[] {
  if (def.crdName) return [];
  switch (`${def.group}/${def.kind}`) {
    case "storage.k8s.io/VolumeAttachment":
    case "networking.k8s.io/ServiceCIDR":
    case "resource.k8s.io/DeviceTaintRule":
    case "storagemigration.k8s.io/StorageVersionMigration":
    case "flowcontrol.apiserver.k8s.io/FlowSchema":
    case "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration":
      return [];
    case "apps/Deployment":
      return STATUS_METADATA.filter((k) => k !== "labels");
    case "/Pod":
      return STATUS_METADATA.filter((k) => k !== "ownerReferences");
    default:
      return STATUS_METADATA;
  }
}

/** Into `next` (a copy of the stored object): the request's resourceVersion and the metadata a status write may change. */
function takeStatusWritableMetadata(def: ResourceDefinition, next: Obj, request: Obj): void {
  const meta = next.metadata as Obj;
  const given = (request.metadata ?? {}) as Obj;
  meta.resourceVersion = given.resourceVersion;
  for (const k of statusWritableMetadata(def)) {
    if (given[k] === undefined) delete meta[k];
    else meta[k] = given[k];
  }
}

/**
 * Carries over what an update may not change and isolates status: through the main endpoint
 * `status` keeps its stored value; through /status only `status` changes (generation: see
 * bumpGeneration).
 */
export function prepareForUpdate(
  def: ResourceDefinition,
  oldObj: Readonly<Obj>,
  obj: Obj,
  subresource: string,
): Obj {
  const oldMeta = oldObj.metadata as Obj;
  let next: Obj;
  if (subresource === "approval") {
    // A CertificateSigningRequest's approval changes its conditions and nothing else of status.
    next = cloneJson(oldObj) as Obj;
    const conditions = (obj.status as Obj | undefined)?.conditions;
    const status = { ...((next.status as Obj | undefined) ?? {}) };
    if (conditions === undefined) delete status.conditions;
    else status.conditions = conditions;
    next.status = status;
    takeStatusWritableMetadata(def, next, obj);
  } else if (subresource === "ephemeralcontainers") {
    // Only a Pod's ephemeral containers change (dropNonEphemeralContainerUpdates).
    next = cloneJson(oldObj) as Obj;
    const given = (obj.spec as Obj | undefined)?.ephemeralContainers;
    const spec = next.spec as Obj;
    if (given === undefined) delete spec.ephemeralContainers;
    else spec.ephemeralContainers = given;
    (next.metadata as Obj).resourceVersion = (obj.metadata as Obj | undefined)?.resourceVersion;
  } else if (subresource === "resize") {
    next = podResize(oldObj, obj);
  } else if (subresource === "status") {
    next = cloneJson(oldObj) as Obj;
    if (obj.status === undefined) delete next.status;
    else next.status = obj.status;
    takeStatusWritableMetadata(def, next, obj);
  } else {
    next = obj;
    if (def.statusSubresource) {
      if (oldObj.status === undefined) delete next.status;
      else next.status = cloneJson(oldObj.status);
    }
  }
  const meta = next.metadata as Obj;
  meta.name = oldMeta.name;
  if (def.namespaced) meta.namespace = oldMeta.namespace;
  else delete meta.namespace;
  for (const k of systemMeta) {
    if (oldMeta[k] === undefined) delete meta[k];
    else meta[k] = oldMeta[k];
  }
  delete meta.selfLink;
  if (meta.generateName === undefined && oldMeta.generateName !== undefined)
    meta.generateName = oldMeta.generateName;
  if (Array.isArray(meta.finalizers) && meta.finalizers.length === 0) delete meta.finalizers;
  return next;
}

/**
 * Bumps generation when anything outside metadata and status changed. Called once defaults are
 * in, as kube compares decoded (so defaulted) objects: an update that leaves out a defaulted
 * field changes nothing.
 */
/**
 * Metadata whose change also bumps a kind's generation (its strategy's PrepareForUpdate): a
 * Deployment's annotations (copied to its ReplicaSets), an EndpointSlice's labels.
 */
const GENERATION_METADATA: Readonly<Record<string, string>> = {
  "apps/Deployment": "annotations",
  "discovery.k8s.io/EndpointSlice": "labels",
};

export function bumpGeneration(def: ResourceDefinition, oldObj: Readonly<Obj>, next: Obj): void {
  if (!tracksGeneration(def)) return;
  const also = def.crdName ? undefined : GENERATION_METADATA[`${def.group}/${def.kind}`];
  const metaChanged =
    also !== undefined &&
    !deepEqual(
      (oldObj.metadata as Obj | undefined)?.[also] ?? {},
      (next.metadata as Obj | undefined)?.[also] ?? {},
    );
  if (!metaChanged && !specChanged(oldObj, next)) return;
  const meta = next.metadata as Obj;
  meta.generation = (((oldObj.metadata as Obj).generation as number | undefined) ?? 0) + 1;
}

/** Whether anything outside metadata and status differs. */
export function specChanged(a: Readonly<Obj>, b: Readonly<Obj>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (k === "metadata" || k === "status" || k === "apiVersion" || k === "kind") continue;
    if (!deepEqual(a[k], b[k])) return true;
  }
  return false;
}

/** Whether an update changes nothing but the resourceVersion and managedFields: then it is a no-op. */
export function unchanged(a: Readonly<Obj>, b: Readonly<Obj>): boolean {
  const strip = (o: Readonly<Obj>): Obj => {
    const meta = { ...(o.metadata as Obj) };
    delete meta.resourceVersion;
    delete meta.managedFields;
    return { ...o, metadata: meta };
  };
  return deepEqual(strip(a), strip(b));
}

export function deepEqual(a: unknown, b: unknown): boolean {
  // Iterative: objects may nest 10 000 levels deep.
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const yy = y as unknown[];
      if (x.length !== yy.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], yy[i]]);
      continue;
    }
    const xo = x as Obj;
    const yo = y as Obj;
    const xk = Object.keys(xo).filter((k) => xo[k] !== undefined);
    const yk = Object.keys(yo).filter((k) => yo[k] !== undefined);
    if (xk.length !== yk.length) return false;
    for (const k of xk) stack.push([xo[k], yo[k]]);
  }
  return true;
}
