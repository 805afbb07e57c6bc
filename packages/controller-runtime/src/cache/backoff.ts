// Backoff as a wrapper around a stream of watcher events: the watcher reports a failure as an
// `error` event and carries on; this wrapper waits before pulling the next event (so before the
// next request), and forgets past failures once something succeeds. client-go's reflector uses
// 800 ms doubling to 30 s with full jitter; a `Retry-After` from the server waits at least that.
import { retryAfterSeconds, sleep } from "../rest/index.js";
import { WatcherError } from "./watcher.js";

/** Delays for consecutive failures. */
export interface Backoff {
  /** The delay before the next attempt, in ms; each call counts one more failure. */
  next(): number;
  /** Forgets past failures: the next delay is the initial one. */
  reset(): void;
}

export interface ExponentialBackoffOptions {
  /** Default: 800 ms (client-go's reflector). */
  initialMs?: number;
  /** Default: 30 000 ms. */
  maxMs?: number;
  /** Default: 2. */
  factor?: number;
  /** Each delay grows by up to this fraction of itself, at random. Default: 1 (client-go's). */
  jitter?: number;
  /** Default: Math.random. */
  random?: () => number;
}

/** Jittered exponential backoff: `initial·factor^n`, capped, plus up to `jitter` times that. */
export function exponentialBackoff(opts: ExponentialBackoffOptions = {}): Backoff {
  const initial = opts.initialMs ?? 800;
  const max = opts.maxMs ?? 30_000;
  const factor = opts.factor ?? 2;
  const jitter = opts.jitter ?? 1;
  const random = opts.random ?? Math.random;
  let current = initial;
  return {
    next() {
      const base = Math.min(current, max);
      current = Math.min(current * factor, max);
      return base + base * jitter * random();
    },
    reset() {
      current = initial;
    },
  };
}

/** The server's error behind a WatcherError (which carries its Retry-After). */
function causeOf(err: unknown): unknown {
  return err instanceof WatcherError ? err.cause : err;
}

/** What the backoff wrapper needs to know about an event. */
export interface BackoffEvent {
  readonly type: string;
  readonly error?: unknown;
}

/**
 * Passes `events` through, waiting after each `error` event (the backoff's delay, or the
 * server's `Retry-After` when longer) and resetting the backoff after any other event.
 * Ends when `events` ends (a wait ends early when `signal` aborts).
 */
export async function* withBackoff<E extends BackoffEvent>(
  events: AsyncIterable<E>,
  backoff: Backoff,
  signal?: AbortSignal,
): AsyncGenerator<E, void, undefined> {
  for await (const event of events) {
    if (event.type !== "error") {
      backoff.reset();
      yield event;
      continue;
    }
    yield event;
    const retryAfter = retryAfterSeconds(causeOf(event.error));
    const delay = Math.max(backoff.next(), retryAfter !== undefined ? retryAfter * 1000 : 0);
    await sleep(delay, signal);
  }
}

/**
 * As {@link withBackoff}, for batches of events in which an `error` always comes alone (as
 * `watcherBatches` yields them): waits after an error batch, resets after any other.
 */
export async function* withBatchBackoff<E extends BackoffEvent>(
  batches: AsyncIterable<readonly E[]>,
  backoff: Backoff,
  signal?: AbortSignal,
): AsyncGenerator<readonly E[], void, undefined> {
  for await (const batch of batches) {
    const error = batch.length === 1 && batch[0].type === "error" ? batch[0] : undefined;
    if (error === undefined) {
      backoff.reset();
      yield batch;
      continue;
    }
    yield batch;
    const retryAfter = retryAfterSeconds(causeOf(error.error));
    const delay = Math.max(backoff.next(), retryAfter !== undefined ? retryAfter * 1000 : 0);
    await sleep(delay, signal);
  }
}
