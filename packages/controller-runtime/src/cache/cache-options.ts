// Options of the Cache, with every default applied in one place (resolveCacheOptions), as
// controller-runtime's `cache.Options` and `defaultOpts`.
import {
  everythingLabelSelector,
  type FieldSelector,
  type GroupVersionKind,
  type Kind,
  type KubeObject,
  type LabelSelector,
  labelSelectorFromRequirements,
  parseLabelSelector,
} from "../api/index.js";
import { nullLogger, type Logger } from "../log/index.js";
import type { RESTMapper } from "../mapper/index.js";
import type { RESTClient } from "../rest/index.js";
import type { Backoff } from "./backoff.js";
import { stripManagedFields, type TransformFunc } from "./transform.js";
import type { WatcherOptions } from "./watcher.js";
import type { Informer, InformerOptions, WatchErrorHandler } from "./informer.js";
import { asMap, type NamespaceConfig, type Namespaces } from "./namespaces.js";

/** Settings for one kind, overriding the cache's defaults. */
export interface ByObject {
  kind: Kind;
  /**
   * Watch only these namespaces, each with its own settings if a map (unset fields default to
   * this entry's, then to the cache's). Not allowed for cluster-scoped kinds. `[]` or `{}`: all
   * namespaces, whatever the cache's default. Default: the cache's `defaultNamespaces`.
   */
  namespaces?: Namespaces;
  /** Default: the cache's `defaultLabelSelector`. */
  labelSelector?: string | LabelSelector;
  /** Default: the cache's `defaultFieldSelector`. */
  fieldSelector?: string | FieldSelector;
  /** Default: the cache's `defaultTransform`. */
  transform?: TransformFunc;
  /**
   * Accepted for controller-runtime parity and ignored: cached objects are frozen and handed out
   * without a copy, so there is no copy to disable. Default: false.
   */
  unsafeDisableDeepCopy?: boolean;
  /** Default: the cache's `syncPeriodMs`. */
  syncPeriodMs?: number;
}

export interface CacheOptions {
  /** The REST client informers list and watch through. Default: `newRESTClient(config)`. */
  restClient?: RESTClient;
  /**
   * Finds the resource and scope of kinds named by group, version and kind (`getInformerForKind`).
   * Default: `newRESTMapper(restClient)`; the Manager shares its own.
   */
  mapper?: RESTMapper;
  /**
   * Watch namespaced kinds in these namespaces only: a list, or a map of namespace to its own
   * selectors, transform and resync period, with `ALL_OTHER_NAMESPACES` (`""`) for every
   * namespace not named (controller-runtime's `DefaultNamespaces`). Default: all namespaces.
   */
  defaultNamespaces?: Namespaces;
  /** Default: everything. */
  defaultLabelSelector?: string | LabelSelector;
  /** Default: everything. */
  defaultFieldSelector?: string | FieldSelector;
  /** Per-kind settings, matched by group, version and kind. Default: none. */
  byObject?: readonly ByObject[];
  /**
   * A label selector added to a kind's own when its informer is made (undefined: none). The
   * Manager's sharding sets it so that a sharded kind's informer holds only this replica's
   * objects. Default: none.
   */
  selectorFor?: (kind: GroupVersionKind) => string | undefined;
  /** Applied to every object before it is stored. Default: `stripManagedFields`. */
  defaultTransform?: TransformFunc;
  /** Resync period of every informer (0: never), jittered ±12.5 %. Default: 36 000 000 ms (10 h). */
  syncPeriodMs?: number;
  /**
   * Reads of a kind with no informer fail with `ResourceNotCachedError` instead of starting one.
   * Default: false.
   */
  readerFailOnMissingInformer?: boolean;
  /** Default: nullLogger(). */
  logger?: Logger;
  /** Options of every informer's list/watch state machine. Default: its defaults. */
  watcher?: WatcherOptions;
  /** A backoff for each reflector. Default: `exponentialBackoff()`. */
  backoff?: () => Backoff;
  /**
   * Told of each list or watch failure of every informer, before it backs off and retries
   * (controller-runtime's `DefaultWatchErrorHandler`). Default: none (logged, and in `health()`).
   */
  defaultWatchErrorHandler?: WatchErrorHandler;
  /**
   * Makes each informer (controller-runtime's `NewInformer`), given the REST client, the kind and
   * the options the cache resolved for it: wrap `newInformer` to observe or change them, or return
   * an informer of your own. Default: `newInformer`.
   */
  newInformer?: <T extends KubeObject>(rest: RESTClient, kind: Kind<T>, opts: InformerOptions) => Informer<T>;
}

/** A namespace's settings with every default applied. */
export interface ResolvedNamespaceConfig {
  labelSelector: string | LabelSelector | undefined;
  fieldSelector: string | FieldSelector | undefined;
  transform: TransformFunc;
  syncPeriodMs: number;
}

/** A kind's settings: kind-wide ones, and those of each namespace it is watched in. */
export interface ResolvedKindOptions extends ResolvedNamespaceConfig {
  /**
   * The namespaces watched, each with its settings (`ALL_OTHER_NAMESPACES` for the rest); empty:
   * all namespaces, with the kind-wide settings.
   */
  namespaces: Readonly<Record<string, ResolvedNamespaceConfig>>;
}

export interface ResolvedCacheOptions {
  restClient: RESTClient | undefined;
  mapper: RESTMapper | undefined;
  readerFailOnMissingInformer: boolean;
  logger: Logger;
  watcher: WatcherOptions | undefined;
  backoff: (() => Backoff) | undefined;
  defaultWatchErrorHandler: WatchErrorHandler | undefined;
  newInformer: NonNullable<CacheOptions["newInformer"]> | undefined;
  /** The settings of a kind: its byObject entry over the defaults. */
  forKind(kind: GroupVersionKind): ResolvedKindOptions;
}

/** A selector of the objects both select. */
function bothSelectors(a: string | LabelSelector | undefined, b: string): LabelSelector {
  const first = typeof a === "string" ? parseLabelSelector(a) : (a ?? everythingLabelSelector());
  return labelSelectorFromRequirements([...first.requirements, ...parseLabelSelector(b).requirements]);
}

type SelectorFor = NonNullable<CacheOptions["selectorFor"]>;

/** Two `selectorFor`s both applied (a kind's selector is both's requirements), e.g. the user's and the ring's. */
export function bothSelectorsFor(
  a: SelectorFor | undefined,
  b: SelectorFor | undefined,
): SelectorFor | undefined {
  if (!a || !b) return a ?? b;
  return (kind) => {
    const x = a(kind);
    const y = b(kind);
    return x === undefined || y === undefined ? (x ?? y) : `${x},${y}`;
  };
}

function gvkKey(g: GroupVersionKind): string {
  return `${g.group}/${g.version}/${g.kind}`;
}

/** `to` with its unset fields taken from `from` (controller-runtime's defaultConfig). */
function defaulted(to: NamespaceConfig, from: NamespaceConfig): NamespaceConfig {
  return {
    labelSelector: to.labelSelector ?? from.labelSelector,
    fieldSelector: to.fieldSelector ?? from.fieldSelector,
    transform: to.transform ?? from.transform,
    unsafeDisableDeepCopy: to.unsafeDisableDeepCopy ?? from.unsafeDisableDeepCopy,
    syncPeriodMs: to.syncPeriodMs ?? from.syncPeriodMs,
  };
}

function checkSyncPeriod(what: string, ms: number | undefined): void {
  if (ms !== undefined && !(Number.isFinite(ms) && ms >= 0)) {
    throw new TypeError(
      `${what}: syncPeriodMs must be a number of milliseconds ≥ 0 (0 turns resyncs off), not ${ms}`,
    );
  }
}

export function resolveCacheOptions(opts: CacheOptions): ResolvedCacheOptions {
  const byObject = new Map<string, ByObject>();
  for (const b of opts.byObject ?? []) {
    const key = gvkKey(b.kind);
    if (byObject.has(key)) {
      throw new TypeError(
        `byObject lists ${b.kind.kind} (${b.kind.apiVersion}) twice: merge the two entries`,
      );
    }
    if (!b.kind.namespaced && b.namespaces !== undefined) {
      throw new TypeError(
        `byObject: ${b.kind.kind} (${b.kind.apiVersion}) is cluster-scoped, but its entry sets namespaces: remove them`,
      );
    }
    checkSyncPeriod(`byObject ${b.kind.kind}`, b.syncPeriodMs);
    for (const [ns, c] of Object.entries(asMap(b.namespaces) ?? {}))
      checkSyncPeriod(`byObject ${b.kind.kind} namespace "${ns}"`, c.syncPeriodMs);
    byObject.set(key, b);
  }
  const defaultNamespaces = asMap(opts.defaultNamespaces) ?? {};
  checkSyncPeriod("cache", opts.syncPeriodMs);
  for (const [ns, c] of Object.entries(defaultNamespaces))
    checkSyncPeriod(`defaultNamespaces "${ns}"`, c.syncPeriodMs);
  const globals: NamespaceConfig = {
    labelSelector: opts.defaultLabelSelector,
    fieldSelector: opts.defaultFieldSelector,
    transform: opts.defaultTransform ?? stripManagedFields,
    syncPeriodMs: opts.syncPeriodMs ?? 10 * 3600 * 1000,
  };
  const resolved = (c: NamespaceConfig, extra: string | undefined): ResolvedNamespaceConfig => ({
    labelSelector: extra === undefined ? c.labelSelector : bothSelectors(c.labelSelector, extra),
    fieldSelector: c.fieldSelector,
    transform: c.transform ?? stripManagedFields,
    syncPeriodMs: c.syncPeriodMs ?? 0,
  });
  return {
    restClient: opts.restClient,
    mapper: opts.mapper,
    readerFailOnMissingInformer: opts.readerFailOnMissingInformer ?? false,
    logger: opts.logger ?? nullLogger(),
    watcher: opts.watcher,
    backoff: opts.backoff,
    defaultWatchErrorHandler: opts.defaultWatchErrorHandler,
    newInformer: opts.newInformer,
    forKind(kind) {
      const extra = opts.selectorFor?.(kind);
      const b = byObject.get(gvkKey(kind));
      const own: NamespaceConfig = b
        ? {
            labelSelector: b.labelSelector,
            fieldSelector: b.fieldSelector,
            transform: b.transform,
            unsafeDisableDeepCopy: b.unsafeDisableDeepCopy,
            syncPeriodMs: b.syncPeriodMs,
          }
        : {};
      // A namespace's settings: its own entry, then the kind's, then the cache's entry of the
      // namespace, then the cache's defaults (controller-runtime's defaultOpts order).
      const namespaces: Record<string, ResolvedNamespaceConfig> = {};
      for (const [ns, c] of Object.entries(asMap(b?.namespaces) ?? defaultNamespaces)) {
        const fromCache = defaultNamespaces[ns];
        let config = defaulted(c, own);
        if (fromCache) config = defaulted(config, fromCache);
        namespaces[ns] = resolved(defaulted(config, globals), extra);
      }
      const kindWide = resolved(defaulted(own, globals), extra);
      return { ...kindWide, namespaces };
    },
  };
}
