// The recorder provider: controller-runtime's `recorder.Provider`. One per manager: one queue,
// one correlator and one sender shared by every named recorder, as one client-go broadcaster;
// beside it one series broadcaster for the events.k8s.io/v1 recorders, made on first use.
import { hostname } from "node:os";
import type { Event } from "kubernetes-types/core/v1.js";
import type { Event as EventsV1Event } from "kubernetes-types/events/v1.js";
import type { Counter, Registry } from "prom-client";
import type { KubeObject } from "../api/index.js";
import { getOrCreateCounter } from "../metrics/index.js";
import type { RESTClient } from "../rest/index.js";
import { type CorrelatorOptions, EventCorrelator } from "./correlator.js";
import { type EventsV1Sink, restEventsV1Sink } from "./events-v1-event.js";
import { type EventsV1Recorder, newEventsV1Recorder } from "./events-v1-recorder.js";
import { type EventType, makeEvent, referenceOf, validateEventType } from "./make-event.js";
import { type DropReason, EventSender, type RecorderLogger } from "./sender.js";
import { SeriesBroadcaster } from "./series-broadcaster.js";
import { type EventSink, restEventSink } from "./sink.js";
import { sprintf } from "./sprintf.js";

/** Records Events about objects. Every method returns at once; nothing it does can fail a caller. */
export interface EventRecorder {
  /**
   * Queues an Event about `obj` (which needs `kind`, `apiVersion` and `metadata.name`; one
   * without them is logged and dropped, as client-go does). Throws `InvalidEventTypeError` when
   * `type` is neither `Normal` nor `Warning`: a programming error, not a runtime condition.
   */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
  /** As `event`, with a Go-style format (`%s %d %v %q ...`) for the message. */
  eventf(obj: KubeObject, type: EventType, reason: string, format: string, ...args: unknown[]): void;
  /** As `eventf`, with annotations on the Event. */
  annotatedEventf(
    obj: KubeObject,
    annotations: Record<string, string>,
    type: EventType,
    reason: string,
    format: string,
    ...args: unknown[]
  ): void;
}

export interface EventRecorderProvider {
  /**
   * A core/v1 recorder whose Events name `name` as `source.component` and `reportingComponent`.
   * @deprecated As in controller-runtime v0.23+: use `getEventRecorder` (events.k8s.io/v1).
   */
  getEventRecorderFor(name: string): EventRecorder;
  /**
   * An events.k8s.io/v1 recorder whose Events name `name` as `reportingController` (so it must
   * be a qualified name, such as `example.com/widget-controller`) and `<name>-<host>` as
   * `reportingInstance`. Repeats form a series, as client-go's events broadcaster makes them.
   */
  getEventRecorder(name: string): EventsV1Recorder;
  /**
   * Stops taking Events, then sends what is queued (each write tried once) until done or
   * `signal` aborts or `timeoutMs` passes, and drops the rest. Resolves when the sender stopped.
   */
  shutdown(opts?: { signal?: AbortSignal; timeoutMs?: number }): Promise<void>;
}

export interface EventRecorderProviderOptions {
  /** Writes Events. Required unless `sink` is given. */
  client?: RESTClient;
  /** Where Events go instead of `client` (tests, other stores). Default: the REST sink over `client`. */
  sink?: EventSink;
  /** Events are logged at `v(1)`; dropped ones at `v(1)` too. Default: discard. */
  logger?: RecorderLogger;
  /** Wall-clock milliseconds since the epoch: timestamps, aggregation window, spam budget. Default: `Date.now`. */
  now?: () => number;
  /**
   * core/v1: `source.host` and `reportingInstance` of every Event. events.k8s.io/v1: the part of
   * `reportingInstance` after the recorder's name. Default: `""` (omitted, as controller-runtime)
   * for core/v1; the machine's hostname for events.k8s.io/v1, as client-go.
   */
  host?: string;
  /** Where events.k8s.io/v1 Events go instead of `client`. Default: the REST sink over `client`. */
  eventsV1Sink?: EventsV1Sink;
  /**
   * events.k8s.io/v1: a series not seen for this long is written with its final count and
   * forgotten, checked as often. Default: 360000 (6 minutes, client-go's).
   */
  seriesFinishTimeMs?: number;
  /** events.k8s.io/v1: open series are written again this often. Default: 1800000 (30 minutes). */
  seriesRefreshTimeMs?: number;
  /** Events waiting to be sent before new ones are dropped. Default: 1000. */
  maxQueuedEvents?: number;
  /** Tries per Event when the server cannot be reached. Default: 12. */
  maxTriesPerEvent?: number;
  /** Wait between those tries, in ms (the first one randomised). Default: 10000. */
  retrySleepMs?: number;
  /** Longest one write may take, in ms. Default: 10000. */
  requestTimeoutMs?: number;
  /** The correlator's limits (spam burst 25, refill 1/300 s, aggregation 10 in 600 s). Default: client-go's. */
  correlator?: CorrelatorOptions;
  /**
   * Registers `recorder_dropped_events_total{reason}` here; reason is `queue_full`, `shutdown`,
   * `spam_filter` or `write_failed`. Default: none (drops are only logged).
   */
  registry?: Registry;
}

const DROPPED = "recorder_dropped_events_total";
const discard: RecorderLogger = { info() {}, error() {}, v: () => discard };

/** Creates the provider. Does no I/O until the first Event. */
export function newEventRecorderProvider(opts: EventRecorderProviderOptions): EventRecorderProvider {
  const sink =
    opts.sink ?? (opts.client ? restEventSink(opts.client, opts.requestTimeoutMs ?? 10_000) : undefined);
  if (!sink) throw new TypeError("newEventRecorderProvider: pass `client` (a RESTClient) or `sink`");
  const logger = opts.logger ?? discard;
  const now = opts.now ?? Date.now;
  const host = opts.host ?? "";
  const dropped = droppedCounter(opts.registry);
  const sender = new EventSender({
    sink,
    correlator: new EventCorrelator(opts.correlator ?? {}, now),
    logger,
    maxQueued: opts.maxQueuedEvents ?? 1000,
    maxTries: opts.maxTriesPerEvent ?? 12,
    retrySleepMs: opts.retrySleepMs ?? 10_000,
    onDrop(reason: DropReason, e: Event) {
      dropped?.inc({ reason });
      logger
        .v(1)
        .info("dropped event", { reason, type: e.type, eventReason: e.reason, object: e.involvedObject });
    },
  });
  let seq = 0;
  let series: SeriesBroadcaster | undefined;
  const eventsV1Sink =
    opts.eventsV1Sink ??
    (opts.client ? restEventsV1Sink(opts.client, opts.requestTimeoutMs ?? 10_000) : undefined);
  const broadcaster = () => {
    series ??= new SeriesBroadcaster({
      sink: eventsV1Sink!,
      logger,
      now,
      maxQueued: opts.maxQueuedEvents ?? 1000,
      maxTries: opts.maxTriesPerEvent ?? 12,
      retrySleepMs: opts.retrySleepMs ?? 10_000,
      finishTimeMs: opts.seriesFinishTimeMs ?? 6 * 60_000,
      refreshTimeMs: opts.seriesRefreshTimeMs ?? 30 * 60_000,
      onDrop(reason: DropReason, e: EventsV1Event) {
        dropped?.inc({ reason });
        logger
          .v(1)
          .info("dropped event", { reason, type: e.type, eventReason: e.reason, object: e.regarding });
      },
    });
    return series;
  };

  function record(
    component: string,
    obj: KubeObject,
    annotations: Record<string, string> | undefined,
    type: EventType,
    reason: string,
    message: string,
  ): void {
    validateEventType(type);
    const ref = referenceOf(obj);
    if (typeof ref === "string") {
      logger.error(new Error(ref), "could not construct reference to object, will not report event", {
        type,
        reason,
        message,
      });
      return;
    }
    logger.v(1).info(message, { type, object: ref, reason });
    sender.enqueue(
      makeEvent({ ref, type, reason, message, annotations, component, host, nowMs: now(), seq: seq++ }),
    );
  }

  return {
    getEventRecorderFor(name) {
      return {
        event: (obj, type, reason, message) => record(name, obj, undefined, type, reason, message),
        eventf: (obj, type, reason, format, ...args) =>
          record(name, obj, undefined, type, reason, sprintf(format, ...args)),
        annotatedEventf: (obj, annotations, type, reason, format, ...args) =>
          record(name, obj, annotations, type, reason, sprintf(format, ...args)),
      };
    },
    getEventRecorder(name) {
      if (!eventsV1Sink) {
        throw new TypeError(
          "getEventRecorder: the provider was made with `sink` only; pass `client` or `eventsV1Sink`",
        );
      }
      return newEventsV1Recorder({
        name,
        host: opts.host || hostname(),
        broadcaster,
        logger,
        now,
        nextSeq: () => seq++,
      });
    },
    async shutdown(o = {}) {
      const signals = [AbortSignal.timeout(o.timeoutMs ?? 5_000)];
      if (o.signal) signals.push(o.signal);
      const signal = AbortSignal.any(signals);
      await Promise.all([sender.shutdown(signal), broadcaster().shutdown(signal)]);
    },
  };
}

function droppedCounter(registry: Registry | undefined): Counter<"reason"> | undefined {
  if (!registry) return undefined;
  return getOrCreateCounter(registry, {
    name: DROPPED,
    help: "Events the recorder did not send, by reason (queue_full, shutdown, spam_filter, write_failed).",
    labelNames: ["reason"],
  });
}
