// settle(): the oracle tests assert after, instead of sleeping. It resolves once every informer
// running in this process holds what the API server holds (the same objects at the same
// versions), every controller's queue has no key ready and no reconcile runs, and that has held
// for a quiet moment (a reconcile's write would have shown by then). Keys waiting out a
// requeueAfter do not count (the system is settled until they come due); keys waiting out a
// backoff after an error (or a `requeue`) do: their work is not done, as after a conflict storm.
import { runningControllers, runningInformers } from "../internal/running.js";

export interface SettleOptions {
  /** Give up after this long. Default: 30 000 ms. */
  timeoutMs?: number;
  /** How long everything must stay settled. Default: 100 ms. */
  quietMs?: number;
}

/** Thrown when settle() runs out of time; says what had not settled. */
export class SettleTimeoutError extends Error {
  override readonly name = "SettleTimeoutError";
  readonly code = "ERR_ENVTEST_SETTLE";
}

/** What has not settled yet; empty when everything has. */
async function unsettled(): Promise<string[]> {
  const out: string[] = [];
  for (const c of runningControllers()) {
    const busy = c.busy();
    if (busy) out.push(`${c.what} is busy (${busy})`);
  }
  if (out.length > 0) return out;
  const behind = await Promise.all(
    runningInformers().map(async (i) => ((await i.caughtUp().catch(() => false)) ? undefined : i.what)),
  );
  for (const what of behind) if (what) out.push(`${what} lags the API server`);
  return out;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once everything running in this process has caught up and gone quiet (see the file comment). */
export async function settle(opts: SettleOptions = {}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const quietMs = opts.quietMs ?? 100;
  const deadline = performance.now() + timeoutMs;
  let last: string[] = [];
  while (performance.now() < deadline) {
    last = await unsettled();
    if (last.length === 0) {
      await pause(quietMs);
      last = await unsettled();
      if (last.length === 0) return;
    }
    await pause(10);
  }
  throw new SettleTimeoutError(`envtest: not settled after ${timeoutMs} ms: ${last.join("; ")}`);
}
