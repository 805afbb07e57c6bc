// The event correlator, after client-go's tools/record/events_cache.go. Before an Event is sent:
// - the spam filter drops it when its source and object used up their token bucket (25 events,
//   then one more every 5 minutes);
// - the aggregator replaces it with one "(combined from similar events): ..." Event once 10
//   events differing only in message were seen within 10 minutes;
// - the observer turns a repeat of an Event already sent into a patch of the existing Event's
//   `count` and `lastTimestamp` instead of a new object.
// Pure logic: the sender feeds it, and tells it what the server answered (`updateState`).
import type { Event } from "kubernetes-types/core/v1.js";
import { Lru } from "./lru.js";
import { eventName, formatTime } from "./make-event.js";

export interface CorrelatorOptions {
  /** Entries kept by each cache (spam filter, aggregator, observer). Default: 4096. */
  lruCacheSize?: number;
  /** Events a source may send about one object at once. Default: 25. */
  burst?: number;
  /** Refill of that budget, events per second. Default: 1/300 (one every 5 minutes). */
  qps?: number;
  /** Distinct messages of similar events within the interval before they are combined. Default: 10. */
  maxEvents?: number;
  /** Window for aggregation, in seconds. Default: 600. */
  maxIntervalSeconds?: number;
}

export interface CorrelateResult {
  /** The Event to write: a new one, or (with `patch`) an existing one to patch. */
  event: Event;
  /** When set, patch the Event named `event.metadata.name` with this (strategic merge). */
  patch?: { count: number; lastTimestamp: string; message: string };
  /** True when the spam filter dropped the event. */
  skip: boolean;
}

interface Observation {
  count: number;
  firstTimestamp: string;
  name: string;
  resourceVersion: string;
}

interface Aggregate {
  localKeys: Set<string>;
  lastMs: number;
}

interface Bucket {
  tokens: number;
  lastMs: number;
}

const key = (parts: (string | undefined)[]) => parts.map((p) => p ?? "").join("\u0000");

/** Identical events: same source, object, type, reason and message. */
export function eventKey(e: Event): string {
  const o = e.involvedObject;
  return key([
    e.source?.component,
    e.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.fieldPath,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.message,
  ]);
}

/** Events of one source about one object: the spam filter's unit. */
function spamKey(e: Event): string {
  const o = e.involvedObject;
  return key([e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion]);
}

/** Similar events (all but the message equal) and the local key (the message). */
function aggregateKeys(e: Event): [string, string] {
  const o = e.involvedObject;
  const k = key([
    e.source?.component,
    e.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.reportingComponent,
    e.reportingInstance,
  ]);
  return [k, e.message ?? ""];
}

export class EventCorrelator {
  private readonly spam: Lru<Bucket>;
  private readonly aggregates: Lru<Aggregate>;
  private readonly observations: Lru<Observation>;
  private readonly burst: number;
  private readonly qps: number;
  private readonly maxEvents: number;
  private readonly maxIntervalMs: number;

  /** `now` gives wall-clock milliseconds since the epoch. */
  constructor(
    opts: CorrelatorOptions,
    private readonly now: () => number,
  ) {
    const size = opts.lruCacheSize ?? 4096;
    this.spam = new Lru(size);
    this.aggregates = new Lru(size);
    this.observations = new Lru(size);
    this.burst = opts.burst ?? 25;
    this.qps = opts.qps ?? 1 / 300;
    this.maxEvents = opts.maxEvents ?? 10;
    this.maxIntervalMs = (opts.maxIntervalSeconds ?? 600) * 1000;
  }

  /** client-go's `EventCorrelate`: aggregate, then observe, then filter spam. */
  correlate(input: Event): CorrelateResult {
    const [aggregated, cacheKey] = this.aggregate(input);
    const { event, patch } = this.observe(aggregated, cacheKey);
    return { event, patch, skip: this.filterSpam(event) };
  }

  /** Records what the server answered, so the next repeat patches the right object. */
  updateState(written: Event): void {
    this.observations.set(eventKey(written), {
      count: written.count ?? 1,
      firstTimestamp: written.firstTimestamp ?? "",
      name: written.metadata?.name ?? "",
      resourceVersion: written.metadata?.resourceVersion ?? "",
    });
  }

  private aggregate(e: Event): [Event, string] {
    const now = this.now();
    const fullKey = eventKey(e);
    const [aggKey, localKey] = aggregateKeys(e);
    let record = this.aggregates.get(aggKey);
    if (!record || now - record.lastMs > this.maxIntervalMs) record = { localKeys: new Set(), lastMs: 0 };
    record.localKeys.add(localKey);
    record.lastMs = now;
    this.aggregates.set(aggKey, record);
    if (record.localKeys.size < this.maxEvents) return [e, fullKey];

    // Do not grow the set beyond the maximum: forget one message (Go's PopAny: any one).
    const first = record.localKeys.values().next().value;
    if (first !== undefined) record.localKeys.delete(first);
    const ts = formatTime(now);
    const combined: Event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: eventName(e.involvedObject.name ?? "", now), namespace: e.metadata?.namespace },
      count: 1,
      firstTimestamp: ts,
      lastTimestamp: ts,
      involvedObject: e.involvedObject,
      message: `(combined from similar events): ${e.message ?? ""}`,
      type: e.type,
      reason: e.reason,
      source: e.source,
    };
    return [combined, aggKey];
  }

  private observe(e: Event, cacheKey: string): { event: Event; patch?: CorrelateResult["patch"] } {
    const last = this.observations.get(cacheKey);
    let event = e;
    let patch: CorrelateResult["patch"];
    if (last && last.count > 0) {
      event = {
        ...e,
        metadata: { ...e.metadata, name: last.name, resourceVersion: last.resourceVersion },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      patch = { count: event.count!, lastTimestamp: event.lastTimestamp ?? "", message: event.message ?? "" };
    }
    this.observations.set(cacheKey, {
      count: event.count ?? 1,
      firstTimestamp: event.firstTimestamp ?? "",
      name: event.metadata?.name ?? "",
      resourceVersion: event.metadata?.resourceVersion ?? "",
    });
    return { event, patch };
  }

  /** client-go's token bucket per source and object: starts full, refills at `qps`. */
  private filterSpam(e: Event): boolean {
    const k = spamKey(e);
    const now = this.now();
    const bucket = this.spam.get(k) ?? { tokens: this.burst, lastMs: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.lastMs) / 1000) * this.qps);
    bucket.lastMs = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.spam.set(k, bucket);
    return !allowed;
  }
}
