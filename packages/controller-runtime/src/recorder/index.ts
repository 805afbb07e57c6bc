/** @module controller-runtime/recorder */
// recorder: Events about objects, with client-go's recorder semantics: identical events merged
// into a count, similar ones combined, a per-object spam budget, and a bounded asynchronous
// queue so that recording never blocks or fails a reconcile. Two recorders: events.k8s.io/v1
// (`getEventRecorder`, repeats as series) and the deprecated core/v1 one (`getEventRecorderFor`).
export type { CorrelateResult, CorrelatorOptions } from "./correlator.js";
export { EventCorrelator } from "./correlator.js";
export { InvalidEventTypeError } from "./errors.js";
export type { EventsV1Sink } from "./events-v1-event.js";
export { restEventsV1Sink } from "./events-v1-event.js";
export type { EventsV1Recorder } from "./events-v1-recorder.js";
export type { EventType } from "./make-event.js";
export type { EventRecorder, EventRecorderProvider, EventRecorderProviderOptions } from "./provider.js";
export { newEventRecorderProvider } from "./provider.js";
export type { DropReason, RecorderLogger } from "./sender.js";
export type { EventSink } from "./sink.js";
export { restEventSink } from "./sink.js";
export { sprintf } from "./sprintf.js";
