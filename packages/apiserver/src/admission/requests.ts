// Admission around the synchronous write path. kube runs the mutating webhooks on the object the
// client sent (after decoding and defaulting), then the server's own preparation and validation,
// then the validating webhooks on the object about to be stored. The write path here is
// synchronous, so a write that webhooks select goes in two passes: a dry run of the whole write
// gives the object to validate, then the same write commits, provided that nothing changed the
// stored object meanwhile (else 409 Conflict, as for any stale write).
import type { ManagedFieldsEntry } from "kubernetes-types/meta/v1.js";
import { kindBehaviour } from "../kinds/index.js";
import type { ResourceRequest } from "../handlers/context.js";
import { refOf } from "../handlers/context.js";
import type { DeleteOptions } from "../handlers/finalize.js";
import {
  checkFields,
  checkTypeMeta,
  commitUpdate,
  decodeBuiltin,
  isDryRun,
  type UpdateResult,
} from "../handlers/write.js";
import { type ResourceDefinition, storeNameOf } from "../registry/index.js";
import { applyDefaults, pruneObject } from "../schema/index.js";
import { conflict, notFound, staleObjectMessage } from "../status.js";
import type { Obj, StoredObject } from "../storage/index.js";
import type { AdmissionAttributes, Operation } from "./types.js";
import { cloneJson } from "../object/deep-json.js";
import { addWarnings } from "../http-io.js";

type Headers = Record<string, string | string[]> | undefined;
/** createObject of handlers/create.ts, passed in to keep the import graph acyclic. */
export type CreateFn = (
  r: ResourceRequest,
  obj: Obj,
  text: string | undefined,
) => { json: string; headers: Headers; source?: Obj };

/** The same request, forced to dry run: the first pass of a write under admission. */
function asDryRun(r: ResourceRequest): ResourceRequest {
  if (r.query.has("dryRun")) return r;
  const query = new URLSearchParams(r.query);
  query.append("dryRun", "All");
  return { ...r, query };
}

function optionsObject(kind: string, r: ResourceRequest): Obj {
  const out: Obj = { kind, apiVersion: "meta.k8s.io/v1" };
  const dryRun = r.query.getAll("dryRun");
  if (dryRun.length > 0) out.dryRun = dryRun;
  const fm = r.query.get("fieldManager");
  if (fm) out.fieldManager = fm;
  const fv = r.query.get("fieldValidation");
  if (fv) out.fieldValidation = fv;
  return out;
}

function attributes(
  r: ResourceRequest,
  operation: Operation,
  object: Obj | undefined,
  oldObject: Readonly<Obj> | undefined,
  options: Obj,
  dryRun: boolean,
  name = r.name,
): AdmissionAttributes {
  const isNamespace = r.def.group === "" && r.def.plural === "namespaces" && !r.def.crdName;
  const objectName = (object?.metadata as Obj | undefined)?.name;
  const effectiveName = name || (operation === "CREATE" && typeof objectName === "string" ? objectName : "");
  return {
    def: r.def,
    operation,
    namespace: isNamespace ? effectiveName : r.namespace,
    name: effectiveName,
    subresource: r.subresource,
    object,
    oldObject,
    options,
    dryRun,
    user: { name: r.user.name, groups: [...r.user.groups] },
    defaults: (def, obj) => objectDefaults(r, def, obj, oldObject),
  };
}

// kube decodes with defaulting before admission: webhooks see decoded, defaulted objects (a
// built-in's without the zeros Go leaves out: no `paused: false`).
function decodeDefaults(r: ResourceRequest, obj: Obj, old: Readonly<Obj> | undefined): void {
  if (r.def.crdName && r.def.schema) pruneObject(r.def, obj, { objectMeta: r.server.objectMetaSchema() });
  else if (r.def.schema) decodeBuiltin(r, obj);
  objectDefaults(r, r.def, obj, old);
}

/** The defaults of the kind in the version `def`: a CRD's schema defaults, a built-in kind's own. */
function objectDefaults(
  r: ResourceRequest,
  def: ResourceDefinition,
  obj: Obj,
  old: Readonly<Obj> | undefined,
): void {
  if (def.crdName && def.schema) applyDefaults(def, obj);
  kindBehaviour(def).defaults?.(obj, { old, server: r.server });
}

/**
 * Warning headers for the webhooks' warnings; on a failed request they go out with the Status.
 * Each text once, as kube's warning recorder writes them: a webhook called again (reinvocation)
 * that warns the same does not repeat it.
 */
function warningValues(warnings: readonly string[]): string[] {
  return [...new Set(warnings)].map((w) => `299 - ${JSON.stringify(w)}`);
}

function sendWarningsWithError(r: ResourceRequest, warnings: readonly string[]): void {
  if (warnings.length > 0 && !r.res.headersSent) addWarnings(r.res, warningValues(warnings));
}

function mergeWarnings(headers: Headers, warnings: readonly string[]): Headers {
  if (warnings.length === 0) return headers;
  const prior = headers?.Warning;
  const before = prior === undefined ? [] : Array.isArray(prior) ? prior : [prior];
  return { ...(headers ?? {}), Warning: [...new Set([...before, ...warningValues(warnings)])] };
}

/** A create (POST, or apply of a missing object) through the admission webhooks. */
export async function createWithAdmission(
  r: ResourceRequest,
  obj: Obj,
  text: string | undefined,
  create: CreateFn,
): Promise<{ json: string; headers: Headers; source?: Obj }> {
  const admission = r.server.admission;
  if (!admission) return create(r, obj, text);
  // What kube rejects while decoding is rejected before any webhook is called.
  checkTypeMeta(r, obj, text);
  const meta = obj.metadata as Obj;
  if (r.def.namespaced && (meta.namespace === undefined || meta.namespace === ""))
    meta.namespace = r.namespace;
  const dryRun = isDryRun(r);
  if (!admission.hasWebhooks()) return create(r, obj, text);
  const attrs = attributes(r, "CREATE", obj, undefined, optionsObject("CreateOptions", r), dryRun);
  if (!admission.interested(attrs) || (r.def.namespaced && meta.namespace !== r.namespace)) {
    return create(r, obj, text);
  }
  checkFields(r, cloneJson(obj), text);
  decodeDefaults(r, obj, undefined);
  const warnings: string[] = [];
  try {
    const mutated = (await admission.mutate(attrs, warnings)) ?? obj;
    const plan = create(asDryRun(r), cloneJson(mutated), text);
    const planned = JSON.parse(plan.json) as Obj;
    await admission.validate({ ...attrs, object: planned }, warnings);
    if (dryRun) return { ...plan, headers: mergeWarnings(plan.headers, warnings) };
    // The name generated in the first pass is the one the validating webhooks saw.
    const mutatedMeta = mutated.metadata as Obj;
    if (!mutatedMeta.name) mutatedMeta.name = (planned.metadata as Obj).name;
    const done = create(r, mutated, text);
    return { ...done, headers: mergeWarnings(done.headers, warnings) };
  } catch (e) {
    sendWarningsWithError(r, warnings);
    throw e;
  }
}

/**
 * An update (PUT, patch, apply of an existing object) through the admission webhooks: the same
 * contract as `commitUpdate`, whose `warnings` receive the webhooks' warnings.
 */
export async function updateWithAdmission(
  r: ResourceRequest,
  current: StoredObject,
  candidate: Obj,
  warnings: string[],
  applied?: readonly ManagedFieldsEntry[],
): Promise<UpdateResult> {
  const admission = r.server.admission;
  if (!admission) return commitUpdate(r, current, candidate, warnings, applied);
  const dryRun = isDryRun(r);
  if (!admission.hasWebhooks()) return commitUpdate(r, current, candidate, warnings, applied);
  const attrs = attributes(r, "UPDATE", candidate, current.obj, optionsObject("UpdateOptions", r), dryRun);
  if (!admission.interested(attrs)) return commitUpdate(r, current, candidate, warnings, applied);
  decodeDefaults(r, candidate, current.obj);
  const own: string[] = [];
  try {
    const mutated = (await admission.mutate(attrs, own)) ?? candidate;
    const plan = commitUpdate(asDryRun(r), current, cloneJson(mutated), [], applied);
    await admission.validate({ ...attrs, object: JSON.parse(plan.json) as Obj }, own);
    warnings.push(...own);
    if (dryRun) return plan;
    const fresh = r.server.storage.get(storeNameOf(r.def), current.key);
    if (!fresh) throw notFound(refOf(r.def), r.name);
    if (fresh.rv !== current.rv) throw conflict(refOf(r.def), r.name, staleObjectMessage);
    return commitUpdate(r, current, mutated, warnings, applied);
  } catch (e) {
    sendWarningsWithError(r, [...warnings, ...own]);
    throw e;
  }
}

function deleteOptionsObject(opts: DeleteOptions): Obj {
  const out: Obj = { kind: "DeleteOptions", apiVersion: "meta.k8s.io/v1" };
  if (opts.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (opts.preconditions) out.preconditions = opts.preconditions;
  if (opts.propagationPolicy) out.propagationPolicy = opts.propagationPolicy;
  if (opts.dryRun) out.dryRun = ["All"];
  return out;
}

/**
 * A delete through the admission webhooks, which see the stored object as `oldObject`. Answers the stored object to delete, read again
 * after the calls. `name` is the item's for deletecollection.
 */
export async function deleteWithAdmission(
  r: ResourceRequest,
  current: StoredObject,
  opts: DeleteOptions,
  name = r.name,
): Promise<StoredObject> {
  const admission = r.server.admission;
  if (!admission) return current;
  if (!admission.hasWebhooks()) return current;
  const dryRun = opts.dryRun === true;
  const attrs = attributes(r, "DELETE", undefined, current.obj, deleteOptionsObject(opts), dryRun, name);
  if (!admission.interested(attrs)) return current;
  const warnings: string[] = [];
  try {
    await admission.mutate(attrs, warnings);
    await admission.validate(attrs, warnings);
  } catch (e) {
    sendWarningsWithError(r, warnings);
    throw e;
  }
  sendWarningsWithError(r, warnings);
  const fresh = r.server.storage.get(storeNameOf(r.def), current.key);
  if (!fresh) throw notFound(refOf(r.def), name);
  return fresh;
}
