// Discovery answers as kube negotiates them. /api and /apis first look for an aggregated
// discovery clause (apidiscovery.k8s.io/v2 APIGroupDiscoveryList: kube 1.37 no longer serves
// v2beta1) and answer it with the ETag and caching headers of kube's aggregated handler; every
// other answer is a legacy document (APIVersions, APIGroupList, APIGroup, APIResourceList),
// negotiated without transforms, in protobuf when that comes first. Endpoints go-restful serves
// (/api, /api/v1, a built-in group version) refuse unknown media types with its 406 first.
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type Convert,
  DEFAULT_RESTRICTIONS,
  type EndpointRestrictions,
  KUBE_SERIALIZERS,
  negotiateMediaTypeOptions,
  PROTOBUF_SERIALIZER,
} from "./accept.js";
import { type AggregatedDocument, typedDocument } from "./aggregated-discovery.js";
import { notAcceptable, restfulNotAcceptable, routeProduces } from "./handlers/negotiation.js";
import { SERIALIZERS, sendJson, sendProtobuf } from "./http-io.js";

const isAggregated = (c: Convert | undefined) =>
  c !== undefined &&
  c.group === "apidiscovery.k8s.io" &&
  c.version === "v2" &&
  c.kind === "APIGroupDiscoveryList";

/** aggregated.DiscoveryEndpointRestrictions, with v2beta1 removed (AggregatedDiscoveryRemoveBetaType). */
const DISCOVERY_RESTRICTIONS: EndpointRestrictions = {
  allowsMediaTypeTransform: (_s, convert) => isAggregated(convert),
  allowsServerVersion: () => false,
  allowsStreamSchema: (schema) => schema === "watch",
};

export interface DiscoveryAnswer {
  /** Whether go-restful routes the endpoint (its 406 comes first). */
  restful: boolean;
  /** The legacy document's JSON. */
  legacy: () => string;
  /** /api and /apis: their aggregated document. */
  aggregated?: () => AggregatedDocument;
}

export function sendDiscovery(req: IncomingMessage, res: ServerResponse, answer: DiscoveryAnswer): void {
  const accept = req.headers.accept;
  if (answer.restful && !routeProduces(accept, SERIALIZERS)) throw restfulNotAcceptable(SERIALIZERS);
  if (answer.aggregated) {
    const options = negotiateMediaTypeOptions(accept, KUBE_SERIALIZERS, DISCOVERY_RESTRICTIONS);
    if (options && isAggregated(options.convert)) {
      sendAggregated(req, res, answer.aggregated(), options.accepted === PROTOBUF_SERIALIZER);
      return;
    }
  }
  const options = negotiateMediaTypeOptions(accept, KUBE_SERIALIZERS, DEFAULT_RESTRICTIONS);
  if (!options) throw notAcceptable(SERIALIZERS);
  const body = answer.legacy();
  if (options.accepted === PROTOBUF_SERIALIZER && sendProtobuf(res, 200, body, {})) return;
  sendJson(res, 200, body);
}

/** ServeHTTPWithETag: 304 to a client holding the document, else the document. */
function sendAggregated(
  req: IncomingMessage,
  res: ServerResponse,
  doc: AggregatedDocument,
  protobuf: boolean,
): void {
  const headers = { ETag: doc.etag, Vary: "Accept", "Cache-Control": "public" };
  if (req.headers["if-none-match"] === doc.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  // The media type names what the body is (generateMediaTypeWithGVK).
  const gvk = ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  const body = typedDocument(doc, "v2");
  if (
    protobuf &&
    sendProtobuf(res, 200, body, { ...headers, "Content-Type": `${PROTOBUF_SERIALIZER.mediaType}${gvk}` })
  ) {
    return;
  }
  sendJson(res, 200, body, { ...headers, "Content-Type": `application/json${gvk}` });
}
