// komega: controller-runtime's envtest/komega, the helpers that make a test's reads and writes
// into conditions to wait on. Go hands Gomega's Eventually a func; here each helper returns a
// thunk for `eventually()` (a throw means "not yet", a truthy value "done"), and the `eventually*`
// methods wait with the Komega's own timeout, since there is no Gomega to hold one.
import type { DeepMutable, DeepReadonly, Kind, KubeList, KubeObject } from "../api/index.js";
import type {
  Client,
  KindName,
  ListOptions,
  SubResourceUpdateOptions,
  UpdateOptions,
} from "../client/index.js";
import { isNotFound } from "../rest/index.js";
import { type EventuallyOptions, eventually } from "./eventually.js";

/** How a Komega reads and waits. */
export interface KomegaOptions {
  /** Cancels every read, write and wait (Go's `WithContext`). Default: none. */
  signal?: AbortSignal;
  /** Longest wait of the `eventually*` methods. Default: 10 000 ms. */
  timeoutMs?: number;
  /** Time between polls. Default: 10 ms. */
  intervalMs?: number;
}

/** The object's mutable copy to change; return a replacement or change it in place. */
// biome-ignore lint/suspicious/noConfusingVoidType: a mutate function changing in place returns nothing
export type Mutate<T> = (obj: T) => void | T | Promise<void | T>;

export interface Komega {
  /** A thunk reading `obj` (by apiVersion, kind, namespace, name) that resolves `true` once it exists. */
  get(obj: DeepReadonly<KubeObject>): () => Promise<true>;
  /** A thunk listing `kind` that resolves `true` when the list succeeded. */
  list(kind: Kind | KindName, opts?: ListOptions): () => Promise<true>;
  /** A thunk resolving to the current `obj` from the server (Go's `Object`). */
  object<T extends KubeObject>(obj: T): () => Promise<DeepReadonly<T>>;
  /** A thunk resolving to the current list of `kind` (Go's `ObjectList`). */
  objectList<T extends KubeObject>(
    kind: Kind<T>,
    opts?: ListOptions,
  ): () => Promise<KubeList<DeepReadonly<T>>>;
  /**
   * A thunk that reads `obj`, applies `mutate` to a copy and updates it; it rejects on a conflict,
   * so `eventually` tries again from a fresh read. Resolves to the updated object.
   */
  update<T extends KubeObject>(
    obj: T,
    mutate: Mutate<DeepMutable<T>>,
    opts?: UpdateOptions,
  ): () => Promise<DeepMutable<T>>;
  /** As `update`, writing the status subresource. */
  updateStatus<T extends KubeObject>(
    obj: T,
    mutate: Mutate<DeepMutable<T>>,
    opts?: SubResourceUpdateOptions,
  ): () => Promise<DeepMutable<T>>;
  /** Waits until `condition` resolves truthy (a throw counts as "not yet"); resolves with its value. */
  eventually<T>(condition: () => T | Promise<T>, what?: string): Promise<NonNullable<T>>;
  /** Waits until `obj` exists and `match` (if any) holds; resolves with the object. */
  eventuallyObject<T extends KubeObject>(
    obj: T,
    match?: (obj: DeepReadonly<T>) => boolean,
  ): Promise<DeepReadonly<T>>;
  /** Waits until the list of `kind` satisfies `match`; resolves with the list. */
  eventuallyList<T extends KubeObject>(
    kind: Kind<T>,
    match: (list: KubeList<DeepReadonly<T>>) => boolean,
    opts?: ListOptions,
  ): Promise<KubeList<DeepReadonly<T>>>;
  /** Waits until reading `obj` answers NotFound (deleted, finalizers done). */
  eventuallyGone(obj: DeepReadonly<KubeObject>): Promise<void>;
  /** Runs `update` until it succeeds (conflicts retried); resolves with the updated object. */
  eventuallyUpdate<T extends KubeObject>(
    obj: T,
    mutate: Mutate<DeepMutable<T>>,
    opts?: UpdateOptions,
  ): Promise<DeepMutable<T>>;
  /** Runs `updateStatus` until it succeeds. */
  eventuallyUpdateStatus<T extends KubeObject>(
    obj: T,
    mutate: Mutate<DeepMutable<T>>,
    opts?: SubResourceUpdateOptions,
  ): Promise<DeepMutable<T>>;
  /** A Komega with other options (Go's `WithContext`, and the waits' timing). */
  with(opts: KomegaOptions): Komega;
}

/** A Komega over `client` (Go's `komega.New`); give it a client that reads from the server. */
export function newKomega(client: Client, opts: KomegaOptions = {}): Komega {
  const { signal } = opts;
  const waits: EventuallyOptions = {
    timeoutMs: opts.timeoutMs ?? 10_000,
    intervalMs: opts.intervalMs ?? 10,
    signal,
  };
  const kindOf = (obj: DeepReadonly<KubeObject>): KindName => {
    if (!obj.apiVersion || !obj.kind) {
      throw new TypeError(
        "komega: the object needs apiVersion and kind to be read (set them, or read it first)",
      );
    }
    return { apiVersion: obj.apiVersion, kind: obj.kind };
  };
  const keyOf = (obj: DeepReadonly<KubeObject>) => ({
    namespace: obj.metadata?.namespace,
    name: obj.metadata?.name ?? "",
  });
  const read = async <T extends KubeObject>(obj: T) =>
    (await client.get(kindOf(obj), keyOf(obj), { signal })) as unknown as DeepReadonly<T>;
  const named = (verb: string, obj: DeepReadonly<KubeObject>) =>
    `${verb} ${obj.kind} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ""}${obj.metadata?.name}`;
  const mutated = async <T extends KubeObject>(
    obj: T,
    mutate: Mutate<DeepMutable<T>>,
  ): Promise<DeepMutable<T>> => {
    const copy = structuredClone(await read(obj)) as DeepMutable<T>;
    return (await mutate(copy)) ?? copy;
  };

  const k: Komega = {
    get: (obj) => async () => {
      await read(obj);
      return true;
    },
    list: (kind, listOpts) => async () => {
      await client.list(kind as Kind, { ...listOpts, signal });
      return true;
    },
    object: (obj) => () => read(obj),
    objectList: (kind, listOpts) => () => client.list(kind, { ...listOpts, signal }),
    update: (obj, mutate, updateOpts) => async () =>
      client.update(await mutated(obj, mutate), { ...updateOpts, signal }) as Promise<
        DeepMutable<typeof obj>
      >,
    updateStatus: (obj, mutate, updateOpts) => async () =>
      client.status().update(await mutated(obj, mutate), { ...updateOpts, signal }),
    eventually: (condition, what = "the condition") => eventually(what, condition, waits),
    eventuallyObject: (obj, match) =>
      eventually(
        named("", obj).trim(),
        async () => {
          const current = await read(obj);
          return !match || match(current) ? current : undefined;
        },
        waits,
      ),
    eventuallyList: (kind, match, listOpts) =>
      eventually(
        `a list of ${kind.kind} that matches`,
        async () => {
          const list = await client.list(kind, { ...listOpts, signal });
          return match(list) ? list : undefined;
        },
        waits,
      ),
    eventuallyGone: async (obj) => {
      await eventually(
        named("the deletion of", obj),
        async () => {
          try {
            await read(obj);
            return false;
          } catch (err) {
            if (isNotFound(err)) return true;
            throw err;
          }
        },
        waits,
      );
    },
    eventuallyUpdate: (obj, mutate, updateOpts) =>
      eventually(named("an update of", obj), k.update(obj, mutate, updateOpts), waits),
    eventuallyUpdateStatus: (obj, mutate, updateOpts) =>
      eventually(named("a status update of", obj), k.updateStatus(obj, mutate, updateOpts), waits),
    with: (more) => newKomega(client, { ...opts, ...more }),
  };
  return k;
}
