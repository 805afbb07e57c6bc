// A logger made when it is first used. A reconcile gets a logger with its request's keys and its
// reconcileID, but most reconciles write nothing: binding those values (two children, their key
// copies) was ~0.6 KB of garbage per reconcile that nobody read.
import type { KeyValues, Logger } from "./logger.js";

class DeferredLogger implements Logger {
  #logger: Logger | undefined;
  #make: (() => Logger) | undefined;

  constructor(make: () => Logger) {
    this.#make = make;
  }

  #get(): Logger {
    if (this.#logger === undefined) {
      this.#logger = this.#make!();
      this.#make = undefined; // what it captured is not needed any longer
    }
    return this.#logger;
  }

  info(msg: string, kv?: KeyValues): void {
    this.#get().info(msg, kv);
  }

  error(err: unknown, msg: string, kv?: KeyValues): void {
    this.#get().error(err, msg, kv);
  }

  v(level: number): Logger {
    return this.#get().v(level);
  }

  enabled(): boolean {
    return this.#get().enabled();
  }

  withName(name: string): Logger {
    return this.#get().withName(name);
  }

  withValues(kv: KeyValues): Logger {
    return this.#get().withValues(kv);
  }
}

/** A logger that calls `make` on its first use, and is that logger from then on. */
export function deferredLogger(make: () => Logger): Logger {
  return new DeferredLogger(make);
}
