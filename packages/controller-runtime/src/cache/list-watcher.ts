// ListerWatcher: the two calls a reflector makes, bound to one resource and its restrictions
// (namespace, label and field selectors, metadata-only). The reflector never sees the REST
// client, so it can be driven by anything that lists and watches.
import type { KubeList, KubeObject, Kind } from "../api/index.js";
import {
  ACCEPT_PARTIAL_METADATA,
  ACCEPT_PARTIAL_METADATA_LIST,
  type RESTClient,
  resourceOf,
  type WatchStream,
} from "../rest/index.js";

/** The list options a reflector sets. */
export interface ReflectorListOptions {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
}

/** The watch options a reflector sets. */
export interface ReflectorWatchOptions {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
}

export interface ListerWatcher<T extends KubeObject = KubeObject> {
  /** One page of the list; a rejection is a `StatusError` or a `NetworkError`. */
  list(opts: ReflectorListOptions, signal: AbortSignal): Promise<KubeList<T>>;
  /** Opens a watch; a refused watch rejects here with a `StatusError`. */
  watch(opts: ReflectorWatchOptions, signal: AbortSignal): Promise<WatchStream<T>>;
}

export interface ListWatchRestrictions {
  /** Only this namespace (ignored for cluster-scoped kinds). Default: all namespaces. */
  namespace?: string;
  /** A label selector in text form. Default: everything. */
  labelSelector?: string;
  /** A field selector in text form. Default: everything. */
  fieldSelector?: string;
  /** Ask for `PartialObjectMetadata` through the `Accept` header. Default: false. */
  metadataOnly?: boolean;
  /** The objects' managedFields are dropped on ingest: protobuf answers need not decode them. Default: false. */
  omitManagedFields?: boolean;
}

/** A ListerWatcher for `kind` over a REST client, with the given restrictions. */
export function listWatcherFor<T extends KubeObject>(
  rest: RESTClient,
  kind: Kind<T>,
  restrictions: ListWatchRestrictions = {},
): ListerWatcher<T> {
  const resource = resourceOf(kind);
  const namespace = kind.namespaced && restrictions.namespace ? restrictions.namespace : undefined;
  const { labelSelector, fieldSelector } = restrictions;
  const meta = restrictions.metadataOnly === true;
  const omitManagedFields = restrictions.omitManagedFields === true || undefined;
  return {
    list(opts, signal) {
      return rest.list<T>(resource, {
        ...opts,
        namespace,
        labelSelector: labelSelector || undefined,
        fieldSelector: fieldSelector || undefined,
        accept: meta ? ACCEPT_PARTIAL_METADATA_LIST : undefined,
        omitManagedFields,
        signal,
      });
    },
    watch(opts, signal) {
      return rest.watch<T>(resource, {
        ...opts,
        namespace,
        labelSelector: labelSelector || undefined,
        fieldSelector: fieldSelector || undefined,
        accept: meta ? ACCEPT_PARTIAL_METADATA : undefined,
        omitManagedFields,
        signal,
      });
    },
  };
}
