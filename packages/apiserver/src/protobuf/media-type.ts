// kube's protobuf media type, on its own so that naming it does not load the protobuf codec.
export const PROTOBUF = "application/vnd.kubernetes.protobuf";
