// A clock for tests: time moves only when the test calls `advance()`, which fires due timers in
// deadline order. Exported so that the controller's tests can drive backoff and requeueAfter.
import type { Clock, TimerHandle } from "./clock.js";

/** A {@link Clock} whose time is moved by hand. */
export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, firing every timer that falls due, earliest first, each at its own time. */
  advance(ms: number): void;
  /** Number of timers set and not yet fired or cleared. */
  pendingTimers(): number;
  /** Deadline of the earliest pending timer, or undefined when none is pending. */
  nextDeadline(): number | undefined;
}

interface FakeTimer {
  readonly deadline: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** A fake clock starting at `start` milliseconds. Default start: 0. */
export function newFakeClock(start = 0): FakeClock {
  let time = start;
  let seq = 0;
  // Few timers are ever pending (the queue keeps one), so a plain set scanned on advance is enough.
  const timers = new Set<FakeTimer>();
  const earliest = (): FakeTimer | undefined => {
    let best: FakeTimer | undefined;
    for (const t of timers) {
      if (
        best === undefined ||
        t.deadline < best.deadline ||
        (t.deadline === best.deadline && t.seq < best.seq)
      ) {
        best = t;
      }
    }
    return best;
  };
  return {
    now: () => time,
    setTimer(fn, ms): TimerHandle {
      const timer: FakeTimer = { deadline: time + Math.max(0, ms), seq: seq++, fn };
      timers.add(timer);
      return timer;
    },
    clearTimer(handle) {
      timers.delete(handle as FakeTimer);
    },
    advance(ms) {
      if (!(ms >= 0)) throw new RangeError(`FakeClock.advance: ms must be >= 0, got ${ms}`);
      const end = time + ms;
      for (;;) {
        const next = earliest();
        if (next === undefined || next.deadline > end) break;
        timers.delete(next);
        time = Math.max(time, next.deadline);
        next.fn();
      }
      time = end;
    },
    pendingTimers: () => timers.size,
    nextDeadline: () => earliest()?.deadline,
  };
}
