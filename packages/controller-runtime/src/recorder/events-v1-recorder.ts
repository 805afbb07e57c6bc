// The events.k8s.io/v1 recorder: controller-runtime's `GetEventRecorder` (client-go's
// `events.EventRecorder`). Each Event names what happened to an object (`reason`), what the
// controller did about it (`action`), and optionally a second object involved (`related`).
import type { KubeObject } from "../api/index.js";
import { makeEventsV1Event } from "./events-v1-event.js";
import { type EventType, referenceOf, validateEventType } from "./make-event.js";
import type { RecorderLogger } from "./sender.js";
import type { SeriesBroadcaster } from "./series-broadcaster.js";
import { sprintf } from "./sprintf.js";

/** Records events.k8s.io/v1 Events. Every method returns at once; nothing it does can fail a caller. */
export interface EventsV1Recorder {
  /**
   * Queues an Event about `regarding` (which needs `kind`, `apiVersion` and `metadata.name`; one
   * without them is logged and dropped, as client-go does), with `related` as its second object
   * (dropped from the Event when it cannot be referenced) and a Go-style format (`%s %d %v %q`)
   * for the note. Repeats become a series. Throws `InvalidEventTypeError` when `type` is neither
   * `Normal` nor `Warning`.
   */
  eventf(
    regarding: KubeObject,
    related: KubeObject | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
    ...args: unknown[]
  ): void;
  /** As `eventf`, with annotations on the Event (client-go's `AnnotatedEventf`). */
  annotatedEventf(
    regarding: KubeObject,
    related: KubeObject | undefined,
    annotations: Record<string, string>,
    type: EventType,
    reason: string,
    action: string,
    note: string,
    ...args: unknown[]
  ): void;
}

export interface EventsV1RecorderInput {
  /** `reportingController`. */
  name: string;
  /** `reportingInstance` is `<name>-<host>`, as client-go's `NewRecorder` with the hostname. */
  host: string;
  broadcaster: () => SeriesBroadcaster;
  logger: RecorderLogger;
  now: () => number;
  nextSeq: () => number;
}

export function newEventsV1Recorder(i: EventsV1RecorderInput): EventsV1Recorder {
  const reportingInstance = `${i.name}-${i.host}`;
  function record(
    regardingObj: KubeObject,
    relatedObj: KubeObject | undefined,
    annotations: Record<string, string> | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
  ): void {
    validateEventType(type);
    const regarding = referenceOf(regardingObj);
    if (typeof regarding === "string") {
      i.logger.error(new Error(regarding), "could not construct reference, will not report event", {
        eventType: type,
        reason,
        message: note,
      });
      return;
    }
    const relatedRef = relatedObj === undefined ? undefined : referenceOf(relatedObj);
    if (typeof relatedRef === "string") {
      i.logger.v(9).info("could not construct reference", { error: relatedRef });
    }
    const related = typeof relatedRef === "string" ? undefined : relatedRef;
    // client-go's StartLogging, at the V(1) controller-runtime passes it.
    i.logger.v(1).info("Event occurred", {
      object: regarding.namespace ? `${regarding.namespace}/${regarding.name}` : regarding.name,
      kind: regarding.kind,
      apiVersion: regarding.apiVersion,
      type,
      reason,
      action,
      note,
    });
    const nowMs = i.now();
    i.broadcaster().record(
      makeEventsV1Event({
        regarding,
        related,
        type,
        reason,
        action,
        note,
        annotations,
        reportingController: i.name,
        reportingInstance,
        nowMs,
        seq: i.nextSeq(),
      }),
    );
  }
  return {
    eventf: (regarding, related, type, reason, action, note, ...args) =>
      record(regarding, related, undefined, type, reason, action, sprintf(note, ...args)),
    annotatedEventf: (regarding, related, annotations, type, reason, action, note, ...args) =>
      record(regarding, related, annotations, type, reason, action, sprintf(note, ...args)),
  };
}
