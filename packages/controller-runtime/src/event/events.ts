// The events sources hand to predicates and handlers. Objects are the cache's frozen objects:
// read them, never change them.
import type { DeepReadonly, KubeObject } from "../api/index.js";

/** An object was created, or seen for the first time (in the informer's first list, say). */
export interface CreateEvent<T extends KubeObject = KubeObject> {
  readonly object: DeepReadonly<T>;
  /**
   * True when the object came with the informer's initial list (or was replayed to a handler added
   * late) rather than being created while watching. Handlers queue such requests at low priority.
   */
  readonly isInInitialList?: boolean;
}

/**
 * An object changed. `objectOld === objectNew` (same resourceVersion) for a resync, which
 * handlers queue at low priority.
 */
export interface UpdateEvent<T extends KubeObject = KubeObject> {
  readonly objectOld: DeepReadonly<T>;
  readonly objectNew: DeepReadonly<T>;
}

/** An object was deleted. */
export interface DeleteEvent<T extends KubeObject = KubeObject> {
  /** The object as last seen. */
  readonly object: DeepReadonly<T>;
  /**
   * True when the delete itself was missed (the watch was down) and only a relist showed the object
   * gone: `object` is the last state the cache held, not the final one.
   */
  readonly deleteStateUnknown: boolean;
}

/**
 * An event from outside the cluster (a ticker, a webhook from another system), sent through a
 * channel source. It may carry no object at all, as `event.GenericEvent{}` does in Go: map
 * functions then run with `undefined`.
 */
export interface GenericEvent<T extends KubeObject = KubeObject> {
  readonly object?: DeepReadonly<T>;
}
