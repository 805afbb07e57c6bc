import type { ApplyInput } from "../apply-configuration.js";
// The Client's implementation: reads from the cache or the server, writes to the server. Kinds
// named by descriptor are used as they are; any other name (and every object written) is
// resolved through the RESTMapper (built-in kinds without asking).
import type { Status } from "kubernetes-types/meta/v1.js";
import {
  type DeepReadonly,
  fieldSelectorFromSet,
  type Kind,
  type KubeList,
  type KubeObject,
  labelSelectorFromSet,
  type ObjectKey,
  parseAPIVersion,
  type Unstructured,
} from "../../api/index.js";
import { isMetadataOnly, type Reader, StaleCacheError } from "../../cache/index.js";
import {
  ACCEPT_PARTIAL_METADATA,
  ACCEPT_PARTIAL_METADATA_LIST,
  isNotFound,
  type RESTClient,
  resourceOf,
  type WatchStream,
} from "../../rest/index.js";
import type { KindName, WithWatch } from "../client.js";
import type { RESTMapper } from "../../mapper/index.js";
import {
  type ApplyOptions,
  type CreateOptions,
  type DeleteAllOfOptions,
  type DeleteOptions,
  type GetOptions,
  gvkKey,
  type ListOptions,
  type PatchOptions,
  type ResolvedClientOptions,
  type UpdateOptions,
  type WatchOptions,
} from "../options.js";
import type { Patch } from "../patch.js";
import type { SubResourceClient } from "../subresource-client.js";
import { checkNamespace, Writer } from "./writer.js";
import { KindResolver } from "./kind-resolver.js";
import { SubResource } from "./subresource.js";
import { WriteLedger } from "./write-ledger.js";

export interface KubeClientParts {
  rest: RESTClient;
  ownRest: boolean;
  mapper: RESTMapper;
  options: ResolvedClientOptions;
}

export function isKind(ref: Kind | KindName): ref is Kind {
  return "plural" in ref && "namespaced" in ref && "apiVersion" in ref;
}

function selectorText(...parts: (string | undefined)[]): string | undefined {
  const text = parts.filter((p) => p !== undefined && p !== "").join(",");
  return text === "" ? undefined : text;
}

/** The label and field selectors of list options, as query text. */
export function listSelectors(
  opts: Pick<ListOptions, "matchingLabels" | "labelSelector" | "matchingFields" | "fieldSelector">,
): {
  labelSelector?: string;
  fieldSelector?: string;
} {
  const labels =
    opts.matchingLabels && Object.keys(opts.matchingLabels).length > 0
      ? labelSelectorFromSet(opts.matchingLabels).toString()
      : undefined;
  const fields =
    opts.matchingFields && Object.keys(opts.matchingFields).length > 0
      ? fieldSelectorFromSet(opts.matchingFields).toString()
      : undefined;
  return {
    labelSelector: selectorText(labels, opts.labelSelector?.toString()),
    fieldSelector: selectorText(fields, opts.fieldSelector?.toString()),
  };
}

/** Objects in lists come without apiVersion and kind; controllers expect them, so fill them in. */
function stampKind(obj: KubeObject, kind: Kind): void {
  if (obj.apiVersion !== kind.apiVersion || obj.kind !== kind.kind) {
    obj.apiVersion = kind.apiVersion;
    obj.kind = kind.kind;
  }
}

export class KubeClient implements WithWatch {
  readonly #rest: RESTClient;
  readonly #ownRest: boolean;
  readonly #opts: ResolvedClientOptions;
  readonly #writer: Writer;
  readonly #kinds: KindResolver;

  constructor(parts: KubeClientParts) {
    this.#rest = parts.rest;
    this.#ownRest = parts.ownRest;
    this.#opts = parts.options;
    this.#kinds = new KindResolver(parts.mapper);
    const o = parts.options;
    const ledger = o.cache && o.readYourWrites === "wait" ? new WriteLedger() : undefined;
    this.#writer = new Writer(parts.rest, o, this.#kinds, ledger);
  }

  /**
   * A cached read that first waits for this client's pending writes of what it reads (see
   * `readYourWrites`); they are forgotten once it went through.
   */
  async #readAfterWrites<R>(
    kind: Kind,
    pending: ReturnType<WriteLedger["forGet"]>,
    read: (after: { after?: typeof pending; staleAfterMs?: number }) => Promise<R>,
  ): Promise<R> {
    if (pending === undefined) return read({});
    const started = performance.now();
    const metrics = this.#opts.readYourWritesMetrics;
    try {
      const out = await read({ after: pending, staleAfterMs: this.#opts.readYourWritesTimeoutMs });
      this.#writer.ledger?.forget(kind, pending);
      metrics?.waited(kind.kind, (performance.now() - started) / 1000);
      return out;
    } catch (err) {
      if (err instanceof StaleCacheError) metrics?.timedOut(kind.kind);
      // NotFound comes after the wait: the writes were seen (a delete, or a write since deleted).
      else if (isNotFound(err)) this.#writer.ledger?.forget(kind, pending);
      throw err;
    }
  }

  async kindFor(
    obj: DeepReadonly<KubeObject> | KindName,
    opts: { signal?: AbortSignal } = {},
  ): Promise<Kind> {
    if ("group" in obj && "version" in obj && "kind" in obj && typeof obj.kind === "string") {
      return this.#kinds.kindFor({ group: obj.group, version: obj.version, kind: obj.kind }, opts.signal);
    }
    return this.#writer.kindOfObject(obj as KubeObject, "kindFor", opts.signal);
  }

  async isObjectNamespaced(obj: DeepReadonly<KubeObject>): Promise<boolean> {
    return (await this.kindFor(obj)).namespaced;
  }

  async #resolve(ref: Kind | KindName, signal: AbortSignal | undefined): Promise<Kind> {
    if (isKind(ref)) return ref;
    const gvk = "apiVersion" in ref ? { ...parseAPIVersion(ref.apiVersion), kind: ref.kind } : ref;
    return this.#kinds.kindFor(gvk, signal);
  }

  /** The cache to read `kind` from, if any: descriptors always, names only with `cacheUnstructured`. */
  #cacheFor(kind: Kind, byDescriptor: boolean): Reader | undefined {
    const { cache, cacheDisableFor, cacheUnstructured } = this.#opts;
    if (!cache || cacheDisableFor.has(gvkKey(kind))) return undefined;
    return byDescriptor || cacheUnstructured ? cache : undefined;
  }

  async get<T extends KubeObject>(
    ref: Kind<T> | KindName,
    key: ObjectKey,
    opts: GetOptions = {},
  ): Promise<DeepReadonly<T>> {
    const kind = (await this.#resolve(ref, opts.signal)) as Kind<T>;
    checkNamespace(kind, key.namespace, key.name, "get");
    const cache = this.#cacheFor(kind, isKind(ref));
    if (cache) {
      const pending = this.#writer.ledger?.forGet(kind, key.namespace, key.name);
      if (pending === undefined) return cache.get(kind, key, { signal: opts.signal });
      return this.#readAfterWrites(kind, pending, (w) => cache.get(kind, key, { ...w, signal: opts.signal }));
    }
    const metadataOnly = isMetadataOnly(kind);
    const obj = await this.#rest.get<T>(resourceOf(kind), key.name, {
      namespace: kind.namespaced ? key.namespace : undefined,
      accept: metadataOnly ? ACCEPT_PARTIAL_METADATA : undefined,
      signal: opts.signal,
    });
    if (metadataOnly) stampKind(obj, kind);
    return obj as DeepReadonly<T>;
  }

  async list<T extends KubeObject>(
    ref: Kind<T> | KindName,
    opts: ListOptions = {},
  ): Promise<KubeList<DeepReadonly<T>>> {
    const kind = (await this.#resolve(ref, opts.signal)) as Kind<T>;
    const cache = this.#cacheFor(kind, isKind(ref));
    if (cache) {
      const pending = this.#writer.ledger?.forList(kind, opts.inNamespace);
      if (pending === undefined) return cache.list(kind, opts);
      return this.#readAfterWrites(kind, pending, (w) => cache.list(kind, { ...opts, ...w }));
    }
    const list = await this.#rest.list<T>(resourceOf(kind), {
      namespace: kind.namespaced ? opts.inNamespace || undefined : undefined,
      ...listSelectors(opts),
      limit: opts.limit,
      continue: opts.continue,
      accept: isMetadataOnly(kind) ? ACCEPT_PARTIAL_METADATA_LIST : undefined,
      signal: opts.signal,
    });
    list.items ??= [];
    for (const item of list.items) stampKind(item, kind);
    return list as KubeList<DeepReadonly<T>>;
  }

  async watch<T extends KubeObject>(
    ref: Kind<T> | KindName,
    opts: WatchOptions = {},
  ): Promise<WatchStream<T>> {
    const kind = (await this.#resolve(ref, opts.signal)) as Kind<T>;
    return this.#rest.watch<T>(resourceOf(kind), {
      namespace: kind.namespaced ? opts.inNamespace || undefined : undefined,
      ...listSelectors(opts),
      resourceVersion: opts.resourceVersion,
      allowWatchBookmarks: opts.allowWatchBookmarks,
      sendInitialEvents: opts.sendInitialEvents,
      resourceVersionMatch: opts.sendInitialEvents ? "NotOlderThan" : undefined,
      timeoutSeconds: opts.timeoutSeconds,
      accept: isMetadataOnly(kind) ? ACCEPT_PARTIAL_METADATA : undefined,
      signal: opts.signal,
    });
  }

  // A cached object (DeepReadonly) is written as it is: writes never change their argument.
  create<T extends KubeObject>(obj: T | DeepReadonly<T>, opts: CreateOptions = {}): Promise<T> {
    return this.#writer.create(obj as T, undefined, opts);
  }

  update<T extends KubeObject>(obj: T | DeepReadonly<T>, opts: UpdateOptions = {}): Promise<T> {
    return this.#writer.update(obj as T, undefined, obj as T, opts);
  }

  patch<T extends KubeObject>(obj: T | DeepReadonly<T>, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return this.#writer.patch(obj as T, undefined, patch, opts);
  }

  apply<T extends KubeObject = Unstructured>(config: ApplyInput<T>, opts: ApplyOptions = {}): Promise<T> {
    return this.#writer.apply(config as KubeObject, undefined, opts) as Promise<T>;
  }

  async delete(obj: DeepReadonly<KubeObject>, opts: DeleteOptions = {}): Promise<void> {
    const { kind, namespace, name } = await this.#writer.target(obj, "delete", opts.signal);
    const answer = await this.#rest.delete<KubeObject | Status>(resourceOf(kind), name, {
      namespace,
      dryRun: opts.dryRun,
      propagationPolicy: opts.propagationPolicy,
      gracePeriodSeconds: opts.gracePeriodSeconds,
      preconditions: opts.preconditions,
      signal: opts.signal,
    });
    if (!opts.dryRun) this.#writer.ledger?.recordDelete(kind, namespace, name, answer);
  }

  async deleteAllOf(ref: Kind | KindName, opts: DeleteAllOfOptions = {}): Promise<void> {
    const kind = await this.#resolve(ref, opts.signal);
    await this.#rest.deleteCollection(resourceOf(kind), {
      namespace: kind.namespaced ? opts.inNamespace || undefined : undefined,
      ...listSelectors(opts),
      dryRun: opts.dryRun,
      propagationPolicy: opts.propagationPolicy,
      gracePeriodSeconds: opts.gracePeriodSeconds,
      preconditions: opts.preconditions,
      signal: opts.signal,
    });
  }

  status(): SubResourceClient {
    return new SubResource(this.#rest, this.#writer, "status");
  }

  subResource(name: string): SubResourceClient {
    if (!name || name.includes("/")) {
      throw new TypeError(
        `subResource: ${JSON.stringify(name)} is not a subresource name; use e.g. "status", "scale", "eviction"`,
      );
    }
    return new SubResource(this.#rest, this.#writer, name);
  }

  async close(): Promise<void> {
    if (this.#ownRest) await this.#rest.close();
  }
}
