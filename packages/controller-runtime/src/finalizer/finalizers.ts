// controller-runtime's pkg/finalizer: named finalizers registered once and run together in one
// reconcile. While the object lives, `finalize` adds every registered key it lacks; once it is
// being deleted, it runs the finalizer of each key it still has and removes the key when that
// succeeded. Failures are collected, not thrown, because the object may still need writing: the
// keys that did finish were removed, and a failing finalizer may have set a condition.
import { type DeepReadonly, deepCopy, type KubeObject } from "../api/index.js";
import { addFinalizer, containsFinalizer, removeFinalizer } from "../controllerutil/index.js";
import { FinalizeError, FinalizerAlreadyRegisteredError } from "./errors.js";

/** What a finalizer changed on the object it was given. */
export interface FinalizerResult {
  /** Something outside `status` changed: the object needs an update. */
  updated?: boolean;
  /** Something in `status` changed: the object needs a status update. */
  statusUpdated?: boolean;
}

export interface FinalizeContext {
  signal: AbortSignal;
}

/**
 * Cleans up after an object being deleted. It may change `object` in place (a condition, say)
 * and says so in its result (a change to `status` is also noticed without it); throwing keeps
 * its key on the object, so it runs again.
 */
export interface Finalizer<T extends KubeObject = KubeObject> {
  finalize(object: T, ctx: FinalizeContext): Promise<FinalizerResult>;
}

/** What `Finalizers.finalize` did. Write `object` when `updated` (and its status when `statusUpdated`). */
export interface FinalizeResult<T extends KubeObject> {
  /** The object with keys added or removed and the finalizers' changes: a copy of the one given. */
  object: T;
  updated: boolean;
  statusUpdated: boolean;
  /** Set when a finalizer failed (its key stays). Write the object first, then throw it to retry. */
  error?: FinalizeError;
}

/** controller-runtime's `finalizer.Finalizers`: a `Registerer` and a `Finalizer` of every key. */
export interface Finalizers<T extends KubeObject = KubeObject> {
  /** Registers `finalizer` under `key`; throws `FinalizerAlreadyRegisteredError` for a key seen before. */
  register(
    key: string,
    finalizer: Finalizer<T> | ((object: T, ctx: FinalizeContext) => Promise<FinalizerResult>),
  ): void;
  /**
   * Adds the missing keys to a live object, or runs the finalizers of a deleting one, in the
   * order they were registered. Never changes `object` (which may be frozen, from the cache).
   */
  finalize(object: DeepReadonly<T>, opts?: { signal?: AbortSignal }): Promise<FinalizeResult<T>>;
}

/** An empty registry (controller-runtime's `NewFinalizers`). */
export function newFinalizers<T extends KubeObject = KubeObject>(): Finalizers<T> {
  const registered = new Map<string, Finalizer<T>>();
  return {
    register(key, finalizer) {
      if (registered.has(key)) throw new FinalizerAlreadyRegisteredError(key);
      registered.set(key, typeof finalizer === "function" ? { finalize: finalizer } : finalizer);
    },
    async finalize(original, opts = {}) {
      const ctx = { signal: opts.signal ?? new AbortController().signal };
      let object = deepCopy(original) as T;
      let updated = false;
      let statusUpdated = false;
      const failed: string[] = [];
      const errors: Error[] = [];
      const deleting = Boolean(object.metadata?.deletionTimestamp);
      for (const [key, finalizer] of registered) {
        if (!deleting) {
          if (!containsFinalizer(object, key)) {
            object = addFinalizer(object, key) as T;
            updated = true;
          }
          continue;
        }
        if (!containsFinalizer(object, key)) continue;
        const before = snapshot(object);
        let result: FinalizerResult;
        try {
          result = await finalizer.finalize(object, ctx);
        } catch (err) {
          // The finalizer may have set a condition before failing. Go returns a Result beside the
          // error; a throw carries none, so what it changed is found by comparing.
          const after = snapshot(object);
          updated ||= after.rest !== before.rest;
          statusUpdated ||= after.status !== before.status;
          failed.push(key);
          errors.push(
            new Error(`finalizer ${JSON.stringify(key)} failed: ${messageOf(err)}`, { cause: err }),
          );
          continue;
        }
        object = removeFinalizer(object, key) as T;
        updated = true;
        statusUpdated ||= result?.statusUpdated === true || snapshot(object).status !== before.status;
      }
      const result: FinalizeResult<T> = { object, updated, statusUpdated };
      if (errors.length > 0) result.error = new FinalizeError(failed, errors);
      return result;
    },
  };
}

/** The object as two strings: its status, and everything else. */
function snapshot(object: KubeObject): { status: string; rest: string } {
  const { status, ...rest } = object as KubeObject & { status?: unknown };
  return { status: JSON.stringify(status) ?? "", rest: JSON.stringify(rest) };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
