/** @module controller-runtime/source */
// source: where a controller's events come from: a kind in the cache (`kind`), an informer
// (`informer`), a channel of generic events from outside the cluster (`channel`, with
// `newChannel`), or a function (`func`).
export type { Source, SourceStartOptions } from "./source.js";
export type { InformerCache, KindInformer } from "./kind.js";
export { kind } from "./kind.js";
export type { SourceInformer } from "./informer.js";
export { informer } from "./informer.js";
export type { Channel, ChannelOptions, SendOptions, SubscribeOptions } from "./channel.js";
export { newChannel } from "./channel.js";
export type { ChannelSourceOptions } from "./channel-source.js";
export { channel } from "./channel-source.js";
export type { FuncSourceOptions } from "./func.js";
export { func } from "./func.js";
export { ChannelClosedError, InformerSyncError, KindSyncTimeoutError } from "./errors.js";
