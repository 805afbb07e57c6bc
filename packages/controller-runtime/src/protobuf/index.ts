// kube's protobuf encoding of built-in kinds (`application/vnd.kubernetes.protobuf`), between
// the bytes on the wire and the JSON object shape: what the client speaks to API servers by
// default for built-in kinds, and what the embedded API server reads and answers with.
// Importing this entry point reads kube's descriptors (some 60 ms): the client loads it on its
// first protobuf request only; `PROTOBUF` alone is in ./media-type.js.
export {
  type DecodeOptions,
  type EncodeOptions,
  decodeProtobuf,
  decodeWatchEvent,
  encodeList,
  encodeListOf,
  encodeMessage,
  encodeProtobuf,
  encodeWatchFrame,
  encodeWatchFrameOf,
  encodeWatchFrameTextOf,
  envelope,
  envelopeTextOfMessage,
  frozenEnvelopeText,
  frozenFrameText,
  frozenMessageParts,
  frozenMessageText,
  hasMessage,
  type KeptFrame,
  keptEnvelopeText,
  keptFrameBytes,
  keptFrameOf,
  keptFrameText,
  keptMessageParts,
  ProtobufError,
  watchFrameTextOfMessage,
} from "./codec.js";
export {
  decodeProtobufWatchBatches,
  ProtobufWatchDecoder,
  type ProtobufWatchOptions,
} from "./watch-frames.js";
export { PROTOBUF, PROTOBUF_WATCH } from "./media-type.js";
