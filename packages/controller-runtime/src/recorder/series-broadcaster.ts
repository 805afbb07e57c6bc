// The sending side of the events.k8s.io/v1 recorder, as client-go's `tools/events` broadcaster:
// Events that share type, action, reason, reporting controller and instance, regarding and
// related object (the "isomorphic" ones) form a series. The first is created; the second turns
// it into a series of count 2, written at once as a patch; later ones only count in memory. Every
// `finishTimeMs` a series not seen for that long is written with its final count and forgotten
// (a single Event just forgotten); every `refreshTimeMs` open series are written again, so that a
// long-running series is neither lost nor stale. Writes the server refused are not retried; ones
// that never reached it are, up to `maxTries` times, `retrySleepMs` (+ up to 25 %) apart.
//
// Two differences from client-go, both because JavaScript has no lock around the periodic passes:
// a series counted while its final write is in flight is kept rather than forgotten, and on
// shutdown the series with counts not yet written are written once (client-go drops them).
import type { Event as EventsV1Event, EventSeries } from "kubernetes-types/events/v1.js";
import { isAlreadyExists, isNotFound, StatusError, sleep } from "../rest/index.js";
import type { EventsV1Sink } from "./events-v1-event.js";
import { formatMicroTime } from "./events-v1-event.js";
import type { DropReason, RecorderLogger } from "./sender.js";

export interface SeriesBroadcasterOptions {
  sink: EventsV1Sink;
  logger: RecorderLogger;
  now: () => number;
  /** Writes in flight before new Events are dropped (client-go's broadcaster queue). */
  maxQueued: number;
  maxTries: number;
  retrySleepMs: number;
  finishTimeMs: number;
  refreshTimeMs: number;
  onDrop: (reason: DropReason, event: EventsV1Event) => void;
}

interface Entry {
  event: EventsV1Event;
  /** Occurrences counted since the last write of this series: a final write is owed when > 0. */
  unwritten: number;
}

export class SeriesBroadcaster {
  readonly #o: SeriesBroadcasterOptions;
  readonly #cache = new Map<string, Entry>();
  readonly #inFlight = new Set<Promise<void>>();
  /** Aborted when shutdown gives up waiting: cancels in-flight writes and retry sleeps. */
  readonly #stop = new AbortController();
  #timers: ReturnType<typeof setInterval>[] | undefined;
  #passing = false;
  #closed = false;

  constructor(o: SeriesBroadcasterOptions) {
    this.#o = o;
  }

  /** Counts `event` into its series and writes what needs writing. Never throws, never waits. */
  record(event: EventsV1Event): void {
    if (this.#closed || this.#inFlight.size >= this.#o.maxQueued) {
      this.#o.onDrop(this.#closed ? "shutdown" : "queue_full", event);
      return;
    }
    this.#startTimers();
    const toWrite = this.#aggregate(event);
    if (toWrite) this.#track(this.#attempt(toWrite));
  }

  /**
   * Stops taking Events, writes the series counted since their last write (once each), waits
   * for the writes in flight until `signal` aborts, then cancels them.
   */
  async shutdown(signal: AbortSignal): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers ?? []) clearInterval(t);
    for (const entry of this.#cache.values()) {
      if (entry.event.series && entry.unwritten > 0) this.#track(this.#recordEvent(clone(entry.event)));
    }
    this.#cache.clear();
    const all = Promise.all(this.#inFlight);
    if (!signal.aborted) {
      await new Promise<void>((resolve) => {
        signal.addEventListener("abort", () => resolve(), { once: true });
        all.then(() => resolve());
      });
    }
    this.#stop.abort(new Error("event recorder shut down"));
    await all;
  }

  #track(p: Promise<unknown>): void {
    const done: Promise<void> = p.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight.add(done);
    done.then(() => this.#inFlight.delete(done));
  }

  /** client-go's recordToSink: the Event to write now, or undefined when only counted. */
  #aggregate(event: EventsV1Event): EventsV1Event | undefined {
    const key = isomorphicKey(event);
    const entry = this.#cache.get(key);
    if (!entry) {
      this.#cache.set(key, { event: clone(event), unwritten: 0 });
      return clone(event);
    }
    const lastObservedTime = formatMicroTime(this.#o.now());
    if (entry.event.series) {
      entry.event.series = { count: entry.event.series.count + 1, lastObservedTime };
      entry.unwritten++;
      return undefined;
    }
    entry.event.series = { count: 2, lastObservedTime };
    return clone(entry.event);
  }

  async #attempt(event: EventsV1Event): Promise<void> {
    // Start on a later tick: the caller of eventf() gets control back before any work is done.
    await Promise.resolve();
    const stop = this.#stop.signal;
    for (let tries = 1; ; tries++) {
      if (!(await this.#recordEvent(event)).retry) return;
      if (tries >= this.#o.maxTries || stop.aborted) {
        this.#o.logger.v(1).info("unable to write event, dropped", {
          reason: stop.aborted ? "recorder shut down" : "retry limit exceeded",
          event: summary(event),
        });
        this.#o.onDrop(stop.aborted ? "shutdown" : "write_failed", event);
        return;
      }
      await sleep(this.#o.retrySleepMs * (1 + 0.25 * Math.random()), stop);
    }
  }

  /** client-go's recordEvent: patch a series (create it when gone), create a single Event. */
  async #recordEvent(event: EventsV1Event): Promise<{ written?: EventsV1Event; retry: boolean }> {
    const { sink, logger } = this.#o;
    const signal = this.#stop.signal;
    const isSeries = event.series !== undefined;
    try {
      if (isSeries) {
        try {
          // The two-way strategic merge patch from the Event without its series to the Event.
          return { written: await sink.patch(event, { series: event.series }, signal), retry: false };
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      const { resourceVersion: _, ...metadata } = event.metadata ?? {};
      return { written: await sink.create({ ...event, metadata }, signal), retry: false };
    } catch (err) {
      if (err instanceof StatusError) {
        // A series whose create lost the race against its own first Event: patch it next time.
        if (isAlreadyExists(err) && isSeries) return { retry: true };
        const quiet = isAlreadyExists(err);
        logger.v(quiet ? 5 : 1).info("server rejected event (will not retry)", {
          error: err.message,
          event: summary(event),
        });
        if (!quiet) this.#o.onDrop("write_failed", event);
        return { retry: false };
      }
      if (!signal.aborted) {
        logger.v(1).info("unable to write event (may retry after sleeping)", {
          error: err instanceof Error ? err.message : String(err),
          event: summary(event),
        });
      }
      return { retry: true };
    }
  }

  #startTimers(): void {
    if (this.#timers) return;
    const every = (ms: number, pass: () => Promise<void>) => {
      const t = setInterval(() => void this.#exclusive(pass), ms);
      t.unref();
      return t;
    };
    this.#timers = [
      every(this.#o.finishTimeMs, () => this.#finishSeries()),
      every(this.#o.refreshTimeMs, () => this.#refreshSeries()),
    ];
  }

  /** Runs one periodic pass at a time: a slow server must not pile them up. */
  async #exclusive(pass: () => Promise<void>): Promise<void> {
    if (this.#passing || this.#closed) return;
    this.#passing = true;
    const p = pass();
    this.#track(p);
    try {
      await p;
    } finally {
      this.#passing = false;
    }
  }

  /** Writes the final count of series not seen for `finishTimeMs` and forgets old Events. */
  async #finishSeries(): Promise<void> {
    const cutoff = this.#o.now() - this.#o.finishTimeMs;
    for (const [key, entry] of [...this.#cache]) {
      const series = entry.event.series;
      if (!series) {
        if (Date.parse(entry.event.eventTime ?? "") < cutoff) this.#cache.delete(key);
        continue;
      }
      if (Date.parse(series.lastObservedTime) >= cutoff) continue;
      const sent = clone(entry.event);
      if (!(await this.#recordEvent(sent)).retry && unchanged(entry, sent.series!)) this.#cache.delete(key);
    }
  }

  /** Writes every open series again (client-go's refreshExistingEventSeries). */
  async #refreshSeries(): Promise<void> {
    for (const [key, entry] of [...this.#cache]) {
      if (!entry.event.series) continue;
      const sent = clone(entry.event);
      const r = await this.#recordEvent(sent);
      if (r.retry || !unchanged(entry, sent.series!)) continue;
      entry.unwritten = 0;
      if (r.written) this.#cache.set(key, { event: { ...r.written, series: sent.series }, unwritten: 0 });
    }
  }
}

/** True when no occurrence was counted into `entry` since `sent` was taken from it. */
function unchanged(entry: Entry, sent: EventSeries): boolean {
  return entry.event.series?.count === sent.count;
}

/** client-go's eventKey: the whole references, resourceVersion and fieldPath included. */
function isomorphicKey(e: EventsV1Event): string {
  return JSON.stringify([
    e.type,
    e.action,
    e.reason,
    e.reportingController,
    e.reportingInstance,
    refKey(e.regarding),
    refKey(e.related),
  ]);
}

function refKey(r: EventsV1Event["regarding"]): unknown[] {
  if (!r) return [];
  return [r.kind, r.namespace, r.name, r.uid, r.apiVersion, r.resourceVersion, r.fieldPath];
}

const clone = (e: EventsV1Event): EventsV1Event => structuredClone(e);

function summary(e: EventsV1Event): Record<string, unknown> {
  return {
    namespace: e.metadata?.namespace,
    name: e.metadata?.name,
    reason: e.reason,
    action: e.action,
    type: e.type,
    object: `${e.regarding?.kind}/${e.regarding?.name}`,
    count: e.series?.count,
  };
}
