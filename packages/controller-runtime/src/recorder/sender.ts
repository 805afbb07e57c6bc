// The sending side of the recorder: a bounded queue drained by one asynchronous loop, so that
// recording never blocks or fails the caller. As client-go's broadcaster: events are correlated
// when they leave the queue; a write the server refused (any Status error) is not retried, one
// that never reached it is retried up to `maxTries` times, `retrySleepMs` apart (the first sleep
// randomised); while that happens the queue fills, and a full queue drops what comes next.
import type { Event } from "kubernetes-types/core/v1.js";
import { isAlreadyExists, isNotFound, StatusError, sleep } from "../rest/index.js";
import type { EventCorrelator } from "./correlator.js";
import type { EventSink } from "./sink.js";

/** The logging the recorder needs: a subset of the project's `Logger` (src/log). */
export interface RecorderLogger {
  info(msg: string, kv?: Record<string, unknown>): void;
  error(err: unknown, msg: string, kv?: Record<string, unknown>): void;
  v(level: number): RecorderLogger;
}

/** Why an event was not sent: the label of `recorder_dropped_events_total`. */
export type DropReason = "queue_full" | "shutdown" | "spam_filter" | "write_failed";

export interface SenderOptions {
  sink: EventSink;
  correlator: EventCorrelator;
  logger: RecorderLogger;
  maxQueued: number;
  maxTries: number;
  retrySleepMs: number;
  onDrop: (reason: DropReason, event: Event) => void;
}

export class EventSender {
  private readonly queue: Event[] = [];
  private draining: Promise<void> | undefined;
  private closed = false;
  /** Aborted when shutdown gives up waiting: cancels in-flight writes and retry sleeps. */
  private readonly stopCtl = new AbortController();

  constructor(private readonly o: SenderOptions) {}

  /** Queues `event`; returns false (and reports the drop) when shut down or full. Never throws. */
  enqueue(event: Event): boolean {
    if (this.closed) {
      this.o.onDrop("shutdown", event);
      return false;
    }
    if (this.queue.length >= this.o.maxQueued) {
      this.o.onDrop("queue_full", event);
      return false;
    }
    this.queue.push(event);
    this.draining ??= this.drain();
    return true;
  }

  /**
   * Stops taking events and waits for the queue to drain (without retries) until `signal`
   * aborts; then cancels in-flight writes and drops what is left.
   */
  async shutdown(signal: AbortSignal): Promise<void> {
    this.closed = true;
    const drained = this.draining;
    if (drained) {
      await new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        signal.addEventListener("abort", () => resolve(), { once: true });
        drained.then(() => resolve());
      });
    }
    this.stopCtl.abort(new Error("event recorder shut down"));
    for (const e of this.queue.splice(0)) this.o.onDrop("shutdown", e);
    await this.draining;
  }

  private async drain(): Promise<void> {
    // Start on a later tick: the caller of event() gets control back before any work is done.
    await Promise.resolve();
    try {
      while (this.queue.length > 0 && !this.stopCtl.signal.aborted) {
        await this.recordToSink(this.queue.shift()!);
      }
    } finally {
      this.draining = undefined;
      if (this.queue.length > 0 && !this.stopCtl.signal.aborted) this.draining = this.drain();
    }
  }

  private async recordToSink(input: Event): Promise<void> {
    const result = this.o.correlator.correlate(input);
    if (result.skip) {
      this.o.onDrop("spam_filter", input);
      return;
    }
    const stop = this.stopCtl.signal;
    for (let tries = 1; ; tries++) {
      if (await this.recordEvent(result.event, result.patch)) return;
      if (tries >= this.o.maxTries || this.closed || stop.aborted) {
        this.o.logger.v(1).info("unable to write event, dropped", {
          reason: tries >= this.o.maxTries ? "retry limit exceeded" : "recorder shut down",
          event: summary(result.event),
        });
        this.o.onDrop("write_failed", input);
        return;
      }
      const delay = tries === 1 ? Math.random() * this.o.retrySleepMs : this.o.retrySleepMs;
      await sleep(delay, stop);
    }
  }

  /** One write: true when done (written, or refused for good), false to retry. */
  private async recordEvent(event: Event, patch: Record<string, unknown> | undefined): Promise<boolean> {
    const signal = this.stopCtl.signal;
    try {
      let written: Event | undefined;
      if (patch) {
        try {
          written = await this.o.sink.patch(event, patch, signal);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      if (!written) {
        // The Event was deleted (or never patched): create it, without a resourceVersion.
        const { resourceVersion: _, ...metadata } = event.metadata ?? {};
        const fresh: Event = { ...event, metadata };
        written = await this.o.sink.create(fresh, signal);
      }
      this.o.correlator.updateState(written);
      return true;
    } catch (err) {
      if (err instanceof StatusError) {
        const quiet = isAlreadyExists(err) || err.causes.some((c) => c.reason === "NamespaceTerminating");
        this.o.logger.v(quiet ? 5 : 1).info("server rejected event (will not retry)", {
          error: err.message,
          event: summary(event),
        });
        if (!quiet) this.o.onDrop("write_failed", event);
        return true;
      }
      this.o.logger.v(1).info("unable to write event (may retry after sleeping)", {
        error: err instanceof Error ? err.message : String(err),
        event: summary(event),
      });
      return false;
    }
  }
}

function summary(e: Event): Record<string, unknown> {
  return {
    namespace: e.metadata?.namespace,
    name: e.metadata?.name,
    reason: e.reason,
    type: e.type,
    object: `${e.involvedObject.kind}/${e.involvedObject.name}`,
  };
}
