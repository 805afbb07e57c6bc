// The signal of the Runnable whose code is running. The manager starts each Runnable inside this
// scope, so that what a Runnable waits on without passing a signal (a `Channel.send` with no
// reader left) still ends when the manager stops it: the README's ticker, written naturally,
// must not hold shutdown for its whole grace period. A leaf module, so that sources can read it
// without depending on the manager.
import { AsyncLocalStorage } from "node:async_hooks";

const scope = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` (a Runnable's start) with `signal` as the current Runnable's signal. */
export function runInRunnableScope<T>(signal: AbortSignal, fn: () => T): T {
  return scope.run(signal, fn);
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
