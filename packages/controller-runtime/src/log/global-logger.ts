// The process-wide logger (controller-runtime's log.SetLogger and log.Log): `log` forwards every
// call to the logger set last, so loggers derived from it before `setLogger` (package-level ones)
// write through the logger set later. Until then nothing is written, as Go drops what comes
// before SetLogger. The library itself takes loggers explicitly (the Manager's `logger`); this
// is for a program's own code.
import type { KeyValues, Logger } from "./logger.js";
import { nullLogger } from "./null-logger.js";

let current: Logger = nullLogger();
let set = false;

/** Sets the logger `log` (and every logger derived from it) writes through. */
export function setLogger(logger: Logger): void {
  current = logger;
  set = true;
}

/** Whether `setLogger` was called. */
export function loggerSet(): boolean {
  return set;
}

type Step = { name: string } | { values: KeyValues } | { v: number };

class DelegatingLogger implements Logger {
  constructor(readonly steps: readonly Step[]) {}
  #target(): Logger {
    let l = current;
    for (const s of this.steps) {
      if ("name" in s) l = l.withName(s.name);
      else if ("values" in s) l = l.withValues(s.values);
      else l = l.v(s.v);
    }
    return l;
  }
  info(msg: string, kv?: KeyValues): void {
    this.#target().info(msg, kv);
  }
  error(err: unknown, msg: string, kv?: KeyValues): void {
    this.#target().error(err, msg, kv);
  }
  enabled(): boolean {
    return this.#target().enabled();
  }
  v(level: number): Logger {
    return new DelegatingLogger([...this.steps, { v: level }]);
  }
  withName(name: string): Logger {
    return new DelegatingLogger([...this.steps, { name }]);
  }
  withValues(kv: KeyValues): Logger {
    return new DelegatingLogger([...this.steps, { values: kv }]);
  }
}

/** The process-wide logger (controller-runtime's `log.Log`, `ctrl.Log`): writes through `setLogger`'s. */
export const log: Logger = new DelegatingLogger([]);
