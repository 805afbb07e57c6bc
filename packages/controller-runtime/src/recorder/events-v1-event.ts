// Building an events.k8s.io/v1 Event as client-go's `tools/events` recorder does (`makeEvent`),
// and the sink that writes them. Unlike core/v1 Events these carry an `action`, a `related`
// object and, once repeated, a `series` instead of a count.
import type { ObjectReference } from "kubernetes-types/core/v1.js";
import type { Event as EventsV1Event } from "kubernetes-types/events/v1.js";
import { kinds } from "../api/index.js";
import { type RESTClient, resourceOf } from "../rest/index.js";
import { type EventType, eventName } from "./make-event.js";

const EVENTS = resourceOf(kinds.EventsV1Event);

/** `metav1.MicroTime` as the API server writes it: RFC 3339 in UTC with six fractional digits. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export interface MakeEventsV1Input {
  regarding: ObjectReference;
  related?: ObjectReference;
  type: EventType;
  reason: string;
  action: string;
  note: string;
  annotations?: Record<string, string>;
  reportingController: string;
  reportingInstance: string;
  nowMs: number;
  seq: number;
}

/** A new Event (no series) in the regarded object's namespace, or `default` for cluster-scoped ones. */
export function makeEventsV1Event(i: MakeEventsV1Input): EventsV1Event {
  const event: EventsV1Event = {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: {
      name: eventName(i.regarding.name ?? "", i.nowMs, i.seq),
      namespace: i.regarding.namespace || "default",
    },
    eventTime: formatMicroTime(i.nowMs),
    reportingController: i.reportingController,
    reportingInstance: i.reportingInstance,
    action: i.action,
    reason: i.reason,
    regarding: i.regarding,
    note: i.note,
    type: i.type,
  };
  if (i.related) event.related = i.related;
  if (i.annotations && Object.keys(i.annotations).length > 0)
    event.metadata!.annotations = { ...i.annotations };
  return event;
}

/** Where events.k8s.io/v1 Events go: client-go's `events.EventSink`, without `Update` (never used). */
export interface EventsV1Sink {
  create(event: EventsV1Event, signal: AbortSignal): Promise<EventsV1Event>;
  /** Strategic-merge patches the Event `event.metadata.name` in `event.metadata.namespace`. */
  patch(event: EventsV1Event, patch: Record<string, unknown>, signal: AbortSignal): Promise<EventsV1Event>;
}

/** Writes events.k8s.io/v1 Events through `client`; each request gives up after `timeoutMs`. */
export function restEventsV1Sink(client: RESTClient, timeoutMs: number): EventsV1Sink {
  return {
    create(event, signal) {
      return client.create(EVENTS, event, { namespace: namespaceOf(event), signal, timeoutMs });
    },
    patch(event, patch, signal) {
      return client.patch<EventsV1Event>(EVENTS, event.metadata?.name ?? "", patch, {
        namespace: namespaceOf(event),
        patchType: "strategic",
        signal,
        timeoutMs,
      });
    },
  };
}

function namespaceOf(event: EventsV1Event): string {
  const namespace = event.metadata?.namespace;
  // As client-go's EventSinkImpl: an Event always lives in a namespace.
  if (!namespace) throw new TypeError("can't write an event with empty namespace");
  return namespace;
}
