// The write path shared by create, update and patch: decoding, type checks, field validation
// (Strict/Warn/Ignore), pruning and defaulting, validation, and the commit with the metadata
// rules, managedFields, no-op detection and finalization of objects being deleted.
import type { ManagedFieldsEntry, StatusCause } from "kubernetes-types/meta/v1.js";
import { decodeBodyRead, mediaType, summarizeData } from "../http-io.js";
import { jsonTypeName } from "./patch-decoding.js";
import { kindBehaviour } from "../kinds/index.js";
import type { WriteEffects } from "../kinds/behaviour.js";
import { unknownTopLevelFields } from "../kinds/index.js";
import { managerName, updateManagedFields } from "../object/managed-fields.js";
import {
  apiVersionOfDef,
  deepEqual,
  kubeTime,
  normalizeOrder,
  prepareForUpdate,
  unchanged,
  bumpGeneration,
  tracksGeneration,
  validateMeta,
} from "../object/meta.js";
import { celRules, protobufCodec } from "../lazy.js";
import { schemaHasRules } from "../schema/has-rules.js";
import { PROTOBUF } from "../protobuf/media-type.js";
import { storeNameOf } from "../registry/index.js";
import {
  applyDefaults,
  dropEmptyOptionalMaps,
  findUnknownFields,
  goTypeError,
  pruneObject,
  schemaOf,
  validateObject,
} from "../schema/index.js";
import {
  ApiError,
  badRequest,
  cause,
  conflict,
  invalid,
  staleObjectMessage,
  unsupportedMediaType,
} from "../status.js";
import type { Obj, StoredObject } from "../storage/index.js";
import { refOf, type ResourceRequest } from "./context.js";
import { finalizeIfDone } from "./finalize.js";
import { stringifyJson } from "../object/deep-json.js";
import { customResourceFinalizerWarnings, dedupOwnerReferences } from "../object/meta-lists.js";
import { admitResourceQuota } from "../admission/resource-quota.js";

export const bodyMediaTypes = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/** A protobuf body's object, or kube's 400 for one that does not decode. */
export function decodeProtobufBody(body: Buffer, apiVersion: string, kind: string): Obj {
  const { decodeProtobuf, ProtobufError } = protobufCodec.get();
  try {
    return decodeProtobuf(body, { apiVersion, kind });
  } catch (e) {
    if (!(e instanceof ProtobufError)) throw e;
    throw badRequest(`the object provided is unrecognized (must be of type ${kind}): ${e.message}`);
  }
}

/** Whether the request's body is read as protobuf: a built-in kind's, sent in kube's protobuf media type. */
function protobufBody(r: ResourceRequest, ct = mediaType(r.req.headers["content-type"])): boolean {
  return ct === PROTOBUF && !r.def.crdName;
}

/** Decodes a create/update body into an object, with kube's 400/415 answers. */
export function decodeObject(r: ResourceRequest, body: Buffer): { obj: Obj; text: string | undefined } {
  const ct = mediaType(r.req.headers["content-type"]);
  if (protobufBody(r, ct)) {
    return { obj: decodeProtobufBody(body, apiVersionOfDef(r.def), r.def.kind), text: undefined };
  }
  if (ct !== "" && ct !== "application/json" && ct !== "application/yaml") {
    throw unsupportedMediaType(bodyMediaTypes);
  }
  const text = body.toString("utf8");
  const yaml = ct === "application/yaml";
  const read = decodeBodyRead(text, yaml ? ct : "application/json", r.def.kind);
  const { duplicates } = read;
  // null (an empty YAML body too) decodes into a built-in kind as an empty object; a custom
  // resource's unstructured decoding needs a kind.
  const value = read.value === null && !r.def.crdName ? {} : read.value;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    // kube reads the kind first (its meta.Interpret): null has none, anything else is not a struct.
    const why =
      value === null
        ? `Object 'Kind' is missing in '${text}'`
        : `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(value)} into Go value of type ${TYPE_META_STRUCT}`;
    throw badRequest(
      `the object provided is unrecognized (must be of type ${r.def.kind}): ${why} (${summarizeData(text)})`,
    );
  }
  // A YAML body's repeated keys are go-yaml's to report (checkFields); JSON's are found in its text.
  if (yaml) yamlDuplicates.set(r.req, duplicates);
  else jsonBodies.set(r.req, text);
  return { obj: value as Obj, text: yaml ? undefined : text };
}

/** The Go type kube reads a body's kind into, as encoding/json names it. */
const TYPE_META_STRUCT =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** A request's JSON body, by request: Go's decoding error quotes a refused number's literal. */
const jsonBodies = new WeakMap<object, string>();

/** The repeated keys of a request's YAML body, by request (its dry-run copies share it). */
const yamlDuplicates = new WeakMap<object, string[]>();

/** kube's summarizeData: at most 30 bytes of the body, then " ...". */
function summarizeBody(text: string): string {
  return text.length > 30 ? `${text.slice(0, 30)} ...` : text;
}

/**
 * A custom resource's body is decoded as unstructured: kube needs its kind, and takes only the
 * URL's apiVersion (no other version of the CRD, served or not); a wrong kind is a validation
 * error of the field. Built-in kinds are decoded into their type, which fills a missing kind.
 */
function checkCustomTypeMeta(r: ResourceRequest, obj: Obj, text: string | undefined, expected: string): void {
  if (obj.kind === undefined || obj.kind === "" || obj.kind === null) {
    const body = text ?? stringifyJson(obj);
    throw badRequest(
      `the object provided is unrecognized (must be of type ${r.def.kind}): Object 'Kind' is missing in '${body}' (${summarizeBody(body)})`,
    );
  }
  if (obj.apiVersion !== expected) {
    const given = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
    throw badRequest(
      `the API version in the data (${given}) does not match the expected API version (${expected})`,
    );
  }
  if (obj.kind !== r.def.kind) {
    const meta = obj.metadata;
    const name =
      meta !== null && typeof meta === "object" && typeof (meta as Obj).name === "string"
        ? (meta as Obj).name
        : "";
    throw invalid({ group: r.def.group, resource: r.def.plural, kind: String(obj.kind) }, String(name), [
      cause.invalid("kind", obj.kind, `must be ${r.def.kind}`),
    ]);
  }
}

/** Kinds every served group version registers beside its resources' (metav1.AddToGroupVersion). */
const META_KINDS = new Set([
  "Status",
  "WatchEvent",
  "ListOptions",
  "GetOptions",
  "DeleteOptions",
  "CreateOptions",
  "UpdateOptions",
  "PatchOptions",
]);

/** Whether kube's scheme knows the kind in `apiVersion`: a served kind, its list, or a meta kind. */
function registered(r: ResourceRequest, group: string, version: string, kind: string): boolean {
  if (group === "meta.k8s.io" && version === "v1") return META_KINDS.has(kind);
  const defs = r.server.registry.inGroupVersion(group, version);
  if (defs.length === 0) return false;
  return (
    META_KINDS.has(kind) || defs.some((d) => !d.crdName && (d.kind === kind || `${d.kind}List` === kind))
  );
}

/** The Go package of a built-in kind's internal type, as kube names it in a conversion error. */
function internalPackage(group: string): string {
  return group === "" || group === "events.k8s.io" ? "core" : group.split(".")[0]!;
}

/**
 * A built-in body's apiVersion and kind as kube's decoder reads them into the URL's type: they
 * must be strings; a missing one is the URL's; a kind the scheme knows in that version cannot be
 * converted to this one, and one it does not know is not registered.
 */
function checkBuiltinTypeMeta(
  r: ResourceRequest,
  obj: Obj,
  text: string | undefined,
  expected: string,
): void {
  const want = r.def.kind;
  for (const field of ["apiVersion", "kind"] as const) {
    const v = obj[field];
    if (v !== undefined && v !== null && typeof v !== "string") {
      throw badRequest(
        `the object provided is unrecognized (must be of type ${want}): couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(v)} into Go struct field .${field} of type string (${summarizeBody(text ?? stringifyJson(obj))})`,
      );
    }
  }
  const apiVersion = typeof obj.apiVersion === "string" && obj.apiVersion !== "" ? obj.apiVersion : expected;
  const kind = typeof obj.kind === "string" && obj.kind !== "" ? obj.kind : want;
  if (apiVersion === expected && kind === want) return;
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  // The same kind in another version its scheme knows (a served one, a beta or alpha it still
  // compiles in, extensions/v1beta1's): decoded, then refused for its version.
  const knownVersion =
    kind === want &&
    (group === r.def.group || group === "extensions") &&
    (/^v\d+(alpha|beta)\d+$/.test(version) || r.server.registry.inGroupVersion(group, version).length > 0);
  if (knownVersion) {
    throw badRequest(
      `the API version in the data (${apiVersion}) does not match the expected API version (${expected})`,
    );
  }
  const prefix = `${kind} in version "${version}" cannot be handled as a ${want}`;
  if (registered(r, group, version, kind)) {
    throw badRequest(
      `${prefix}: converting (${version}.${kind}) to (${internalPackage(r.def.group)}.${want}): unknown conversion`,
    );
  }
  throw badRequest(
    `${prefix}: no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:111"`,
  );
}

/** Fills apiVersion/kind and rejects a body meant for another type. */
export function checkTypeMeta(r: ResourceRequest, obj: Obj, text?: string): void {
  const expected = apiVersionOfDef(r.def);
  if (r.def.crdName) checkCustomTypeMeta(r, obj, text, expected);
  else checkBuiltinTypeMeta(r, obj, text, expected);
  obj.apiVersion = expected;
  obj.kind = r.def.kind;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (typeof obj.metadata !== "object" || Array.isArray(obj.metadata)) {
    const detail = r.def.crdName
      ? "metadata must be an object"
      : `json: cannot unmarshal ${jsonTypeName(obj.metadata)} into Go struct field ${r.def.kind}.metadata of type v1.ObjectMeta`;
    throw badRequest(
      `${r.def.kind} in version "${r.def.version}" cannot be handled as a ${r.def.kind}: ${detail}`,
    );
  }
}

export type FieldValidation = "Strict" | "Warn" | "Ignore";

/** The request's `fieldValidation` (Warn when absent, as kube defaults it). */
export function fieldValidationMode(r: ResourceRequest): FieldValidation {
  // Unset or empty is the default; validateWriteOptions refused any other value before.
  return (r.query.get("fieldValidation") || "Warn") as FieldValidation;
}

/** Fields of `obj` its kind does not declare, as kube's strict decoder names them. */
export function unknownFieldProblems(r: ResourceRequest, obj: Obj): string[] {
  const unknown = r.def.schema
    ? findUnknownFields(r.def, obj, { objectMeta: r.server.objectMetaSchema() })
    : unknownTopLevelFields(r.def, obj);
  return unknown.map((f) => `unknown field "${f}"`);
}

/** Keys a JSON text repeats in one object, as kube's strict decoder names them. */
export function duplicateFieldProblems(text: string): string[] {
  return duplicateFields(text).map((f) => `duplicate field "${f}"`);
}

/** `fieldValidation`: unknown and duplicate fields rejected (Strict), warned about (Warn, the default), or ignored. */
export function checkFields(r: ResourceRequest, obj: Obj, text: string | undefined): string[] {
  const mode = fieldValidationMode(r);
  // kube's protobuf decoder has no strict form: a field it does not know is skipped unseen, as
  // protobuf.ts skips it, so a protobuf body has neither unknown nor duplicate fields to report.
  if (mode === "Ignore" || protobufBody(r)) return [];
  const what = r.def.crdName
    ? ""
    : `${r.def.kind} in version "${r.def.version}" cannot be handled as a ${r.def.kind}: `;
  // A YAML body's repeated keys fail go-yaml's strict decoding before anything else is looked at.
  const repeated = yamlDuplicates.get(r.req) ?? [];
  if (repeated.length > 0 && mode === "Strict") {
    // The YAML serializer's strict error: kube names the kind for custom resources too.
    const decoding = `${r.def.kind} in version "${r.def.version}" cannot be handled as a ${r.def.kind}: `;
    throw badRequest(`${decoding}strict decoding error: yaml: unmarshal errors:\n  ${repeated.join("\n  ")}`);
  }
  const problems = [...repeated, ...unknownFieldProblems(r, obj)];
  if (text !== undefined) problems.push(...duplicateFieldProblems(text));
  if (problems.length === 0) return [];
  if (mode === "Strict") throw badRequest(`${what}strict decoding error: ${problems.join(", ")}`);
  return problems;
}

// A string literal's content that JSON.parse would return unchanged: no escapes, no control characters.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON strings may not hold raw.
const PLAIN_STRING = /^[^\\\u0000-\u001f]*$/;

// Duplicate keys in one JSON object: JSON.parse keeps the last silently; kube reports them.
// Runs on every write with a body, so strings are skipped with indexOf rather than char by char,
// and only strings with escapes go through JSON.parse.
export function duplicateFields(text: string): string[] {
  if (!text.includes('"')) return [];
  const out: string[] = [];
  const stack: { keys: Set<string>; path: string; pendingKey: string | undefined; isArray: boolean }[] = [];
  let i = 0;
  let lastString = "";
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // The closing quote: the first one after an even number of backslashes.
      let j = text.indexOf('"', i + 1);
      while (j !== -1) {
        let k = j - 1;
        while (k > i && text.charCodeAt(k) === 0x5c /* \\ */) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      if (j === -1) return out;
      const raw = text.slice(i + 1, j);
      if (PLAIN_STRING.test(raw)) lastString = raw;
      else {
        try {
          lastString = JSON.parse(text.slice(i, j + 1)) as string;
        } catch {
          return out;
        }
      }
      i = j + 1;
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const child = top && !top.isArray && top.pendingKey !== undefined ? top.pendingKey : "";
      const path = top ? (child ? (top.path ? `${top.path}.${child}` : child) : top.path) : "";
      stack.push({ keys: new Set(), path, pendingKey: undefined, isArray: c === 0x5b });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
    else if (c === 0x3a /* : */ && top && !top.isArray) {
      if (top.keys.has(lastString)) out.push(top.path ? `${top.path}.${lastString}` : lastString);
      top.keys.add(lastString);
      top.pendingKey = lastString;
    }
    i++;
  }
  return out;
}

/**
 * What decoding into its Go struct does to a built-in object (one with a schema, not a custom
 * resource's): a value of the wrong type or past its width is refused; unknown fields, the
 * omitempty zeros and empty maps and lists Go's encoder leaves out are dropped. kube does it
 * before admission: webhooks and policies see the object so, and managedFields are computed on it.
 */
export function decodeBuiltin(r: ResourceRequest, obj: Obj): void {
  // Go's decoder refuses a value of the wrong type before anything else runs.
  const typeError = goTypeError(r.def, obj, () => jsonBodies.get(r.req));
  if (typeError) {
    throw badRequest(
      `${r.def.kind} in version "${r.def.version}" cannot be handled as a ${r.def.kind}: ${typeError}`,
    );
  }
  // A Go struct decoder drops what it does not know, at any depth; its encoder, empty maps.
  pruneObject(r.def, obj, { objectMeta: r.server.objectMetaSchema() });
  dropEmptyOptionalMaps(r.def, obj);
}

/** Pruning, defaulting and validation: the admission-time work on a candidate object. */
export function admit(r: ResourceRequest, obj: Obj, old: Readonly<Obj> | undefined): void {
  const behaviour = kindBehaviour(r.def);
  if (r.def.crdName && r.def.schema) {
    pruneObject(r.def, obj, { objectMeta: r.server.objectMetaSchema() });
    applyDefaults(r.def, obj);
  } else if (r.def.schema) {
    decodeBuiltin(r, obj);
  } else {
    for (const f of unknownTopLevelFields(r.def, obj)) delete obj[f];
  }
  behaviour.defaults?.(obj, { old, server: r.server, dryRun: isDryRun(r), subresource: r.subresource });
  r.server.authorization?.checkGrant(r, obj, old);
  const causes: StatusCause[] = [...validateMeta(r.def, obj)];
  // ValidateObjectMeta's check; a kind that tracks generation has set it to 1 by then.
  const generation = (obj.metadata as Obj | undefined)?.generation;
  if (!old && !tracksGeneration(r.def) && typeof generation === "number" && generation < 0)
    causes.push(cause.invalid("metadata.generation", generation, "must be greater than or equal to 0"));
  if (old) causes.push(...finalizerRules(old, obj));
  if (r.def.crdName && r.def.schema) {
    causes.push(...validateObject(r.def, obj, r.server.patterns, old));
    const schema = schemaOf(r.def)!;
    if (schemaHasRules(schema)) {
      // kube's strategy runs the CRD's rules only on an object of the shape they were written for.
      if (causes.some((c) => BLOCKING.has(c.reason ?? ""))) causes.push(RULES_NOT_CHECKED);
      else causes.push(...celRules.get().ruleViolations(schema, obj, old));
    }
  }
  causes.push(...(behaviour.validate?.(obj, old, r.server, r.subresource) ?? []));
  if (causes.length > 0) {
    const meta = obj.metadata as Obj;
    // kube names the kind of the object its storage holds: events.k8s.io's Events are core's.
    const storedGroup = r.def.storeName === undefined ? r.def.group : r.def.storeName.split("/")[0];
    throw invalid(
      { ...refOf(r.def), group: storedGroup },
      String(meta.name ?? meta.generateName ?? ""),
      causes,
    );
  }
}

/** Errors that keep a CRD's rules from running (kube's hasBlockingErr). */
const BLOCKING = new Set([
  "FieldValueNotSupported",
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "FieldValueTypeInvalid",
]);
/** kube's cause when the rules did not run (its value nil, printed as JSON by kube 1.37: null). */
const RULES_NOT_CHECKED: StatusCause = {
  reason: "FieldValueInvalid",
  message:
    "Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
  field: "<nil>",
};

function finalizerRules(old: Readonly<Obj>, obj: Obj): StatusCause[] {
  const oldMeta = old.metadata as Obj;
  if (!oldMeta.deletionTimestamp) return [];
  const before = new Set((oldMeta.finalizers as string[] | undefined) ?? []);
  const added = (((obj.metadata as Obj).finalizers as string[] | undefined) ?? []).filter(
    (f) => !before.has(f),
  );
  if (added.length === 0) return [];
  const list = `[]string{${added.map((f) => JSON.stringify(f)).join(", ")}}`;
  return [
    cause.forbidden(
      "metadata.finalizers",
      `no new finalizers can be added if the object is being deleted, found new finalizers ${list}`,
    ),
  ];
}

export function isDryRun(r: ResourceRequest): boolean {
  const values = r.query.getAll("dryRun");
  for (const v of values) {
    if (v !== "All") throw badRequest(`Invalid dry run value: ${v}; only "All" is supported`);
  }
  return values.length > 0;
}

export function manager(r: ResourceRequest): string {
  const fm = r.query.get("fieldManager");
  if (fm !== null && fm.length > 128) {
    throw invalid(refOf(r.def), "", [
      cause.invalid("fieldManager", fm, "must be no more than 128 characters"),
    ]);
  }
  return managerName(fm, r.req.headers["user-agent"]);
}

/** Records the request's manager as the `Update` owner of what it changed (kube's field manager). */
export function stampManagedFields(r: ResourceRequest, old: Readonly<Obj> | undefined, obj: Obj): void {
  setManagedFields(
    obj,
    updateManagedFields(old, obj, {
      manager: manager(r),
      def: r.def,
      apiVersion: apiVersionOfDef(r.def),
      subresource: r.subresource,
      time: kubeTime(r.server.now()),
      types: r.server.types,
    }),
  );
}

/** Sets metadata.managedFields, leaving it out when empty as kube does. */
export function setManagedFields(obj: Obj, entries: readonly ManagedFieldsEntry[]): void {
  const meta = obj.metadata as Obj;
  if (entries.length === 0) delete meta.managedFields;
  else meta.managedFields = entries;
}

export interface UpdateResult {
  /** What to answer: the committed object, or the candidate under dryRun. */
  json: string;
  stored: StoredObject | undefined;
}

/**
 * Applies an update of `current` to `candidate` (already type-checked): optimistic concurrency,
 * immutable fields, status isolation, admission, managedFields (`applied` for server-side apply,
 * else an Update by the request's manager), no-op detection, and deletion once an object being
 * deleted has no finalizers left.
 */
export function commitUpdate(
  r: ResourceRequest,
  current: StoredObject,
  candidate: Obj,
  warnings: string[],
  applied?: readonly ManagedFieldsEntry[],
): UpdateResult {
  const ref = refOf(r.def);
  const meta = candidate.metadata as Obj;
  let wantRv = meta.resourceVersion;
  // etcd3's versioner parses a stated version as a uint64 (a failure is an internal error; "007"
  // is 7), and reads 0 as none: an unconditional update.
  if (typeof wantRv === "string" && wantRv !== "") {
    if (!/^\d+$/.test(wantRv))
      throw new ApiError(500, "", `strconv.ParseUint: parsing ${JSON.stringify(wantRv)}: invalid syntax`);
    if (BigInt(wantRv) > 0xffffffffffffffffn)
      throw new ApiError(500, "", `strconv.ParseUint: parsing ${JSON.stringify(wantRv)}: value out of range`);
    const n = BigInt(wantRv);
    wantRv = n === 0n ? "" : String(n);
  }
  if (wantRv !== undefined && wantRv !== "" && wantRv !== String(current.rv)) {
    throw conflict(ref, r.name, staleObjectMessage);
  }
  if ((wantRv === undefined || wantRv === "") && r.def.crdName) {
    // kube's Store.Update names the resource where the kind goes, and prints the version 0.
    throw invalid({ ...ref, kind: r.def.plural }, r.name, [
      cause.invalid("metadata.resourceVersion", 0, "must be specified for an update"),
    ]);
  }
  // ValidateObjectMetaUpdate: a uid the request states must be the object's (prepareForUpdate keeps the stored one).
  const uid = meta.uid;
  const storedUid = (current.obj.metadata as Obj).uid;
  if (typeof uid === "string" && uid !== "" && uid !== storedUid) {
    throw invalid(refOf(r.def), r.name, [cause.invalid("metadata.uid", uid, "field is immutable")]);
  }
  const next = prepareForUpdate(r.def, current.obj, candidate, r.subresource);
  // kube's handlers: a PUT's duplicates are dropped before admission, a patch's after it.
  dedupOwnerReferences(next, warnings, r.req.method === "PATCH");
  admit(r, next, current.obj);
  if (r.def.crdName && r.subresource === "")
    warnings.push(...customResourceFinalizerWarnings(next, current.obj));
  bumpGeneration(r.def, current.obj, next);
  // An apply brings its own managedFields; every other write records an Update. A write that
  // changes nothing, ownership included, is a no-op.
  if (applied) setManagedFields(next, applied);
  else stampManagedFields(r, current.obj, next);
  const oldManaged = (current.obj.metadata as Obj).managedFields;
  if (unchanged(current.obj, next) && deepEqual(oldManaged, (next.metadata as Obj).managedFields)) {
    return { json: current.json, stored: current };
  }
  const effects = kindBehaviour(r.def).updating?.(next, current.obj, {
    server: r.server,
    dryRun: isDryRun(r),
  });
  const ordered = normalizeOrder(r.def, next);
  const quota = {
    operation: "UPDATE",
    subresource: r.subresource,
    namespace: r.namespace,
    object: ordered,
    oldObject: current.obj,
    dryRun: isDryRun(r),
  } as const;
  if (isDryRun(r)) {
    admitResourceQuota(r.server, r.def, quota);
    (ordered.metadata as Obj).resourceVersion = String(current.rv);
    return { json: stringifyJson(ordered), stored: undefined };
  }
  void warnings;
  const stored = storeWithEffects(effects, () => {
    admitResourceQuota(r.server, r.def, quota);
    return r.server.storage.put(storeNameOf(r.def), ordered);
  });
  r.server.hooks.afterWrite(r.def, stored, current);
  finalizeIfDone(r.server, r.def, stored);
  return { json: stored.json, stored };
}

/** Stores with a write's side effects: undone if storing fails, finished once it succeeded. */
export function storeWithEffects(
  // biome-ignore lint/suspicious/noConfusingVoidType: what KindBehaviour.created returns
  effects: WriteEffects | void,
  put: () => StoredObject,
): StoredObject {
  let stored: StoredObject;
  try {
    stored = put();
  } catch (e) {
    effects?.revert?.();
    throw e;
  }
  effects?.committed?.();
  return stored;
}

/**
 * A created object's last step: quota admission, then the write with its side effects (a refusal
 * undoes the create's allocations). A dry run is admitted and stores nothing: undefined.
 */
export function storeCreated(
  r: ResourceRequest,
  // biome-ignore lint/suspicious/noConfusingVoidType: what KindBehaviour.created returns
  effects: WriteEffects | void,
  ordered: Obj,
  dryRun: boolean,
): StoredObject | undefined {
  const quota = {
    operation: "CREATE",
    subresource: r.subresource,
    namespace: r.namespace,
    object: ordered,
    dryRun,
  } as const;
  if (dryRun) {
    admitResourceQuota(r.server, r.def, quota);
    // Nothing was stored, so no version was given: kube's answer has no resourceVersion at all
    // (Go leaves the empty string out), not prepareForCreate's placeholder.
    const meta = ordered.metadata as Obj | undefined;
    if (meta?.resourceVersion === "") delete meta.resourceVersion;
    return undefined;
  }
  const stored = storeWithEffects(effects, () => {
    admitResourceQuota(r.server, r.def, quota);
    return r.server.storage.put(storeNameOf(r.def), ordered);
  });
  r.server.hooks.afterWrite(r.def, stored, undefined);
  return stored;
}

/**
 * The Warning header values for field problems found under fieldValidation=Warn, as kube's
 * recorder writes them (endpoints/filters/warning.go): each text once; past 4 096 runes in all,
 * every text cut to 256 runes, and none added once those fill 4 096 (a deep field's path is long).
 */
export function warningHeaders(warnings: string[]): Record<string, string[]> | undefined {
  if (warnings.length === 0) return undefined;
  const cut = (t: string) => (t.length > 256 ? [...t].slice(0, 256).join("") : t);
  const runes = (t: string) => (t.length > 256 ? [...t].length : t.length);
  const texts: string[] = [];
  let written = 0;
  let truncating = false;
  for (const w of new Set(warnings)) {
    if (truncating && written >= 4096) break;
    const text = truncating ? cut(w) : w;
    if (written + runes(text) <= 4096 || truncating) {
      written += runes(text);
      texts.push(text);
      continue;
    }
    truncating = true;
    texts.push(w);
    for (let i = 0; i < texts.length; i++) texts[i] = cut(texts[i]);
    written = texts.reduce((n, t) => n + runes(t), 0);
  }
  return { Warning: texts.map((w) => `299 - ${JSON.stringify(w)}`) };
}

export { ApiError };
