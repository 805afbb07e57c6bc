// retryOnConflict, as client-go's retry.RetryOnConflict: a read-modify-write that lost an
// optimistic-concurrency race (409 Conflict) is run again from the read, a few times, with a short
// jittered pause between; any other error, or the last conflict, goes to the caller.
import { setTimeout as sleep } from "node:timers/promises";
import { isConflict } from "../rest/status-reasons.js";
import type { DeepReadonly } from "../api/index.js";

export interface RetryBackoff {
  /** Attempts in all. Default 5 (client-go's DefaultRetry). */
  steps?: number;
  /** The first pause, ms. Default 10. */
  durationMs?: number;
  /** Each pause is the previous one times this. Default 1. */
  factor?: number;
  /** Up to this fraction of a pause is added at random. Default 0.1. */
  jitter?: number;
  /** Stops waiting and rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** client-go's retry.DefaultRetry: 5 attempts, 10 ms apart. */
export const defaultRetry: DeepReadonly<Required<Omit<RetryBackoff, "signal">>> = Object.freeze({
  steps: 5,
  durationMs: 10,
  factor: 1,
  jitter: 0.1,
});

/** Runs `fn` (which should read, change and write) until it does not fail with a Conflict. */
export function retryOnConflict<T>(fn: () => Promise<T>, backoff: RetryBackoff = {}): Promise<T> {
  return retryOnError(isConflict, fn, backoff);
}

/** Runs `fn` again while `retriable(error)` holds, as client-go's retry.OnError. */
export async function retryOnError<T>(
  retriable: (err: unknown) => boolean,
  fn: () => Promise<T>,
  backoff: RetryBackoff = {},
): Promise<T> {
  const steps = Math.max(1, backoff.steps ?? defaultRetry.steps);
  let pause = backoff.durationMs ?? defaultRetry.durationMs;
  const factor = backoff.factor ?? defaultRetry.factor;
  const jitter = backoff.jitter ?? defaultRetry.jitter;
  for (let attempt = 1; ; attempt++) {
    backoff.signal?.throwIfAborted();
    try {
      return await fn();
    } catch (err) {
      if (attempt >= steps || !retriable(err)) throw err;
    }
    await sleep(pause * (1 + Math.random() * jitter), undefined, { signal: backoff.signal });
    pause *= factor;
  }
}
