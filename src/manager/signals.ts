// setupSignalHandler: an AbortSignal aborted on SIGINT or SIGTERM, as controller-runtime's
// signals.SetupSignalHandler. A second signal exits the process with code 1 at once.

export interface SignalHandlerOptions {
  /** Default: `["SIGINT", "SIGTERM"]`. */
  signals?: NodeJS.Signals[];
  /** Called on the second signal. Default: `process.exit(1)`. */
  onSecondSignal?: () => void;
}

export function setupSignalHandler(opts: SignalHandlerOptions = {}): AbortSignal {
  const controller = new AbortController();
  const signals = opts.signals ?? ["SIGINT", "SIGTERM"];
  const second = opts.onSecondSignal ?? (() => process.exit(1));
  const handler = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      second();
      return;
    }
    controller.abort(new Error(`received ${sig}`));
  };
  for (const s of signals) process.on(s, handler);
  return controller.signal;
}
