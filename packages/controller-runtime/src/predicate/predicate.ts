// Predicate: decides whether an event reaches the handler. Sources apply every predicate given to
// them (all must pass) before calling the handler.
import type { DeepReadonly, KubeObject } from "../api/index.js";
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from "../event/index.js";

/** Filters events before they reach a handler: return false to drop the event. */
export interface Predicate<T extends KubeObject = KubeObject> {
  create(event: CreateEvent<T>): boolean;
  update(event: UpdateEvent<T>): boolean;
  delete(event: DeleteEvent<T>): boolean;
  generic(event: GenericEvent<T>): boolean;
}

/** The functions of {@link funcs}; each one left out lets its events through. */
export interface PredicateFuncs<T extends KubeObject = KubeObject> {
  /** Default: let every create through. */
  create?(event: CreateEvent<T>): boolean;
  /** Default: let every update through. */
  update?(event: UpdateEvent<T>): boolean;
  /** Default: let every delete through. */
  delete?(event: DeleteEvent<T>): boolean;
  /** Default: let every generic event through. */
  generic?(event: GenericEvent<T>): boolean;
}

/** A predicate from functions; a missing function passes its events (controller-runtime's `predicate.Funcs`). */
export function funcs<T extends KubeObject = KubeObject>(f: PredicateFuncs<T>): Predicate<T> {
  return {
    create: (e) => f.create?.(e) ?? true,
    update: (e) => f.update?.(e) ?? true,
    delete: (e) => f.delete?.(e) ?? true,
    generic: (e) => f.generic?.(e) ?? true,
  };
}

/**
 * A predicate applying `filter` to each event's object (the new one for updates). A generic event
 * with no object passes: there is nothing to filter on.
 */
export function newPredicateFuncs<T extends KubeObject = KubeObject>(
  filter: (obj: DeepReadonly<T>) => boolean,
): Predicate<T> {
  return {
    create: (e) => filter(e.object),
    update: (e) => filter(e.objectNew),
    delete: (e) => filter(e.object),
    generic: (e) => e.object === undefined || filter(e.object),
  };
}

/** True when every predicate passes the event (an empty list passes everything). */
export function and<T extends KubeObject = KubeObject>(...predicates: readonly Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => predicates.every((p) => p.create(e)),
    update: (e) => predicates.every((p) => p.update(e)),
    delete: (e) => predicates.every((p) => p.delete(e)),
    generic: (e) => predicates.every((p) => p.generic(e)),
  };
}

/** True when any predicate passes the event (an empty list passes nothing). */
export function or<T extends KubeObject = KubeObject>(...predicates: readonly Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => predicates.some((p) => p.create(e)),
    update: (e) => predicates.some((p) => p.update(e)),
    delete: (e) => predicates.some((p) => p.delete(e)),
    generic: (e) => predicates.some((p) => p.generic(e)),
  };
}

/** The opposite of `predicate`. */
export function not<T extends KubeObject = KubeObject>(predicate: Predicate<T>): Predicate<T> {
  return {
    create: (e) => !predicate.create(e),
    update: (e) => !predicate.update(e),
    delete: (e) => !predicate.delete(e),
    generic: (e) => !predicate.generic(e),
  };
}
