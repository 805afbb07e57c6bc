// Building a core/v1 Event as client-go's recorder does (`makeEvent`, `ref.GetReference`).
import type { Event, ObjectReference } from "kubernetes-types/core/v1.js";
import type { KubeObject } from "../api/index.js";
import { InvalidEventTypeError } from "./errors.js";

export type EventType = "Normal" | "Warning";

/** Throws `InvalidEventTypeError` unless `type` is `Normal` or `Warning`. */
export function validateEventType(type: unknown): asserts type is EventType {
  if (type !== "Normal" && type !== "Warning") throw new InvalidEventTypeError(type);
}

/** `metav1.Time` as the API server writes it: RFC 3339 in UTC, whole seconds. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * client-go's event name: the object's name, a dot, and the time in nanoseconds since the epoch
 * in hex. JavaScript clocks tick in milliseconds, so `seq` fills the nanoseconds to keep two
 * events of one millisecond apart.
 */
export function eventName(objectName: string, ms: number, seq = 0): string {
  const nanos = BigInt(Math.floor(ms)) * 1_000_000n + BigInt(seq % 1_000_000);
  return `${objectName}.${nanos.toString(16)}`;
}

/**
 * The reference an Event carries to its object. Returns a string saying what is missing when the
 * object cannot be referenced (no kind, apiVersion or name), as `ref.GetReference` fails.
 */
export function referenceOf(obj: KubeObject): ObjectReference | string {
  if (!obj || typeof obj !== "object") return "the object is not an object";
  const name = obj.metadata?.name;
  if (!obj.kind || !obj.apiVersion) {
    return `object ${name ?? "(unnamed)"} has no kind or apiVersion; set them (objects from lists lack them)`;
  }
  if (!name) return `the ${obj.kind} has no metadata.name`;
  const ref: ObjectReference = { kind: obj.kind, apiVersion: obj.apiVersion, name };
  const m = obj.metadata!;
  if (m.namespace) ref.namespace = m.namespace;
  if (m.uid) ref.uid = m.uid;
  if (m.resourceVersion) ref.resourceVersion = m.resourceVersion;
  return ref;
}

export interface MakeEventInput {
  ref: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
  annotations?: Record<string, string>;
  /** The recorder's name: `source.component` and `reportingComponent`. */
  component: string;
  /** `source.host` and `reportingInstance`; omitted when empty. */
  host: string;
  nowMs: number;
  seq: number;
}

/** A new Event (count 1) in the object's namespace, or `default` for cluster-scoped objects. */
export function makeEvent(i: MakeEventInput): Event {
  const ts = formatTime(i.nowMs);
  const event: Event = {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: eventName(i.ref.name ?? "", i.nowMs, i.seq), namespace: i.ref.namespace || "default" },
    involvedObject: i.ref,
    reason: i.reason,
    message: i.message,
    source: i.host ? { component: i.component, host: i.host } : { component: i.component },
    firstTimestamp: ts,
    lastTimestamp: ts,
    count: 1,
    type: i.type,
    reportingComponent: i.component,
  };
  if (i.host) event.reportingInstance = i.host;
  if (i.annotations && Object.keys(i.annotations).length > 0)
    event.metadata!.annotations = { ...i.annotations };
  return event;
}
