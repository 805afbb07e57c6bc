// The recorder provider: controller-runtime's `recorder.Provider`. One per manager: one queue,
// one correlator and one sender shared by every named recorder, as one client-go broadcaster.
import type { Event } from "kubernetes-types/core/v1.js";
import type { Counter, Registry } from "prom-client";
import type { KubeObject } from "../api/index.js";
import { getOrCreateCounter } from "../metrics/index.js";
import type { RESTClient } from "../rest/index.js";
import { type CorrelatorOptions, EventCorrelator } from "./correlator.js";
import { type EventType, makeEvent, referenceOf, validateEventType } from "./make-event.js";
import { type DropReason, EventSender, type RecorderLogger } from "./sender.js";
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
  /** A recorder whose Events name `name` as `source.component` and `reportingComponent`. */
  getEventRecorderFor(name: string): EventRecorder;
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
  /** `source.host` and `reportingInstance` of every Event. Default: `""` (omitted, as controller-runtime). */
  host?: string;
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
    async shutdown(o = {}) {
      const signals = [AbortSignal.timeout(o.timeoutMs ?? 5_000)];
      if (o.signal) signals.push(o.signal);
      await sender.shutdown(AbortSignal.any(signals));
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
