// POST: create an object (generateName, namespace checks, admission, 409 AlreadyExists, dryRun).
import { createWithAdmission } from "../admission/index.js";
import { readBody } from "../http-io.js";
import { dropStatusOnCreate, normalizeOrder, prepareForCreate, randomSuffix } from "../object/meta.js";
import { kindBehaviour } from "../kinds/index.js";
import { storeNameOf } from "../registry/index.js";
import { alreadyExists, ApiError, badRequest } from "../status.js";
import { objectKey, type Obj } from "../storage/index.js";
import { refOf, type ResourceRequest } from "./context.js";
import { formOf, sendInForm } from "./negotiation.js";
import {
  admit,
  checkFields,
  checkTypeMeta,
  decodeObject,
  isDryRun,
  stampManagedFields,
  storeCreated,
  warningHeaders,
} from "./write.js";
import { stringifyJson } from "../object/deep-json.js";
import { validateWriteOptions } from "./write-options.js";
import { customResourceFinalizerWarnings, dedupOwnerReferences } from "../object/meta-lists.js";

export async function handleCreate(r: ResourceRequest): Promise<void> {
  const form = formOf(r, "write");
  validateWriteOptions(r, "CreateOptions");
  const body = await readBody(r.req, r.server.limits.maxBodyBytes);
  const { obj, text } = decodeObject(r, body);
  const { json, headers, source } = await createWithAdmission(r, obj, text, createObject);
  sendInForm(r, 201, json, form, headers, source);
}

/** The synchronous part of a create, shared with PATCH-apply of a missing object. */
export function createObject(
  r: ResourceRequest,
  obj: Obj,
  text: string | undefined,
): { json: string; headers: Record<string, string | string[]> | undefined; source: Obj } {
  checkTypeMeta(r, obj, text);
  const meta = obj.metadata as Obj;
  if (r.def.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== "" && meta.namespace !== r.namespace) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    meta.namespace = r.namespace;
  }
  const warnings = checkFields(r, obj, text);
  dedupOwnerReferences(obj, warnings, false);
  const dryRun = isDryRun(r);
  dropStatusOnCreate(r.def, obj);
  const store = storeNameOf(r.def);
  const storage = r.server.storage;
  // kube's BeforeCreate names the object before the strategy validates it.
  if (!meta.name && typeof meta.generateName === "string") {
    let name = "";
    for (let i = 0; i < 8; i++) {
      // SimpleNameGenerator: the base is cut to 58 characters, so that the name fits in 63.
      name = `${meta.generateName.slice(0, 58)}${randomSuffix()}`;
      if (!storage.get(store, objectKey(r.namespace, name))) break;
    }
    meta.name = name;
  }
  admit(r, obj, undefined);
  if (r.def.crdName) warnings.push(...customResourceFinalizerWarnings(obj, undefined));
  r.server.hooks.beforeCreate(r.def, obj);
  const name = meta.name as string;
  // etcd's store refuses it before it looks for the key (a 500 without reason; a dry run never
  // gets there): a controller re-creating an object from a cached copy must clear it.
  const rv = meta.resourceVersion;
  if (!dryRun && typeof rv === "string" && /^\d+$/.test(rv) && Number(rv) !== 0) {
    throw new ApiError(500, "", "resourceVersion should not be set on objects to be created");
  }
  if (storage.get(store, objectKey(r.def.namespaced ? r.namespace : "", name))) {
    throw alreadyExists(refOf(r.def), name);
  }
  prepareForCreate(r.def, obj, r.namespace, r.server.now());
  stampManagedFields(r, undefined, obj);
  const effects = kindBehaviour(r.def).created?.(obj, { server: r.server, user: r.user, dryRun });
  const ordered = normalizeOrder(r.def, obj);
  const stored = storeCreated(r, effects, ordered, dryRun);
  return {
    json: stored?.json ?? stringifyJson(ordered),
    headers: warningHeaders(warnings),
    source: stored?.obj ?? ordered,
  };
}
