// GET of one object (and of its /status, which answers the whole object).
import { inRequestVersion } from "../conversion/index.js";
import { isProtobufResponse, metaApiVersionOf, sendJson, sendProtobufBytes } from "../http-io.js";
import { protobufCodec } from "../lazy.js";
import { apiVersionOfDef } from "../object/meta.js";
import { objectKey } from "../storage/index.js";
import { storeNameOf } from "../registry/index.js";
import { notFound, type ApiError } from "../status.js";
import type { StoredObject } from "../storage/index.js";
import { refOf, type ResourceRequest } from "./context.js";
import { waitForResourceVersion } from "./fresh.js";
import { parseRv, tooLargeRv } from "./list-options.js";
import { staleVersion } from "./list.js";
import { answerSource, formJson } from "./serialize.js";
import { checkFormFits, formOf } from "./negotiation.js";
import { tableJson } from "./table.js";

/** The stored object a request names, or 404. */
export function mustGet(r: ResourceRequest): StoredObject {
  const key = objectKey(r.namespace, r.name);
  const stored =
    r.staleBy && r.query.get("resourceVersion") === "0"
      ? r.server.storage
          .view(storeNameOf(r.def), r.namespace || undefined, staleVersion(r, r.staleBy))
          ?.get(key)
      : r.server.storage.get(storeNameOf(r.def), key);
  if (!stored) throw notFound(refOf(r.def), r.name) as ApiError;
  return stored;
}

export async function handleGet(r: ResourceRequest): Promise<void> {
  // resourceVersion asks for a state not older than it: always true here unless it is ahead.
  const rv = r.query.get("resourceVersion");
  if (rv && rv !== "0") {
    const requested = parseRv(rv);
    await waitForResourceVersion(r, rv);
    const current = r.server.storage.resourceVersion;
    if (requested > current) throw tooLargeRv(requested, current);
  }
  const form = formOf(r, "object");
  const stored = await inRequestVersion(r, mustGet(r));
  checkFormFits(r.def, form, false);
  if (form === "Table") {
    sendJson(r.res, 200, tableJson(r, [stored], { resourceVersion: String(stored.rv) }));
    return;
  }
  const source = form === "object" ? answerSource(r.def, stored.obj) : undefined;
  const metaApiVersion = metaApiVersionOf(r.res);
  if (isProtobufResponse(r.res)) {
    // The object's message (or its metadata's) as kept from its first protobuf read.
    const codec = protobufCodec.get();
    const bytes = source
      ? codec.storedObjectText(apiVersionOfDef(r.def), r.def.kind, stored)
      : form === "PartialObjectMetadata"
        ? codec.storedMetadataText(metaApiVersion, stored.obj)
        : undefined;
    if (bytes) {
      sendProtobufBytes(r.res, 200, bytes);
      return;
    }
  }
  sendJson(r.res, 200, formJson(r.def, stored, form, metaApiVersion), {}, source);
}
