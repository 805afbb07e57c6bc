// The func source: a custom source from a function (controller-runtime's `source.Func`).
import type { RequestQueue } from "../handler/index.js";
import type { Request } from "../reconcile/index.js";
import type { Source, SourceStartOptions } from "./source.js";

/** Options of {@link func}. */
export interface FuncSourceOptions {
  /** Shown in the controller's logs. Default: the function's name. */
  name?: string;
  /** Resolves once the source delivered its initial state (see `Source.waitForSync`). Default: none. */
  waitForSync?(signal: AbortSignal): Promise<void>;
}

/**
 * A source that calls `fn(signal, queue)` once when the controller starts it. `fn` must return
 * promptly (start any long work in the background, stopping when `signal` aborts): the controller
 * waits for it before starting its workers.
 */
export function func<Req = Request>(
  fn: (signal: AbortSignal, queue: RequestQueue<Req>, options: SourceStartOptions) => void | Promise<void>,
  options: FuncSourceOptions = {},
): Source<Req> {
  const name = options.name ?? (fn.name || "anonymous");
  const source: Source<Req> = {
    async start(signal, queue, startOptions) {
      await fn(signal, queue, startOptions ?? {});
    },
    toString: () => `func source: ${name}`,
  };
  if (options.waitForSync !== undefined) source.waitForSync = options.waitForSync;
  return source;
}
