// createOrUpdate and createOrPatch, as controller-runtime's: read the object, let `mutate` bring it
// to the wanted state, then create it, update/patch it, or leave it alone when nothing changed.
// `mutate` gets a mutable copy (never the frozen cached object): it may change it in place, or
// return a replacement (handy with helpers that return copies: `return setControllerReference(owner, obj)`).
import { type DeepReadonly, deepCopy, type Kind, type KubeObject, type ObjectKey } from "../api/index.js";
import type { Client, WriteOptions } from "../client/index.js";
import { mergeFrom } from "../client/index.js";
import { jsonEqual } from "../patch/index.js";
import { isNotFound } from "../rest/index.js";
import { MutatedKeyError } from "./errors.js";

/** What createOrUpdate / createOrPatch did (controller-runtime's OperationResult). */
export type OperationResult = "unchanged" | "created" | "updated" | "updatedStatus" | "updatedStatusOnly";

/** Brings `obj` to the wanted state: change it in place, or return the object to write instead. */
export type MutateFn<T extends KubeObject> = (
  obj: T,
  // biome-ignore lint/suspicious/noConfusingVoidType: an async mutate function may return nothing
) => void | T | DeepReadonly<T> | Promise<void | T | DeepReadonly<T>>;

export interface CreateOrUpdateResult<T extends KubeObject, R extends OperationResult = OperationResult> {
  result: R;
  /** The object as the server answered (or as read, when unchanged). */
  object: DeepReadonly<T>;
}

/** Options of the writes (and, for `signal`, of the read). */
export type CreateOrUpdateOptions = WriteOptions;

function sameKey(kind: Kind, obj: KubeObject, key: ObjectKey): boolean {
  const ns = kind.namespaced ? (key.namespace ?? "") : "";
  const objNs = kind.namespaced ? (obj.metadata?.namespace ?? "") : "";
  return obj.metadata?.name === key.name && objNs === ns;
}

async function runMutate<T extends KubeObject>(
  kind: Kind<T>,
  key: ObjectKey,
  obj: T,
  mutate: MutateFn<T>,
): Promise<T> {
  const out = ((await mutate(obj)) ?? obj) as T;
  if (!sameKey(kind, out, key)) throw new MutatedKeyError();
  // As the server will see it: a field set to `undefined` is no change.
  return JSON.parse(JSON.stringify(out)) as T;
}

async function read<T extends KubeObject>(
  client: Client,
  kind: Kind<T>,
  key: ObjectKey,
  signal: AbortSignal | undefined,
): Promise<DeepReadonly<T> | undefined> {
  try {
    return await client.get(kind, key, { signal });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function create<T extends KubeObject>(
  client: Client,
  kind: Kind<T>,
  key: ObjectKey,
  mutate: MutateFn<T>,
  opts: CreateOrUpdateOptions,
): Promise<CreateOrUpdateResult<T, "created">> {
  const metadata =
    kind.namespaced && key.namespace ? { name: key.name, namespace: key.namespace } : { name: key.name };
  const fresh = { apiVersion: kind.apiVersion, kind: kind.kind, metadata } as T;
  const obj = await runMutate(kind, key, fresh, mutate);
  return { result: "created", object: (await client.create(obj, opts)) as DeepReadonly<T> };
}

/**
 * Creates the object `key` names (built by `mutate` from an empty one), or updates it when
 * `mutate` changed it: "created", "updated" or "unchanged". The update carries the
 * resourceVersion read, so a concurrent change makes it fail with a 409 Conflict (retry).
 */
export async function createOrUpdate<T extends KubeObject>(
  client: Client,
  kind: Kind<T>,
  key: ObjectKey,
  mutate: MutateFn<T>,
  opts: CreateOrUpdateOptions = {},
): Promise<CreateOrUpdateResult<T, "created" | "updated" | "unchanged">> {
  const current = await read(client, kind, key, opts.signal);
  if (!current) return create(client, kind, key, mutate, opts);
  const obj = await runMutate(kind, key, deepCopy(current) as T, mutate);
  if (jsonEqual(current, obj)) return { result: "unchanged", object: current };
  return { result: "updated", object: (await client.update(obj, opts)) as DeepReadonly<T> };
}

function splitStatus(obj: DeepReadonly<KubeObject>): {
  rest: KubeObject;
  status: unknown;
  hasStatus: boolean;
} {
  const { status, ...rest } = obj as KubeObject & { status?: unknown };
  return { rest, status, hasStatus: Object.hasOwn(obj, "status") };
}

/**
 * Creates the object `key` names (built by `mutate`), or patches what `mutate` changed with merge
 * patches: the object first, then its `status` subresource when the status changed. Results:
 * "created", "updated" (object only), "updatedStatus" (both), "updatedStatusOnly", "unchanged".
 */
export async function createOrPatch<T extends KubeObject>(
  client: Client,
  kind: Kind<T>,
  key: ObjectKey,
  mutate: MutateFn<T>,
  opts: CreateOrUpdateOptions = {},
): Promise<CreateOrUpdateResult<T>> {
  const current = await read(client, kind, key, opts.signal);
  if (!current) return create(client, kind, key, mutate, opts);
  const obj = await runMutate(kind, key, deepCopy(current) as T, mutate);
  const before = splitStatus(current);
  const after = splitStatus(obj);

  let result: OperationResult = "unchanged";
  let object: DeepReadonly<T> = current;
  if (!jsonEqual(before.rest, after.rest)) {
    object = (await client.patch(obj, mergeFrom(current), opts)) as DeepReadonly<T>;
    result = "updated";
  }
  if ((before.hasStatus || after.hasStatus) && !jsonEqual(before.status, after.status)) {
    // Diff the status alone, against the object as it now is on the server.
    const from = { ...object, status: before.status } as T;
    const to = { ...object, status: after.status } as T;
    object = (await client.status().patch(to, mergeFrom(from), opts)) as DeepReadonly<T>;
    result = result === "updated" ? "updatedStatus" : "updatedStatusOnly";
  }
  return { result, object };
}
