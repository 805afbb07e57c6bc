// setupSignalHandler: an AbortSignal aborted on SIGINT or SIGTERM, as controller-runtime's
// signals.SetupSignalHandler. A second signal exits the process with code 1 at once.

export interface SignalHandlerOptions {
  /** Default: `["SIGINT", "SIGTERM"]`. */
  signals?: NodeJS.Signals[];
  /** Called on the second signal. Default: `process.exit(1)`. */
  onSecondSignal?: () => void;
  /**
   * Signals within this many ms of the first count as the same one: a single Ctrl-C reaches a
   * process run through npm or tsx two or three times (from the terminal and from each parent
   * relaying it). Default: 1000.
   */
  repeatWindowMs?: number;
}

export function setupSignalHandler(opts: SignalHandlerOptions = {}): AbortSignal {
  const controller = new AbortController();
  const signals = opts.signals ?? ["SIGINT", "SIGTERM"];
  const second = opts.onSecondSignal ?? (() => process.exit(1));
  const window = opts.repeatWindowMs ?? 1000;
  let first = 0;
  const handler = (sig: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      first = performance.now();
      controller.abort(new Error(`received ${sig}`));
      return;
    }
    if (performance.now() - first >= window) second();
  };
  for (const s of signals) process.on(s, handler);
  return controller.signal;
}
