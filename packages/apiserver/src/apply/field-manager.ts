// kube-apiserver's FieldManager over whole objects: reads and writes metadata.managedFields
// around the updater, picks the fields an endpoint resets, and turns errors into what kube
// answers (an Update that cannot be tracked drops managedFields rather than failing).
import type { ManagedFieldsEntry } from "kubernetes-types/meta/v1.js";
import { deepEqual, statusWritableMetadata } from "../object/meta.js";
import type { ResourceDefinition } from "../registry/index.js";
import { ApplyConflictError } from "./conflict.js";
import { encodeStruct, goDefinitionOf, goEncodingAdds, zeroStruct } from "../object/go-encoding.js";
import { createdFieldsV1 } from "./created-fields.js";
import { deepFreeze } from "../storage/frozen-trees.js";
import { type FieldsV1, FieldsV1Error } from "./fields-v1.js";
import {
  conflictsBeyondLastApplied,
  hasLastApplied,
  KUBECTL_MANAGER,
  setLastApplied,
} from "./last-applied.js";
import { ApplyTypeError } from "./list-items.js";
import { decodeManagedFields, encodeManagedFields, type Managers } from "./managers.js";
import type { Json, PathElement } from "./path-element.js";
import type { TypeModels } from "./type-model.js";
import { applyConfiguration, type OwnershipContext, recordUpdate } from "./updater.js";

type Obj = Record<string, unknown>;

const BEFORE_FIRST_APPLY = "before-first-apply";

export interface WriteContext {
  readonly def: ResourceDefinition;
  /** The endpoint's apiVersion (`apps/v1`). */
  readonly apiVersion: string;
  /** "" or `status`. */
  readonly subresource: string;
  /** RFC 3339 with seconds. */
  readonly time: string;
  /** The server's object types, built once per definition. */
  readonly types: TypeModels;
}

/**
 * Fields a write through this endpoint does not own: `status` on the main resource of a kind
 * with a status subresource, everything but `status` through /status.
 */
function ignoredFields(def: ResourceDefinition, subresource: string): (pe: PathElement) => boolean {
  if (subresource === "approval")
    return (pe) => !("field" in pe && ["status", "metadata"].includes(pe.field));
  if (subresource === "ephemeralcontainers" || subresource === "resize")
    return (pe) => !("field" in pe && pe.field === "spec");
  if (subresource === "status") {
    // Metadata a status write may change is owned by its manager, as kube's reset fields say.
    const owned = statusWritableMetadata(def).length > 0 ? ["status", "metadata"] : ["status"];
    return (pe) => !("field" in pe && owned.includes(pe.field));
  }
  // A CertificateSigningRequest's spec is its requester's, set by the server (kube's reset
  // fields for the main resource: spec and status).
  if (isCSR(def)) return (pe) => "field" in pe && (pe.field === "spec" || pe.field === "status");
  if (def.statusSubresource) return (pe) => "field" in pe && pe.field === "status";
  return () => false;
}

export function ownershipContext(w: WriteContext): OwnershipContext {
  return {
    type: w.types.of(w.def),
    apiVersion: w.apiVersion,
    subresource: w.subresource,
    ignored: ignoredFields(w.def, w.subresource),
    reset: isCSR(w.def) && w.subresource === "status" ? CSR_STATUS_RESET : undefined,
    time: w.time,
  };
}

const isCSR = (def: ResourceDefinition) =>
  def.group === "certificates.k8s.io" && def.kind === "CertificateSigningRequest";

/** What a CSR's /status resets below status: its conditions are /approval's. */
const CSR_STATUS_RESET: readonly PathElement[][] = [[{ field: "status" }, { field: "conditions" }]];

function withoutManagedFields(obj: Obj): Record<string, Json> {
  const meta = obj.metadata;
  if (meta === null || typeof meta !== "object" || !("managedFields" in meta))
    return obj as Record<string, Json>;
  const { managedFields: _, ...rest } = meta as Obj;
  return { ...obj, metadata: rest } as Record<string, Json>;
}

function decodeOrEmpty(entries: unknown): Managers {
  try {
    return decodeManagedFields(entries);
  } catch (e) {
    if (e instanceof FieldsV1Error) return new Map();
    throw e;
  }
}

function managedFieldsOf(obj: Obj | undefined): unknown {
  return (obj?.metadata as Obj | undefined)?.managedFields;
}

/**
 * managedFields after an Update (create, update, non-apply patch) by `manager` turned `oldObj`
 * into `newObj` (undefined on create). Managed fields the request sets itself are the starting
 * point, as in kube, unless empty or invalid or written through a subresource.
 */
export function updatedManagedFields(
  oldObj: Readonly<Obj> | undefined,
  written: Readonly<Obj>,
  manager: string,
  w: WriteContext,
): ManagedFieldsEntry[] {
  // kube compares the objects as Go decoded them: what Go writes unset is there, and counted
  // where it was not before (a condition's unset times are nulls its writer owns). The stored
  // object is written so already.
  const short = w.def.crdName ? undefined : goDefinitionOf(w.def.group, w.def.version, w.def.kind);
  const newObj = short && goEncodingAdds(short) ? encodeStruct(short, written as Obj, true) : written;
  let managers: Managers | undefined;
  const given = managedFieldsOf(newObj);
  const previous = managedFieldsOf(oldObj);
  // Nothing changed and no new managedFields given: ownership stays as it is.
  if (
    oldObj &&
    Array.isArray(previous) &&
    (given === undefined || deepEqual(given, previous)) &&
    deepEqual(withoutManagedFields(oldObj), withoutManagedFields(newObj))
  ) {
    return previous as ManagedFieldsEntry[];
  }
  if (w.subresource === "" && Array.isArray(given) && given.length > 0) {
    try {
      managers = decodeManagedFields(given);
    } catch (e) {
      if (!(e instanceof FieldsV1Error)) throw e;
    }
  }
  if (!oldObj && !managers) return createdEntries(newObj, manager, w);
  managers ??= decodeOrEmpty(previous);
  // kube's skipNonAppliedManager: an object that exists without managedFields gets none from an
  // update (an apply, or managedFields the request sets, starts tracking again).
  if (oldObj && managers.size === 0) return [];
  const before = oldObj
    ? withoutManagedFields(oldObj)
    : { apiVersion: newObj.apiVersion, kind: newObj.kind, ...emptyObject(w.def) };
  try {
    const next = recordUpdate(
      before as Record<string, Json>,
      withoutManagedFields(newObj),
      managers,
      manager,
      ownershipContext(w),
    );
    return encodeManagedFields(next);
  } catch (e) {
    // kube drops managedFields when it cannot track an update rather than failing the write.
    if (e instanceof ApplyTypeError) return [];
    throw e;
  }
}

/** The kind's empty object as Go writes it, without metadata (its members are stripped anyway). */
export function emptyObject(def: WriteContext["def"]): Obj {
  const short = def.crdName ? undefined : goDefinitionOf(def.group, def.version, def.kind);
  if (!short) return {};
  const { metadata: _m, ...zero } = zeroStruct(short);
  return zero;
}

/** emptyObject by Go type, frozen: a create compares against it and never changes it. */
const frozenEmptyObjects = new Map<string, Readonly<Obj>>();
/** A custom resource's empty object. */
const EMPTY: Readonly<Obj> = Object.freeze({});

function frozenEmptyObject(def: WriteContext["def"]): Readonly<Obj> {
  const short = def.crdName ? undefined : goDefinitionOf(def.group, def.version, def.kind);
  if (!short) return EMPTY;
  let zero = frozenEmptyObjects.get(short);
  if (!zero) {
    zero = emptyObject(def);
    deepFreeze(zero);
    frozenEmptyObjects.set(short, zero);
  }
  return zero;
}

/** An Update that creates an object with no managers given: one entry, built without set algebra. */
function createdEntries(newObj: Readonly<Obj>, manager: string, w: WriteContext): ManagedFieldsEntry[] {
  let fieldsV1: FieldsV1 | undefined;
  try {
    fieldsV1 = createdFieldsV1(
      withoutManagedFields(newObj),
      w.types.of(w.def),
      ignoredFields(w.def, w.subresource),
      frozenEmptyObject(w.def) as Record<string, Json>,
    );
  } catch (e) {
    if (e instanceof ApplyTypeError) return [];
    throw e;
  }
  if (!fieldsV1) return [];
  // encodeManagedFields's field order: manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource.
  const e: ManagedFieldsEntry = {};
  if (manager) e.manager = manager;
  e.operation = "Update";
  if (w.apiVersion) e.apiVersion = w.apiVersion;
  if (w.time) e.time = w.time;
  e.fieldsType = "FieldsV1";
  e.fieldsV1 = fieldsV1;
  if (w.subresource) e.subresource = w.subresource;
  return [e];
}

export interface AppliedObject {
  /** The merged object, without managedFields. */
  object: Obj;
  managedFields: ManagedFieldsEntry[];
  /** Whether the object changed (apart from managedFields). */
  changed: boolean;
}

/**
 * Applies `config` to `live` (undefined: create) for `manager`. Throws ApplyConflictError and
 * ApplyTypeError.
 */
export function applyToObject(
  live: Readonly<Obj> | undefined,
  config: Readonly<Obj>,
  manager: string,
  force: boolean,
  w: WriteContext,
): AppliedObject {
  let managers = decodeOrEmpty(managedFieldsOf(live));
  const base = (
    live ? withoutManagedFields(live) : { apiVersion: config.apiVersion, kind: config.kind }
  ) as Record<string, Json>;
  const cfg = config as Record<string, Json>;
  const ctx = ownershipContext(w);
  if (live && managers.size === 0) {
    // kube's skipNonAppliedManager: an object nobody owns is first owned, as an Update from the
    // kind's empty object, by `before-first-apply`, so that the apply takes nothing silently.
    const empty = { apiVersion: base.apiVersion, kind: base.kind, ...emptyObject(w.def) } as Record<
      string,
      Json
    >;
    try {
      managers = recordUpdate(empty, base, managers, BEFORE_FIRST_APPLY, ctx);
    } catch (e) {
      if (!(e instanceof ApplyTypeError)) throw e;
    }
  }
  let result: ReturnType<typeof applyConfiguration>;
  try {
    result = applyConfiguration(base, cfg, managers, manager, force, ctx);
  } catch (e) {
    // kubectl moving an object from client-side apply: conflicts the annotation explains are forced.
    if (!(e instanceof ApplyConflictError) || manager !== KUBECTL_MANAGER) throw e;
    const remaining = conflictsBeyondLastApplied(base, e.conflicts, ctx.type);
    if (remaining === undefined) throw e;
    if (remaining.length > 0) throw new ApplyConflictError(remaining);
    result = applyConfiguration(base, cfg, managers, manager, true, ctx);
  }
  const object = result.object as Obj;
  if (manager === KUBECTL_MANAGER && hasLastApplied(base)) {
    setLastApplied(object as Record<string, Json>, cfg);
  }
  return { object, managedFields: encodeManagedFields(result.managers), changed: result.changed };
}
