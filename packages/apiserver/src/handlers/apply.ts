// PATCH with `application/apply-patch+yaml`: server-side apply. Checks the request as kube's
// patch handler does (fieldManager, force, the configuration's type and name), merges the
// configuration into the live object (or an empty one: apply creates), tracks ownership, and
// commits through the shared write path.
import { createWithAdmission, updateWithAdmission } from "../admission/index.js";
import { inRequestVersion } from "../conversion/index.js";
import { readBody, type ResponseForm } from "../http-io.js";
import { JsonDepthError, readYaml, YamlDepthError } from "../nesting.js";
import { YamlBodyError } from "../yaml-body.js";
import { jsonTypeName } from "./patch-decoding.js";
import type { ResourceRequest } from "./context.js";
import { refOf } from "./context.js";
import { isTrue } from "./list-options.js";
import { sendInForm } from "./negotiation.js";
import {
  admit,
  checkFields,
  fieldValidationMode,
  isDryRun,
  manager,
  setManagedFields,
  storeCreated,
  warningHeaders,
} from "./write.js";
import { kindBehaviour, unknownTopLevelFields } from "../kinds/index.js";
import {
  apiVersionOfDef,
  dropStatusOnCreate,
  kubeTime,
  normalizeOrder,
  prepareForCreate,
} from "../object/meta.js";
import { storeNameOf } from "../registry/index.js";
import { pruneObject } from "../schema/index.js";
import { unstructuredConversionError } from "../schema/go-conversion.js";
import { goDefinitionOf } from "../object/go-encoding.js";
import { alreadyExists, ApiError, badRequest, notFound } from "../status.js";
import { objectKey, type Obj } from "../storage/index.js";
import {
  ApplyConflictError,
  ApplyTypeError,
  applyToObject,
  toFieldSet,
  typedConfigurationErrors,
} from "../apply/index.js";
import type { Json } from "../apply/path-element.js";
import { cloneJson } from "../object/deep-json.js";
import { stringifyJson } from "../object/deep-json.js";

/** kube answers a configuration that does not fit the schema with a bare 500 Status (no reason). */
class UntypedError extends ApiError {
  constructor(message: string) {
    super(500, "", message);
  }

  override toStatus() {
    const status = super.toStatus();
    delete status.reason;
    return status;
  }
}

function parseForce(r: ResourceRequest): boolean {
  // PatchOptions.force goes through kube's parameter codec: "yes" is true, as any value but "0"
  // and "false".
  return isTrue(r.query.get("force"));
}

function parseConfiguration(text: string): { config: Obj; duplicates: string[] } {
  let value: unknown;
  let duplicates: string[];
  try {
    ({ value, duplicates } = readYaml(text));
  } catch (e) {
    // kube's limits, in the words of where kube meets them: its YAML-to-JSON check of the patch
    // (skipped for a text that starts like JSON), the apply patcher's YAML decoding, or the JSON
    // decoding after it.
    if (e instanceof YamlDepthError || e instanceof YamlBodyError) {
      if (text.trimStart().startsWith("{")) {
        throw badRequest(`error decoding patch: error converting YAML to JSON: ${e.message}`);
      }
      throw badRequest(`error encoding patch: ${e.message}`);
    }
    if (e instanceof JsonDepthError) {
      throw badRequest(`error decoding patch: error unmarshaling JSON: while decoding JSON: ${e.message}`);
    }
    // kube's YAML-to-JSON check of the patch; its words are go-yaml's, these the yaml package's.
    throw badRequest(`error encoding patch: ${(e as Error).message}`);
  }
  if (Array.isArray(value) || (value !== null && typeof value !== "object")) {
    throw badRequest(
      `error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonTypeName(value)} into Go value of type map[string]interface {}`,
    );
  }
  if (value === null) throw badRequest("error decoding patch: the apply configuration must be an object");
  return { config: value as Obj, duplicates };
}

/** What kube's version check demands: the configuration is of the endpoint's group, version and kind. */
function checkConfigurationType(r: ResourceRequest, config: Obj): void {
  const apiVersion = typeof config.apiVersion === "string" ? config.apiVersion : "";
  const kind = typeof config.kind === "string" ? config.kind : "";
  if (apiVersion === apiVersionOfDef(r.def) && kind === r.def.kind) return;
  const slash = apiVersion.lastIndexOf("/");
  const gv = slash >= 0 ? apiVersion : `/${apiVersion}`;
  throw badRequest(`invalid object type: ${gv}, Kind=${kind}`);
}

/** kube's checkName for patches: the result must keep the URL's name and namespace. */
function checkName(r: ResourceRequest, obj: Obj): void {
  const meta = (obj.metadata ?? {}) as Obj;
  const name = typeof meta.name === "string" ? meta.name : "";
  if (name !== r.name) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${r.name})`);
  }
  const ns = typeof meta.namespace === "string" ? meta.namespace : "";
  if (r.def.namespaced && ns !== "" && ns !== r.namespace) {
    throw badRequest(
      `the namespace of the object (${ns}) does not match the namespace on the request (${r.namespace})`,
    );
  }
}

/** Serves an apply PATCH. */
export async function handleApply(r: ResourceRequest, form: ResponseForm): Promise<void> {
  // validateWriteOptions (handlePatch) has required the field manager.
  const fieldManager = manager(r);
  const force = parseForce(r);
  const text = (await readBody(r.req, r.server.limits.maxBodyBytes)).toString("utf8");
  // Read after the body: the merge must start from the object as it is now.
  const found = r.server.storage.get(storeNameOf(r.def), objectKey(r.namespace, r.name));
  // A custom resource stored in another version merges in the version the request speaks.
  const current = found ? await inRequestVersion(r, found) : undefined;
  const { config, duplicates: repeated } = parseConfiguration(text);
  checkConfigurationType(r, config);
  const meta = config.metadata;
  const given = meta !== null && typeof meta === "object" ? (meta as Obj).managedFields : undefined;
  if (given !== undefined && given !== null) {
    throw badRequest("metadata.managedFields must be nil");
  }
  if (!current && r.subresource !== "") throw notFound(refOf(r.def), r.name);
  const gvk = `${r.def.group}/${r.def.version}, Kind=${r.def.kind}`;
  // kube names the configuration's own namespace and name (objectGVKNN of the patch).
  const ns = typeof meta === "object" && meta !== null ? ((meta as Obj).namespace ?? "") : "";
  const name = typeof meta === "object" && meta !== null ? ((meta as Obj).name ?? "") : "";
  const untyped = (why: string) =>
    new UntypedError(`failed to create typed patch object (${ns}/${name}; ${gvk}): ${why}`);
  // The configuration meets its typed schema first, a built-in kind's and a custom resource's
  // alike: a field the schema lacks is the typed conversion's 500 whatever fieldValidation says
  // (kube-apiserver 1.37.2 answers so for a CR's unknown field at the top, in its spec, in its
  // metadata, in a list item); pruning and the strict check see only what the schema declares.
  const type = r.server.types.of(r.def);
  const typeError = typedConfigurationErrors(config as Json, type);
  if (typeError) throw untyped(typeError);
  if (r.def.crdName && r.def.schema) {
    try {
      toFieldSet(config as Json, type, true);
    } catch (e) {
      if (e instanceof ApplyTypeError) throw untyped(e.message);
      throw e;
    }
  }
  // A custom resource's configuration is then pruned as kube's decoder prunes it (an embedded
  // resource's metadata); a built-in kind's is checked after the merge.
  const custom = r.def.crdName !== undefined || !r.def.schema;
  let warnings = custom ? checkFields(r, config, undefined) : [];
  if (r.def.crdName && r.def.schema) pruneObject(r.def, config);
  else if (custom) for (const f of unknownTopLevelFields(r.def, config)) delete config[f];
  let applied: ReturnType<typeof applyToObject>;
  try {
    applied = applyToObject(current?.obj, config, fieldManager, force, {
      def: r.def,
      apiVersion: apiVersionOfDef(r.def),
      subresource: r.subresource,
      time: kubeTime(r.server.now()),
      types: r.server.types,
    });
  } catch (e) {
    if (e instanceof ApplyConflictError) throw e.toApiError();
    if (e instanceof ApplyTypeError) throw untyped(e.message);
    throw e;
  }
  if (!custom) warnings = checkFields(r, config, undefined);
  // The apply patcher's strict decoding of the configuration, after the merge: go-yaml's repeats.
  if (repeated.length > 0) {
    const mode = fieldValidationMode(r);
    if (mode === "Strict") {
      throw badRequest(
        `error strict decoding patch: error converting YAML to JSON: yaml: unmarshal errors:\n  ${repeated.join("\n  ")}`,
      );
    }
    if (mode === "Warn") warnings = [...repeated, ...warnings];
  }
  const obj = cloneJson(applied.object) as Obj;
  // The merged object reaches the Go type through the unstructured converter, which truncates an
  // int32 past its width (replicas: 2147483648 is validation's -2147483648), as for a strategic
  // patch. What else it would refuse, the decoding check in admit answers.
  if (!custom)
    unstructuredConversionError(r.def, obj, goDefinitionOf(r.def.group, r.def.version, r.def.kind));
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  checkName(r, obj);

  // Applied writes pass the admission webhooks like any other create or update.
  if (current) {
    const result = await updateWithAdmission(r, current, obj, warnings, applied.managedFields);
    sendInForm(r, 200, result.json, form, warningHeaders(warnings), result.stored?.obj);
    return;
  }
  const created = await createWithAdmission(r, obj, undefined, (rr, o) => ({
    json: createApplied(rr, o, applied.managedFields),
    headers: undefined,
  }));
  sendInForm(r, 201, created.json, form, withWarnings(created.headers, warnings));
}

/** The webhooks' headers plus the apply's own warnings. */
function withWarnings(
  headers: Record<string, string | string[]> | undefined,
  warnings: string[],
): Record<string, string | string[]> | undefined {
  const own = warningHeaders(warnings);
  if (!own) return headers;
  const prior = headers?.Warning;
  const before = prior === undefined ? [] : Array.isArray(prior) ? prior : [prior];
  return { ...headers, Warning: [...before, ...own.Warning] };
}

/** The create half of apply: the object did not exist, so the merge result is created. */
function createApplied(
  r: ResourceRequest,
  obj: Obj,
  managedFields: Parameters<typeof setManagedFields>[1],
): string {
  const meta = obj.metadata as Obj;
  if (r.def.namespaced) meta.namespace = r.namespace;
  dropStatusOnCreate(r.def, obj);
  admit(r, obj, undefined);
  r.server.hooks.beforeCreate(r.def, obj);
  const store = storeNameOf(r.def);
  if (r.server.storage.get(store, objectKey(r.def.namespaced ? r.namespace : "", r.name))) {
    throw alreadyExists(refOf(r.def), r.name);
  }
  prepareForCreate(r.def, obj, r.namespace, r.server.now());
  setManagedFields(obj, managedFields);
  const effects = kindBehaviour(r.def).created?.(obj, {
    server: r.server,
    user: r.user,
    dryRun: isDryRun(r),
  });
  const ordered = normalizeOrder(r.def, obj);
  return storeCreated(r, effects, ordered, isDryRun(r))?.json ?? stringifyJson(ordered);
}
