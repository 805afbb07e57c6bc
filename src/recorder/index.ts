// recorder: Events about objects, with client-go's recorder semantics: identical events merged
// into a count, similar ones combined, a per-object spam budget, and a bounded asynchronous
// queue so that recording never blocks or fails a reconcile.
export type { CorrelateResult, CorrelatorOptions } from "./correlator.js";
export { EventCorrelator } from "./correlator.js";
export { InvalidEventTypeError } from "./errors.js";
export type { EventType } from "./make-event.js";
export type { EventRecorder, EventRecorderProvider, EventRecorderProviderOptions } from "./provider.js";
export { newEventRecorderProvider } from "./provider.js";
export type { DropReason, RecorderLogger } from "./sender.js";
export type { EventSink } from "./sink.js";
export { restEventSink } from "./sink.js";
export { sprintf } from "./sprintf.js";
