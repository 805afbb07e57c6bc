// Client-side rate limiting: client-go's token bucket (flowcontrol.NewTokenBucketRateLimiter).
// Off by default, as in controller-runtime ≥ 0.21, where the server's priority-and-fairness
// does the job; set `qps` to protect a server without it.

export interface RateLimiter {
  /** Resolves when the caller may send one request; rejects with the signal's reason on abort. */
  wait(signal?: AbortSignal): Promise<void>;
}

export interface TokenBucketOptions {
  /** Tokens added per second. Must be > 0. */
  qps: number;
  /** Bucket size: requests allowed at once after a quiet period. Default: 10. */
  burst?: number;
  /** Clock in milliseconds, for tests. Default: `performance.now`. */
  now?: () => number;
}

/**
 * A token bucket: `burst` tokens to start with, refilled at `qps` per second. Waiters are
 * served in arrival order, each reserving its token up front so no later caller can jump ahead.
 */
export function newTokenBucket(options: TokenBucketOptions): RateLimiter {
  const { qps } = options;
  const burst = options.burst ?? 10;
  if (!(qps > 0) || !Number.isFinite(qps)) {
    throw new RangeError(
      `rate limiter: qps must be a positive number, got ${qps}; leave it unset to disable limiting`,
    );
  }
  if (!(burst >= 1) || !Number.isInteger(burst)) {
    throw new RangeError(`rate limiter: burst must be a positive integer, got ${burst}`);
  }
  const now = options.now ?? (() => performance.now());
  const msPerToken = 1000 / qps;
  let tokens = burst;
  let last = now();

  return {
    wait(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      const t = now();
      tokens = Math.min(burst, tokens + (t - last) / msPerToken);
      last = t;
      // Reserve a token now, possibly going negative: the debt is the wait.
      tokens -= 1;
      if (tokens >= 0) return Promise.resolve();
      const delay = -tokens * msPerToken;
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          clearTimeout(timer);
          tokens += 1; // give back the reservation
          reject(signal?.reason);
        };
        const timer = setTimeout(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        }, delay);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}
