// kube's protobuf media types, on their own so that naming them does not load the codec.

/** `application/vnd.kubernetes.protobuf`: objects and lists of built-in kinds. */
export const PROTOBUF = "application/vnd.kubernetes.protobuf";
/** The Content-Type of a protobuf watch: length-prefixed WatchEvent frames. */
export const PROTOBUF_WATCH = "application/vnd.kubernetes.protobuf;stream=watch";
