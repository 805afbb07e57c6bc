// The server's response classes (HTTP/1 and HTTP/2's compatibility API): Node's own, with room
// for what a request's Accept negotiation settled about its answer (http-io.ts). These were a
// WeakSet and a WeakMap by response: a protobuf GET paid the set's insertion (the response's
// identity hash, an ephemeron table entry the GC then walks) and every GET the map's lookup,
// about as much as the rest of what a protobuf GET does differently from a JSON one (issue 43).
// Fields set in the constructor keep every response of one shape, whichever encoding it answers in.
import { ServerResponse } from "node:http";
import { Http2ServerResponse } from "node:http2";

/** How a response's answers are written, as negotiated (absent on a stand-in response). */
export interface AnswerForm {
  /** Answers go out as protobuf where kube has a message for them. */
  protobufAnswer?: boolean;
  /** The apiVersion of a Table or PartialObjectMetadata answer, when not `meta.k8s.io/v1`. */
  metaApiVersion?: string | undefined;
}

export class AnswerResponse extends ServerResponse implements AnswerForm {
  protobufAnswer = false;
  metaApiVersion: string | undefined = undefined;
}

export class Http2AnswerResponse extends Http2ServerResponse implements AnswerForm {
  protobufAnswer = false;
  metaApiVersion: string | undefined = undefined;
}
