// Errors of the sources, in one place: each a class with a stable `code` and `name`, and a message
// that says what to do.
import type { GroupVersionKind } from "../api/index.js";
import { isNotFound } from "../rest/index.js";

function gvkText(gvk: GroupVersionKind): string {
  return gvk.group ? `${gvk.group}/${gvk.version}, Kind=${gvk.kind}` : `${gvk.version}, Kind=${gvk.kind}`;
}

/** A kind source's informer did not sync in time (a kind the server does not serve, most often). */
export class KindSyncTimeoutError extends Error {
  override readonly name = "KindSyncTimeoutError";
  readonly code = "ERR_KIND_SYNC_TIMEOUT";
  constructor(gvk: GroupVersionKind, lastError: unknown) {
    if (isNotFound(lastError)) {
      // The list of an unserved resource answers a bare 404: say what that means here.
      super(
        `timed out waiting for the informer of ${gvkText(gvk)} to sync: no CRD serves ` +
          `${gvk.group ? `${gvk.group}/` : ""}${gvk.version} ${gvk.kind} (its list answered 404 NotFound); ` +
          "install it and wait until it is Established before starting the controller (or use " +
          "mgr.addConditional to start the controller when it appears), or check the group, version and kind",
        { cause: lastError },
      );
      return;
    }
    const why = lastError === undefined ? "" : `; last error: ${messageOf(lastError)}`;
    super(
      `timed out waiting for the informer of ${gvkText(gvk)} to sync${why}. If the kind is a ` +
        "CustomResourceDefinition, install it (and wait until it is Established) before starting the " +
        "controller; check its group, version and kind; or raise cacheSyncTimeoutMs",
      lastError === undefined ? undefined : { cause: lastError },
    );
  }
}

/** An informer source's informer did not sync in time, or stopped before it synced. */
export class InformerSyncError extends Error {
  override readonly name = "InformerSyncError";
  readonly code = "ERR_INFORMER_SYNC";
}

/** A send on a closed {@link Channel}. */
export class ChannelClosedError extends Error {
  override readonly name = "ChannelClosedError";
  readonly code = "ERR_CHANNEL_CLOSED";
  constructor() {
    super("send on a closed channel: the channel's close() was called; create a new channel to send again");
  }
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
