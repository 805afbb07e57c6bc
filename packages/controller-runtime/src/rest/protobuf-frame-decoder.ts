// The push-based watch path's decoder for kube's protobuf watch frames: the protobuf codec's
// ProtobufWatchDecoder behind the WatchFrameDecoder the watch stream feeds each chunk to.
import type { KubeObject } from "../api/index.js";
import type { ProtobufWatchDecoder } from "../protobuf/index.js";
import type { WatchEvent, WatchFrameDecoder } from "./watch.js";

export class ProtobufFrameDecoder<T extends KubeObject = KubeObject> implements WatchFrameDecoder<T> {
  readonly #inner: ProtobufWatchDecoder;

  constructor(inner: ProtobufWatchDecoder) {
    this.#inner = inner;
  }

  push(chunk: Uint8Array, out: WatchEvent<T>[]): void {
    // Decoded straight into the stream's batch: on a malformed frame, the frames before it are
    // already there, delivered before the stream fails.
    this.#inner.push(chunk, out as WatchEvent[]);
  }

  end(_out: WatchEvent<T>[]): void {
    // A frame cut off by the end of the body is dropped, as client-go treats an unexpected EOF:
    // the caller watches again from the last resourceVersion it saw.
  }
}
