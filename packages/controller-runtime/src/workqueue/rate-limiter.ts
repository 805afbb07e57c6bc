// Rate limiters decide how long a key waits before it is retried (`addRateLimited`). They follow
// k8s.io/client-go/util/workqueue/default_rate_limiters.go: per-item exponential backoff, a token
// bucket shared by all keys, and the max of several.
import { type Clock, realClock } from "./clock.js";

/** Decides the delay before a key is retried, and remembers its failures until `forget`. */
export interface RateLimiter<K extends string = string> {
  /** Records one more failure of `key` and returns how long it should wait, in milliseconds. */
  when(key: K): number;
  /** Drops what is known about `key` (after a success): its next delay starts from the bottom again. */
  forget(key: K): void;
  /** How many times `key` has been through `when` since it was last forgotten. */
  numRequeues(key: K): number;
}

/** Options of {@link itemExponentialFailureRateLimiter}. */
export interface ExponentialFailureOptions {
  /** Delay after the first failure, in ms; it doubles with each further failure. Default: 5. */
  baseDelayMs?: number;
  /** Longest delay, in ms. Default: 1_000_000 (1000 s). */
  maxDelayMs?: number;
}

/**
 * Per-key exponential backoff: base · 2^failures, capped at the maximum (5 ms, 10 ms, 20 ms, ...,
 * 1000 s by default). Memory grows with the number of failing keys until they are forgotten.
 */
export function itemExponentialFailureRateLimiter<K extends string = string>(
  options: ExponentialFailureOptions = {},
): RateLimiter<K> {
  const base = options.baseDelayMs ?? 5;
  const max = options.maxDelayMs ?? 1_000_000;
  checkNonNegative("baseDelayMs", base);
  checkNonNegative("maxDelayMs", max);
  const failures = new Map<K, number>();
  return {
    when(key) {
      const exp = failures.get(key) ?? 0;
      failures.set(key, exp + 1);
      // Bounding the exponent keeps 2 ** exp finite (a zero base then stays 0, not NaN); a product
      // that overflows to Infinity is capped like any other, as in client-go.
      return Math.min(base * 2 ** Math.min(exp, 1023), max);
    },
    // Every successful reconcile forgets its key; most never failed, and an empty map is not
    // worth hashing the key for.
    forget: (key) => {
      if (failures.size > 0) failures.delete(key);
    },
    numRequeues: (key) => failures.get(key) ?? 0,
  };
}

/** Options of {@link bucketRateLimiter}. */
export interface BucketOptions {
  /** Tokens added per second. Default: 10. */
  qps?: number;
  /** Bucket size, and tokens at the start. Default: 100. */
  burst?: number;
  /** Time source. Default: the real clock. */
  clock?: Clock;
}

/**
 * A token bucket over all keys (golang.org/x/time/rate's `Reserve`): the first `burst` calls wait
 * nothing, then calls are spaced 1/qps apart. It tracks no keys, so `numRequeues` is always 0.
 */
export function bucketRateLimiter<K extends string = string>(options: BucketOptions = {}): RateLimiter<K> {
  const qps = options.qps ?? 10;
  const burst = options.burst ?? 100;
  const clock = options.clock ?? realClock();
  if (!(qps > 0)) throw new RangeError(`bucketRateLimiter: qps must be > 0, got ${qps}`);
  checkNonNegative("burst", burst);
  let tokens = burst;
  let last = clock.now();
  return {
    when() {
      const now = clock.now();
      // Refill for the time since the last reservation; reservations in the future (negative
      // tokens) are paid back first, which is what spaces the calls after the burst.
      if (now > last) {
        tokens = Math.min(burst, tokens + ((now - last) * qps) / 1000);
        last = now;
      }
      tokens -= 1;
      return tokens >= 0 ? 0 : (-tokens * 1000) / qps;
    },
    forget() {},
    numRequeues: () => 0,
  };
}

/** The longest delay of all `limiters`; `forget` forgets in all; `numRequeues` is their maximum. */
export function maxOfRateLimiter<K extends string = string>(...limiters: RateLimiter<K>[]): RateLimiter<K> {
  if (limiters.length === 0) throw new RangeError("maxOfRateLimiter: pass at least one rate limiter");
  return {
    when(key) {
      let longest = 0;
      for (const l of limiters) longest = Math.max(longest, l.when(key));
      return longest;
    },
    forget(key) {
      for (const l of limiters) l.forget(key);
    },
    numRequeues(key) {
      let most = 0;
      for (const l of limiters) most = Math.max(most, l.numRequeues(key));
      return most;
    },
  };
}

/** Options of {@link defaultControllerRateLimiter}. */
export interface DefaultControllerRateLimiterOptions {
  /** Time source of the token bucket. Default: the real clock. */
  clock?: Clock;
}

/**
 * client-go's `DefaultControllerRateLimiter`, controller-runtime's default: the max of per-key
 * exponential backoff (5 ms → 1000 s) and an overall token bucket (10 qps, burst 100).
 */
export function defaultControllerRateLimiter<K extends string = string>(
  options: DefaultControllerRateLimiterOptions = {},
): RateLimiter<K> {
  return maxOfRateLimiter<K>(
    itemExponentialFailureRateLimiter<K>({ baseDelayMs: 5, maxDelayMs: 1_000_000 }),
    bucketRateLimiter<K>({ qps: 10, burst: 100, clock: options.clock }),
  );
}

function checkNonNegative(name: string, value: number): void {
  if (!(value >= 0)) throw new RangeError(`rate limiter: ${name} must be a number >= 0, got ${value}`);
}
