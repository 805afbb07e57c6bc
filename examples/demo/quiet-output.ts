// The demo's log destination: standard output, remembering when it last wrote, so that the banner
// can wait for the start-up burst of log lines to pass instead of scrolling away under it.
import { setTimeout as sleep } from "node:timers/promises";

export class QuietOutput {
  private lastWriteAt = Date.now();

  /** A pino destination (what `loggerFromFlags(argv, { destination })` takes). */
  readonly destination = {
    write: (line: string): boolean => {
      this.lastWriteAt = Date.now();
      return process.stdout.write(line);
    },
  };

  /** Resolves once nothing was written for `quietMs`, or after `maxMs` whatever happens. */
  async quiet(quietMs: number, maxMs: number, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + maxMs;
    for (;;) {
      const now = Date.now();
      const quietFor = now - this.lastWriteAt;
      if (quietFor >= quietMs || now >= deadline || signal?.aborted) return;
      await sleep(Math.min(quietMs - quietFor, deadline - now), undefined, { ref: false }).catch(() => {});
    }
  }
}
