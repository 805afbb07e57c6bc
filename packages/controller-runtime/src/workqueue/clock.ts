// The time source of the queue and the rate limiters. Injected so that tests drive time by hand
// (see fake-clock.ts) and never sleep.

/** An opaque timer handle, whatever `setTimer` returned. */
export type TimerHandle = unknown;

/** Milliseconds on a monotonic scale, and one-shot timers on the same scale. */
export interface Clock {
  /** Current time in milliseconds; only differences matter, so any monotonic origin works. */
  now(): number;
  /** Calls `fn` once, `ms` milliseconds from now. */
  setTimer(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer that has not fired yet; a fired or unknown handle is ignored. */
  clearTimer(handle: TimerHandle): void;
}

// setTimeout takes a signed 32-bit delay and fires after 1 ms when given more, so a long delay
// (the rate limiter goes up to 1000 s, addAfter to anything) is cut into steps of at most this.
const maxTimeoutMs = 2 ** 31 - 1;

/**
 * The real clock: `performance.now()` (monotonic, unaffected by wall-clock changes) and
 * `setTimeout`. Timers keep the process alive, as a pending delayed key is pending work;
 * `shutDown()` on the queue clears them.
 */
export function realClock(): Clock {
  return {
    now: () => performance.now(),
    setTimer(fn, ms) {
      const deadline = performance.now() + ms;
      const state: { timer: NodeJS.Timeout | undefined } = { timer: undefined };
      const arm = (wait: number) => {
        const step = Math.min(Math.max(wait, 0), maxTimeoutMs);
        state.timer = setTimeout(() => {
          const left = deadline - performance.now();
          if (step === maxTimeoutMs && left > 0) arm(left);
          else fn();
        }, step);
      };
      arm(ms);
      return state;
    },
    clearTimer(handle) {
      const state = handle as { timer: NodeJS.Timeout | undefined } | undefined;
      if (state?.timer !== undefined) clearTimeout(state.timer);
    },
  };
}
