// The clocks the elector measures with. Lease expiry is judged on a monotonic clock, as
// client-go does through Go's monotonic time readings: a wall clock that jumps (NTP, a VM
// resumed) must never make a lease look expired early or keep one alive late. The wall clock is
// used only to write the timestamps into the Lease, which other clients read for display.

/** A timer handle returned by {@link Clock.setTimeout}. */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Monotonic milliseconds (`performance.now()`): only differences mean anything. */
  now(): number;
  /** Wall-clock time, for the timestamps written into Lease records. */
  wallNow(): Date;
  /** Calls `fn` once after `ms` milliseconds of monotonic time. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
}

/** The clock of the process: `performance.now()`, `new Date()` and the timers of the event loop. */
export function realClock(): Clock {
  return {
    now: () => performance.now(),
    wallNow: () => new Date(),
    setTimeout(fn, ms) {
      const t = setTimeout(fn, Math.max(0, ms));
      return { cancel: () => clearTimeout(t) };
    },
  };
}

/** client-go's `wait.Jitter`: `duration` plus up to `maxFactor` times more, at random. */
export function jitter(durationMs: number, maxFactor: number): number {
  const factor = maxFactor > 0 ? maxFactor : 1;
  return durationMs + Math.random() * factor * durationMs;
}

/** Runs `fn` with a signal that aborts with `parent` or at monotonic time `deadline` on `clock`. */
export async function withDeadline<T>(
  clock: Clock,
  parent: AbortSignal,
  deadline: number,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ctl = new AbortController();
  const timer = clock.setTimeout(
    () => ctl.abort(new Error("leader election request deadline passed")),
    deadline - clock.now(),
  );
  try {
    return await fn(AbortSignal.any([parent, ctl.signal]));
  } finally {
    timer.cancel();
  }
}
