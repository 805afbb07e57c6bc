// Runnables: what a Manager starts and stops. A Runnable's start() settles only once it stopped.

/** Something the manager runs until its signal aborts, like controller-runtime's manager.Runnable. */
export interface Runnable {
  /**
   * Runs until `signal` aborts; rejecting stops the manager, and `start()` rejects with the error.
   * Once `signal` aborted, rejecting with its reason or an AbortError is a clean stop. Code it
   * runs sees `signal` as the current Runnable's, so a `Channel.send` without a signal of its own
   * stops waiting when the Runnable is stopped.
   */
  start(signal: AbortSignal): Promise<void>;
  /** Whether it runs only on the leader. Default (absent): true, as in controller-runtime. */
  needLeaderElection?(): boolean;
}

export interface RunnableFuncOptions {
  /** Default: true. */
  needLeaderElection?: boolean;
}

/** A Runnable from a function, like controller-runtime's manager.RunnableFunc. */
export function runnableFunc(
  fn: (signal: AbortSignal) => Promise<void>,
  opts: RunnableFuncOptions = {},
): Runnable {
  const leader = opts.needLeaderElection ?? true;
  return { start: fn, needLeaderElection: () => leader };
}

/** Whether a runnable waits for election: true unless it says otherwise. */
export function needsLeaderElection(r: Runnable): boolean {
  return typeof r.needLeaderElection === "function" ? r.needLeaderElection() : true;
}

/** Resolves when `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
