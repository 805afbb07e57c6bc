// The signal of the Runnable whose code is running (a leaf module: manager, controllers and
// sources all read it, none through another). The manager starts each Runnable inside this
// scope, so that what a Runnable waits on without passing a signal (a `Channel.send` with no
// reader left) still ends when the manager stops it: the README's ticker, written naturally,
// must not hold shutdown for its whole grace period. A leaf module, so that sources can read it
// without depending on the manager.
import { AsyncLocalStorage } from "node:async_hooks";

const scope = new AsyncLocalStorage<AbortSignal>();

// On Node 20 an AsyncLocalStorage, once entered, turns on promise hooks for the whole process:
// every promise then costs more (8% of a controller's CPU per object in bench/controller.ts). The
// library's own runnables (controllers, caches, servers) pass signals explicitly and never need the
// scope, so they start outside it; only runnables a user adds pay for it.
const UNSCOPED = Symbol.for("controller-runtime.unscopedRunnable");

/** Marks one of the library's own runnables, which starts outside the Runnable scope. */
export function markUnscoped<T extends object>(runnable: T): T {
  Object.defineProperty(runnable, UNSCOPED, { value: true });
  return runnable;
}

/** Whether `runnable` is one of the library's own, started outside the Runnable scope. */
export function isUnscopedRunnable(runnable: object): boolean {
  return (runnable as Record<symbol, unknown>)[UNSCOPED] === true;
}

/** Runs `fn` (a Runnable's start) with `signal` as the current Runnable's signal. */
export function runInRunnableScope<T>(signal: AbortSignal, fn: () => T): T {
  return scope.run(signal, fn);
}

/** Starts `runnable` with `signal`: in the Runnable scope, unless it is one of the library's own. */
export function startRunnable<T>(runnable: { start(signal: AbortSignal): T }, signal: AbortSignal): T {
  return isUnscopedRunnable(runnable)
    ? runnable.start(signal)
    : scope.run(signal, () => runnable.start(signal));
}

/** The signal of the Runnable running the caller, if the caller runs inside one. */
export function currentRunnableSignal(): AbortSignal | undefined {
  return scope.getStore();
}

/**
 * Whether `err`, thrown by a Runnable after `signal` aborted, only says it stopped because it was
 * asked to: the signal's own reason, or an AbortError from an API that took the signal (Node's
 * timers, fetch, events.once). Such a Runnable stopped cleanly; controller-runtime's Runnables
 * likewise return `ctx.Err()`.
 */
export function isStopOf(signal: AbortSignal, err: unknown): boolean {
  if (!signal.aborted) return false;
  if (err === signal.reason) return true;
  return err instanceof Error && err.name === "AbortError";
}
