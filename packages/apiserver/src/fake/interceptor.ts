// Interceptors, as controller-runtime's client/interceptor: a client that calls the function given
// for a verb instead of the verb, handing it the client underneath so that it can call through
// (record, then delegate) or answer alone (fail once, return a canned object). Verbs without a
// function go straight through. Works around any Client; the fake client's builder takes them as
// `withInterceptorFuncs`.
import type {
  DeepReadonly,
  Kind,
  KubeList,
  KubeObject,
  ObjectKey,
  Unstructured,
} from "controller-runtime/api";
import type {
  ApplyConfiguration,
  ApplyOptions,
  Client,
  CreateOptions,
  DeleteAllOfOptions,
  DeleteOptions,
  GetOptions,
  KindName,
  ListOptions,
  Patch,
  PatchOptions,
  SubResourceClient,
  SubResourceUpdateOptions,
  UpdateOptions,
  WatchOptions,
  WithWatch,
} from "controller-runtime/client";
import type { WatchStream } from "controller-runtime/rest";

/**
 * The functions called instead of the client's verbs (controller-runtime's `interceptor.Funcs`);
 * each gets the client underneath first, as Go's get it after the context. `subResource` replaces
 * the whole subresource client (`status()` too); the `subResource*` functions replace one verb of
 * it and get the subresource's name.
 */
export interface InterceptorFuncs {
  get?(
    client: WithWatch,
    kind: Kind | KindName,
    key: ObjectKey,
    opts?: GetOptions,
  ): Promise<DeepReadonly<KubeObject>>;
  list?(
    client: WithWatch,
    kind: Kind | KindName,
    opts?: ListOptions,
  ): Promise<KubeList<DeepReadonly<KubeObject>>>;
  create?(client: WithWatch, obj: KubeObject, opts?: CreateOptions): Promise<KubeObject>;
  update?(client: WithWatch, obj: KubeObject, opts?: UpdateOptions): Promise<KubeObject>;
  patch?(client: WithWatch, obj: KubeObject, patch: Patch, opts?: PatchOptions): Promise<KubeObject>;
  apply?(client: WithWatch, config: ApplyConfiguration, opts?: ApplyOptions): Promise<KubeObject>;
  delete?(client: WithWatch, obj: DeepReadonly<KubeObject>, opts?: DeleteOptions): Promise<void>;
  deleteAllOf?(client: WithWatch, kind: Kind | KindName, opts?: DeleteAllOfOptions): Promise<void>;
  watch?(client: WithWatch, kind: Kind | KindName, opts?: WatchOptions): Promise<WatchStream<KubeObject>>;
  subResource?(client: WithWatch, subResource: string): SubResourceClient;
  subResourceGet?(
    client: Client,
    subResource: string,
    obj: DeepReadonly<KubeObject>,
    opts?: GetOptions,
  ): Promise<KubeObject>;
  subResourceCreate?(
    client: Client,
    subResource: string,
    obj: DeepReadonly<KubeObject>,
    body: KubeObject,
    opts?: CreateOptions,
  ): Promise<KubeObject>;
  subResourceUpdate?(
    client: Client,
    subResource: string,
    obj: KubeObject,
    opts?: SubResourceUpdateOptions,
  ): Promise<KubeObject>;
  subResourcePatch?(
    client: Client,
    subResource: string,
    obj: KubeObject,
    patch: Patch,
    opts?: PatchOptions,
  ): Promise<KubeObject>;
  subResourceApply?(
    client: Client,
    subResource: string,
    config: ApplyConfiguration,
    opts?: ApplyOptions,
  ): Promise<KubeObject>;
}

/** The verbs `InterceptorFuncs` may name, to refuse a misspelt one at once. */
const VERBS = new Set<string>([
  "get",
  "list",
  "create",
  "update",
  "patch",
  "apply",
  "delete",
  "deleteAllOf",
  "watch",
  "subResource",
  "subResourceGet",
  "subResourceCreate",
  "subResourceUpdate",
  "subResourcePatch",
  "subResourceApply",
]);

/** Refuses names that are no verb and values that are no function, naming them. */
export function checkFuncs(funcs: InterceptorFuncs): void {
  for (const [name, fn] of Object.entries(funcs)) {
    if (!VERBS.has(name)) {
      throw new TypeError(
        `interceptor: ${JSON.stringify(name)} is not a verb that can be intercepted; use one of ${[...VERBS].join(", ")}`,
      );
    }
    if (fn !== undefined && typeof fn !== "function") {
      throw new TypeError(`interceptor: ${name} must be a function, got ${typeof fn}`);
    }
  }
}

/**
 * `client` with the verbs `funcs` names intercepted (controller-runtime's `interceptor.NewClient`).
 * Each function gets `client` itself, so calling through never loops back into the interceptor.
 */
export function newInterceptorClient(client: WithWatch, funcs: InterceptorFuncs): WithWatch {
  checkFuncs(funcs);
  return new InterceptorClient(client, { ...funcs });
}

export class InterceptorClient implements WithWatch {
  readonly #client: WithWatch;
  readonly #funcs: InterceptorFuncs;
  readonly #close: (() => Promise<void>) | undefined;

  /** `close` replaces the underlying client's (the fake client stops its server). */
  constructor(client: WithWatch, funcs: InterceptorFuncs, close?: () => Promise<void>) {
    this.#client = client;
    this.#funcs = funcs;
    this.#close = close;
  }

  get<T extends KubeObject>(kind: Kind<T>, key: ObjectKey, opts?: GetOptions): Promise<DeepReadonly<T>>;
  get(kind: KindName, key: ObjectKey, opts?: GetOptions): Promise<DeepReadonly<Unstructured>>;
  get(kind: Kind | KindName, key: ObjectKey, opts?: GetOptions): Promise<DeepReadonly<KubeObject>> {
    const f = this.#funcs.get;
    return f ? f(this.#client, kind, key, opts) : this.#client.get(kind, key, opts);
  }

  list<T extends KubeObject>(kind: Kind<T>, opts?: ListOptions): Promise<KubeList<DeepReadonly<T>>>;
  list(kind: KindName, opts?: ListOptions): Promise<KubeList<DeepReadonly<Unstructured>>>;
  list(kind: Kind | KindName, opts?: ListOptions): Promise<KubeList<DeepReadonly<KubeObject>>> {
    const f = this.#funcs.list;
    return f ? f(this.#client, kind, opts) : this.#client.list(kind, opts);
  }

  watch<T extends KubeObject>(kind: Kind<T>, opts?: WatchOptions): Promise<WatchStream<T>>;
  watch(kind: KindName, opts?: WatchOptions): Promise<WatchStream<Unstructured>>;
  watch(kind: Kind | KindName, opts?: WatchOptions): Promise<WatchStream<KubeObject>> {
    const f = this.#funcs.watch;
    return f ? f(this.#client, kind, opts) : this.#client.watch(kind, opts);
  }

  create<T extends KubeObject>(obj: T | DeepReadonly<T>, opts?: CreateOptions): Promise<T> {
    const f = this.#funcs.create;
    return f ? (f(this.#client, obj, opts) as Promise<T>) : this.#client.create(obj, opts);
  }

  update<T extends KubeObject>(obj: T | DeepReadonly<T>, opts?: UpdateOptions): Promise<T> {
    const f = this.#funcs.update;
    return f ? (f(this.#client, obj, opts) as Promise<T>) : this.#client.update(obj, opts);
  }

  patch<T extends KubeObject>(obj: T | DeepReadonly<T>, patch: Patch, opts?: PatchOptions): Promise<T> {
    const f = this.#funcs.patch;
    return f ? (f(this.#client, obj, patch, opts) as Promise<T>) : this.#client.patch(obj, patch, opts);
  }

  apply<T extends KubeObject = Unstructured>(config: ApplyConfiguration<T>, opts?: ApplyOptions): Promise<T> {
    const f = this.#funcs.apply;
    if (f) return f(this.#client, config as ApplyConfiguration, opts) as Promise<T>;
    return this.#client.apply<T>(config as never, opts);
  }

  delete(obj: DeepReadonly<KubeObject>, opts?: DeleteOptions): Promise<void> {
    const f = this.#funcs.delete;
    return f ? f(this.#client, obj, opts) : this.#client.delete(obj, opts);
  }

  deleteAllOf(kind: Kind | KindName, opts?: DeleteAllOfOptions): Promise<void> {
    const f = this.#funcs.deleteAllOf;
    return f ? f(this.#client, kind, opts) : this.#client.deleteAllOf(kind, opts);
  }

  status(): SubResourceClient {
    return this.subResource("status");
  }

  subResource(name: string): SubResourceClient {
    const f = this.#funcs.subResource;
    if (f) return f(this.#client, name);
    return new SubResourceInterceptor(this.#client, this.#client.subResource(name), name, this.#funcs);
  }

  kindFor(obj: DeepReadonly<KubeObject> | KindName, opts?: { signal?: AbortSignal }): Promise<Kind> {
    return this.#client.kindFor(obj, opts);
  }

  isObjectNamespaced(obj: DeepReadonly<KubeObject>): Promise<boolean> {
    return this.#client.isObjectNamespaced(obj);
  }

  close(): Promise<void> {
    return this.#close ? this.#close() : this.#client.close();
  }
}

class SubResourceInterceptor implements SubResourceClient {
  readonly #client: Client;
  readonly #sub: SubResourceClient;
  readonly #name: string;
  readonly #funcs: InterceptorFuncs;

  constructor(client: Client, sub: SubResourceClient, name: string, funcs: InterceptorFuncs) {
    this.#client = client;
    this.#sub = sub;
    this.#name = name;
    this.#funcs = funcs;
  }

  get<S extends KubeObject = Unstructured>(obj: DeepReadonly<KubeObject>, opts?: GetOptions): Promise<S> {
    const f = this.#funcs.subResourceGet;
    return f ? (f(this.#client, this.#name, obj, opts) as Promise<S>) : this.#sub.get<S>(obj, opts);
  }

  create<S extends KubeObject = Unstructured>(
    obj: DeepReadonly<KubeObject>,
    body: KubeObject,
    opts?: CreateOptions,
  ): Promise<S> {
    const f = this.#funcs.subResourceCreate;
    return f
      ? (f(this.#client, this.#name, obj, body, opts) as Promise<S>)
      : this.#sub.create<S>(obj, body, opts);
  }

  update<T extends KubeObject, R extends KubeObject = T>(
    obj: T | DeepReadonly<T>,
    opts?: SubResourceUpdateOptions,
  ): Promise<R> {
    const f = this.#funcs.subResourceUpdate;
    return f ? (f(this.#client, this.#name, obj, opts) as Promise<R>) : this.#sub.update<T, R>(obj, opts);
  }

  patch<T extends KubeObject>(obj: T | DeepReadonly<T>, patch: Patch, opts?: PatchOptions): Promise<T> {
    const f = this.#funcs.subResourcePatch;
    return f
      ? (f(this.#client, this.#name, obj, patch, opts) as Promise<T>)
      : this.#sub.patch(obj, patch, opts);
  }

  apply<T extends KubeObject = Unstructured>(config: ApplyConfiguration<T>, opts?: ApplyOptions): Promise<T> {
    const f = this.#funcs.subResourceApply;
    if (f) return f(this.#client, this.#name, config as ApplyConfiguration, opts) as Promise<T>;
    return this.#sub.apply<T>(config as never, opts);
  }
}
