// What the REST client speaks per request, as controller-runtime's client does: kube's protobuf
// for built-in kinds (apiutil.createRestConfig sets ContentType for every type of client-go's
// scheme), JSON for custom resources, patches and anything else; metadata-only reads ask for
// protobuf first as client-go's metadata client does. The codec (kube's descriptors, some 60 ms
// to read) is loaded on the first request that needs it.
import { isProtobufGroup } from "../protobuf/groups.js";
import { PROTOBUF } from "../protobuf/media-type.js";
import { ACCEPT_PARTIAL_METADATA, ACCEPT_PARTIAL_METADATA_LIST } from "./rest-options.js";

export { PROTOBUF };

/** How built-in kinds travel: kube's protobuf (the default, as in controller-runtime) or JSON. */
export type ContentType = "application/vnd.kubernetes.protobuf" | "application/json";

type Codec = typeof import("../protobuf/index.js");

let codec: Codec | undefined;
let loading: Promise<Codec> | undefined;

/** The protobuf codec, loaded once. */
export function loadCodec(): Codec | Promise<Codec> {
  if (codec) return codec;
  loading ??= import("../protobuf/index.js").then((m) => {
    codec = m;
    return m;
  });
  return loading;
}

// client-go's rest.Request with ContentType protobuf and no AcceptContentTypes.
const PROTOBUF_ACCEPT = `${PROTOBUF}, */*`;
// client-go's metadata client (k8s.io/client-go/metadata), for any kind, custom ones included.
const PROTOBUF_METADATA: Record<string, string> = {
  [ACCEPT_PARTIAL_METADATA]: `${PROTOBUF};as=PartialObjectMetadata;g=meta.k8s.io;v=v1,${ACCEPT_PARTIAL_METADATA},application/json`,
  [ACCEPT_PARTIAL_METADATA_LIST]: `${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,${ACCEPT_PARTIAL_METADATA_LIST},application/json`,
};

/**
 * The Accept header of a request on a resource of `group`: protobuf first for built-in groups
 * and for metadata-only reads when `protobuf` is on; an explicit other `accept` (a Table) as is.
 */
export function acceptFor(group: string | undefined, accept: string | undefined, protobuf: boolean): string {
  // Raw requests (no resource, so no group) say what they want themselves.
  if (!protobuf || group === undefined) return accept ?? "application/json";
  if (accept !== undefined) return PROTOBUF_METADATA[accept] ?? accept;
  return isProtobufGroup(group) ? PROTOBUF_ACCEPT : "application/json";
}

/**
 * A decoded PartialObjectMetadataList's items as JSON has them: protobuf's PartialObjectMetadata
 * message has no TypeMeta, and kube's JSON writes each item's kind and apiVersion.
 */
export function withItemTypes(list: unknown): unknown {
  const l = list as { kind?: unknown; apiVersion?: unknown; items?: unknown };
  if (l?.kind !== "PartialObjectMetadataList" || !Array.isArray(l.items)) return list;
  l.items = l.items.map((item: Record<string, unknown>) =>
    item.kind === undefined ? { kind: "PartialObjectMetadata", apiVersion: l.apiVersion, ...item } : item,
  );
  return list;
}

/** Whether a response's Content-Type is kube's protobuf (objects, lists, Status errors). */
export function isProtobufResponse(contentType: string | string[] | undefined): boolean {
  return typeof contentType === "string" && contentType.startsWith(PROTOBUF);
}

/**
 * The body of a write of `object` to a resource of `group`: protobuf when on, the group is
 * built-in and the message holds the whole object; else JSON, so that custom resources and
 * objects with fields the message does not know reach the server as they are.
 */
export async function writeBody(
  group: string,
  object: object,
  protobuf: boolean,
): Promise<{ body: string | Uint8Array; contentType: string }> {
  if (protobuf && isProtobufGroup(group)) {
    const c = await loadCodec();
    const bytes = c.encodeProtobuf(object as Record<string, unknown>, { exact: true });
    if (bytes) return { body: bytes, contentType: PROTOBUF };
  }
  return { body: JSON.stringify(object), contentType: "application/json" };
}
