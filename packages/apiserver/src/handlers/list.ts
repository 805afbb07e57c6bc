// LIST: selectors, limit/continue over a consistent snapshot, resourceVersion semantics, and the
// PartialObjectMetadataList and Table forms.
import { itemsInRequestVersion } from "../conversion/index.js";
import { isProtobufResponse, metaApiVersionOf, sendJson, sendProtobufBytes } from "../http-io.js";
import { protobufCodec } from "../lazy.js";
import { apiVersionOfDef } from "../object/meta.js";
import { storeNameOf } from "../registry/index.js";
import { expired } from "../status.js";
import type { StoredObject } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import { decodeContinue, encodeContinue } from "./continue-token.js";
import { int64Param, parseListRv, tooLargeRv, validateListOptions } from "./list-options.js";
import { waitForResourceVersion } from "./fresh.js";
import { buildFilter } from "./selection.js";
import { formJson, itemJson, type ListMetaOut, listJson } from "./serialize.js";
import { checkFormFits, formOf } from "./negotiation.js";
import { tableJson } from "./table.js";

const continueTooOld =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/** The version an injected lag answers from: that many versions ago, or the oldest one kept. */
export function staleVersion(r: ResourceRequest, by: number): number {
  const storage = r.server.storage;
  return Math.max(storage.resourceVersion - by, storage.history.compactedThrough, 1);
}

export interface ListPage {
  items: StoredObject[];
  meta: ListMetaOut;
}

/** Selects one page of a list as the request's options say. */
export function selectPage(r: ResourceRequest): ListPage {
  validateListOptions(r.query, false);
  const storage = r.server.storage;
  const store = storeNameOf(r.def);
  const filter = buildFilter(r.def, r.namespace, r.query);
  const rvParam = r.query.get("resourceVersion") ?? "";
  const match = r.query.get("resourceVersionMatch") ?? "";
  const token = r.query.get("continue");
  let limit = Math.max(0, int64Param(r.query, "limit") ?? 0);
  const current = storage.resourceVersion;

  let atRv = current;
  let startAfter = "";
  if (token) {
    const t = decodeContinue(token);
    if (t.rv > 0) atRv = t.rv;
    // kube's start key is relative to the list's prefix: a name within a namespace.
    startAfter = r.namespace ? `${r.namespace}/${t.start}` : t.start;
  } else if (rvParam !== "" && rvParam !== "0") {
    const requested = parseListRv(rvParam);
    if (requested > current) throw tooLargeRv(requested, current);
    if (match === "Exact") atRv = requested;
  } else if (rvParam === "0") {
    // kube-apiserver serves resourceVersion=0 from its watch cache, which ignores the limit.
    limit = 0;
    if (r.staleBy) atRv = staleVersion(r, r.staleBy);
  }
  const view = storage.view(store, r.namespace || undefined, atRv);
  if (!view) {
    throw expired(
      token ? continueTooOld : `too old resource version: ${atRv} (${storage.history.compactedThrough + 1})`,
    );
  }

  // As kube's etcd store: fill the page from the keys after the token's, filtering as it goes;
  // a full page continues when any key (matching or not) follows its last item.
  const items: StoredObject[] = [];
  let full = false;
  view.forEach(startAfter, (o) => {
    if (limit > 0 && items.length === limit) {
      full = true;
      return false;
    }
    if (filter.matches(o.obj)) items.push(o);
    return true;
  });
  const meta: ListMetaOut = { resourceVersion: String(view.rv) };
  if (full) {
    const last = items[items.length - 1]!.key;
    meta.continue = encodeContinue(view.rv, r.namespace ? last.slice(r.namespace.length + 1) : last);
    if (filter.empty) meta.remainingItemCount = view.countAfter(last);
  }
  return { items, meta };
}

/** A list's options are checked, then a resourceVersion not reached yet is waited for (fresh.ts). */
export async function waitUntilFresh(r: ResourceRequest): Promise<void> {
  validateListOptions(r.query, false);
  if (!r.query.get("continue")) await waitForResourceVersion(r, r.query.get("resourceVersion"));
}

export async function handleList(r: ResourceRequest): Promise<void> {
  const form = formOf(r, "list");
  await waitUntilFresh(r);
  const page = selectPage(r);
  checkFormFits(r.def, form, true);
  page.items = await itemsInRequestVersion(r, page.items);
  if (form === "Table") {
    sendJson(r.res, 200, tableJson(r, page.items, page.meta));
    return;
  }
  if (form === "object" && !r.def.crdName && isProtobufResponse(r.res)) {
    // Each item's message as kept from its first protobuf read (encoded then, from the stored
    // object): the list copies them, as the JSON list joins the kept JSON.
    const bytes = protobufCodec
      .get()
      .storedListBytes(apiVersionOfDef(r.def), r.def.listKind, r.def.kind, { ...page.meta }, page.items);
    if (bytes) {
      sendProtobufBytes(r.res, 200, bytes);
      return;
    }
  }
  const metaApiVersion = metaApiVersionOf(r.res);
  if (form !== "object" && isProtobufResponse(r.res)) {
    // Encoded from the stored metadata, not from the list's JSON read back (which cost more than
    // the full list's protobuf: issue 43), each item's message kept from its first read. An
    // item's message holds its metadata only, its fields in their numbers' order: the stored
    // metadata serves as is.
    const objects = page.items.map((o) => o.obj);
    const bytes = protobufCodec.get().storedMetadataListBytes(metaApiVersion, { ...page.meta }, objects);
    if (bytes) {
      sendProtobufBytes(r.res, 200, bytes);
      return;
    }
  }
  const items =
    form === "object"
      ? page.items.map((o) => itemJson(r.def, o))
      : page.items.map((o) => formJson(r.def, o, form, metaApiVersion));
  sendJson(r.res, 200, listJson(r.def, items, page.meta, form, metaApiVersion));
}
