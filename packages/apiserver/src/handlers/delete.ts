// DELETE of one object and deletecollection.
import { deleteWithAdmission } from "../admission/index.js";
import { sendJson } from "../http-io.js";
import { storeNameOf } from "../registry/index.js";
import { deleteSuccess } from "../status.js";
import type { Obj } from "../storage/index.js";
import { builtinView } from "../conversion/index.js";
import { formOf, sendInForm } from "./negotiation.js";
import { refOf, type ResourceRequest } from "./context.js";
import { deleteOptions } from "./delete-options.js";
import { deleteStored } from "./finalize.js";
import { mustGet } from "./get.js";
import { selectPage, waitUntilFresh } from "./list.js";
import { itemJson, listJson } from "./serialize.js";

export async function handleDelete(r: ResourceRequest): Promise<void> {
  const form = formOf(r, "write");
  const opts = await deleteOptions(r);
  const current = await deleteWithAdmission(r, mustGet(r), opts);
  const outcome = deleteStored(r.server, r.def, current, opts);
  // An object still held by finalizers is answered; one gone is a Status (custom resources too),
  // but for the kinds whose kube registry returns the deleted object.
  if (!outcome.removed) {
    sendInForm(r, 200, builtinView(r.def, outcome.stored).json, form);
    return;
  }
  if (r.def.returnDeletedObject) {
    sendInForm(r, 200, deletedAnswer(r, builtinView(r.def, outcome.stored).json), form);
    return;
  }
  const uid = String((current.obj.metadata as Obj).uid);
  sendJson(r.res, 200, JSON.stringify(deleteSuccess(refOf(r.def), r.name, uid)));
}

/**
 * deletecollection as kube's Store.DeleteCollection: the list the query selects (its
 * resourceVersion, resourceVersionMatch, limit and selectors checked as a list's), then each item
 * deleted with the request's DeleteOptions, preconditions included, in the list's order; the first
 * failure ends the request with the items before it gone. The answer is the list as selected.
 */
export async function handleDeleteCollection(r: ResourceRequest): Promise<void> {
  await waitUntilFresh(r);
  const page = selectPage(r);
  const opts = await deleteOptions(r);
  const items: string[] = [];
  for (const o of page.items) {
    items.push(itemJson(r.def, builtinView(r.def, o)));
    const listed = r.server.storage.get(storeNameOf(r.def), o.key);
    // Gone since it was listed: kube's workers pass over a NotFound.
    if (!listed) continue;
    const current = await deleteWithAdmission(r, listed, opts, listed.name);
    deleteStored(r.server, r.def, current, opts);
  }
  sendJson(r.res, 200, listJson(r.def, items, page.meta, "object"));
}

/**
 * The deleted object as kube answers it. A Pod goes through graceful deletion even when it is
 * removed at once (never scheduled, or a grace period of 0, also one that ends a grace period
 * under way): the answer carries the deletionTimestamp and the grace period of 0 that deletion set.
 */
function deletedAnswer(r: ResourceRequest, json: string): string {
  if (r.def.group !== "" || r.def.plural !== "pods") return json;
  const obj = JSON.parse(json) as Obj;
  const meta = obj.metadata as Obj;
  // Removed at the end of a grace period cut short: the grace period of 0 that removed it.
  if (meta.deletionTimestamp === undefined || Number(meta.deletionGracePeriodSeconds ?? 0) > 0) {
    meta.deletionTimestamp = r.server
      .now()
      .toISOString()
      .replace(/\.\d+Z$/, "Z");
    meta.deletionGracePeriodSeconds = 0;
  }
  return JSON.stringify(obj);
}
