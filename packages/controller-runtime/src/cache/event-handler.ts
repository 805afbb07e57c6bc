// Event handlers of an informer, as client-go's ResourceEventHandler: add, update with the old
// object, delete with a marker when the delete itself was missed.
import type { DeepReadonly, KubeObject } from "../api/index.js";

/**
 * A deletion seen only in a relist: the object vanished while the watch was down, so its final
 * state is unknown; `obj` is the last state the cache held. (client-go's
 * `DeletedFinalStateUnknown`.)
 */
export class DeletedFinalStateUnknown<T extends KubeObject = KubeObject> {
  readonly key: string;
  readonly obj: DeepReadonly<T>;
  constructor(key: string, obj: DeepReadonly<T>) {
    this.key = key;
    this.obj = obj;
    Object.freeze(this);
  }
}

/**
 * Callbacks for changes, called in order for each object, after the store holds the change.
 * They run on the informer's loop: keep them short (enqueue a key). A throw, or a returned
 * promise that rejects, is logged and never stops the informer; a promise is not awaited.
 */
export interface ResourceEventHandler<T extends KubeObject = KubeObject> {
  /** `isInInitialList`: the object came with the first list (or is replayed to a late handler). */
  onAdd?(obj: DeepReadonly<T>, isInInitialList: boolean): void;
  /** A change, or a resync (then `oldObj === newObj`). */
  onUpdate?(oldObj: DeepReadonly<T>, newObj: DeepReadonly<T>): void;
  onDelete?(obj: DeepReadonly<T> | DeletedFinalStateUnknown<T>): void;
}

/** A handler added to an informer: remove it, or ask whether it got the initial list. */
export interface HandlerRegistration {
  /** True once the handler has been given every object of the first full list. */
  hasSynced(): boolean;
  /** Stops calling the handler. */
  remove(): void;
}

/** The object a delete notification is about, unwrapping the marker. */
export function deletedObject<T extends KubeObject>(
  obj: DeepReadonly<T> | DeletedFinalStateUnknown<T>,
): DeepReadonly<T> {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}
