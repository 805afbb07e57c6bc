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
    let events: WatchEvent[];
    try {
      events = this.#inner.push(chunk);
    } catch (err) {
      // The frames before the malformed one are delivered, then the stream fails.
      for (const e of this.#inner.takeDecoded()) out.push(e as WatchEvent<T>);
      throw err;
    }
    for (const e of events) out.push(e as WatchEvent<T>);
  }

  end(_out: WatchEvent<T>[]): void {
    // A frame cut off by the end of the body is dropped, as client-go treats an unexpected EOF:
    // the caller watches again from the last resourceVersion it saw.
  }
}
