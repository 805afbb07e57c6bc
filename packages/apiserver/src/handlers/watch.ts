// WATCH: replay from a resourceVersion out of the bounded history (or an ERROR 410 event when
// it is gone), then stream; initial events (sendInitialEvents, or no resourceVersion), periodic
// and initial-events-end bookmarks, selectors applied to transitions, timeouts, and a cut-off
// for watchers that do not read their live events (watcher.ts). One JSON object per line; initial
// events are written at the pace the client reads them (watch-writer.ts), many lines per chunk.
import { parseGoDuration } from "controller-runtime/api";
import { isHttp2, isProtobufResponse, PROTOBUF_MEDIA_TYPE } from "../http-io.js";
import { protobufCodec } from "../lazy.js";
import { storeNameOf } from "../registry/index.js";
import { failureStatus } from "../status.js";
import type { ResourceRequest } from "./context.js";
import { int64Param, isTrue, parseRv, validateListOptions } from "./list-options.js";
import { buildFilter } from "./selection.js";
import { formOf } from "./negotiation.js";
import { includeObjectOf } from "./table.js";
import { Watcher } from "./watcher.js";

// setTimeout fires at once for a longer delay (with a TimeoutOverflowWarning): ~24.8 days.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Parses `timeoutSeconds`, else a Go duration in `timeout` (`8m1s`), in seconds. */
function watchTimeout(query: URLSearchParams, fallback: number): number {
  // A negative timeout ends the watch at once, as kube's timer does; 0 is no timeout given.
  const ts = int64Param(query, "timeoutSeconds");
  if (ts !== undefined && ts !== 0) return ts;
  const ms = parseGoDuration(query.get("timeout") ?? "");
  return ms !== undefined && ms > 0 ? ms / 1000 : fallback;
}

export function handleWatch(r: ResourceRequest): void {
  validateListOptions(r.query, true);
  const form = formOf(r, "watch");
  includeObjectOf(r.query); // a bad value is a 400, before the stream starts
  const filter = buildFilter(r.def, r.namespace, r.query);
  const storage = r.server.storage;
  const store = storeNameOf(r.def);
  const rvParam = r.query.get("resourceVersion") ?? "";
  const sendInitialEvents = isTrue(r.query.get("sendInitialEvents"));
  const bookmarks = isTrue(r.query.get("allowWatchBookmarks"));
  const fromRv = rvParam === "" || rvParam === "0" ? undefined : parseRv(rvParam);
  const timeoutSeconds = watchTimeout(r.query, r.server.limits.defaultWatchTimeoutSeconds);

  const protobuf = isProtobufResponse(r.res);
  r.res.writeHead(200, {
    "Content-Type": protobuf ? `${PROTOBUF_MEDIA_TYPE};stream=watch` : "application/json",
    "Cache-Control": "no-cache, private",
    ...(isHttp2(r.res) ? {} : { "Transfer-Encoding": "chunked" }),
  });
  if (!isHttp2(r.res)) r.res.socket?.setNoDelay(true);
  // Clients (client-go) wait for the response headers before they consider the watch open.
  r.res.flushHeaders();

  const current = storage.resourceVersion;
  const oldest = r.server.watchWindows.oldest(store);
  if (fromRv !== undefined && !sendInitialEvents && fromRv < oldest) {
    // kube names the version its cache was listed at (one below the oldest event it can send).
    const status = failureStatus(410, "Expired", `too old resource version: ${fromRv} (${oldest})`);
    const line = `{"type":"ERROR","object":${JSON.stringify(status)}}`;
    r.res.end(protobuf ? protobufCodec.get().protobufWatchFrame()(line) : `${line}\n`);
    return;
  }

  // A negative timeout: kube's timer has fired before its serve loop reads the first event.
  if (timeoutSeconds < 0) {
    r.res.end();
    return;
  }

  const onAbort = () => watcher.close();
  let untrack = () => {};
  const watcher: Watcher = new Watcher(
    r,
    filter,
    form,
    fromRv !== undefined && fromRv > current ? fromRv : 0,
    () => {
      storage.removeWatcher(store, watcher);
      r.server.signal.removeEventListener("abort", onAbort);
      untrack();
    },
  );
  r.server.signal.addEventListener("abort", onAbort);
  watcher.arm();
  if (watcher.closed) return;
  untrack = r.server.faults.trackWatch(r, (fault) => watcher.arm(fault));
  r.res.on("close", () => watcher.close());
  r.res.on("error", () => watcher.close());
  watcher.addTimer(
    setTimeout(
      () => {
        if (bookmarks) watcher.guard(() => watcher.bookmark(storage.resourceVersion));
        watcher.close();
      },
      Math.min(timeoutSeconds * 1000, MAX_TIMER_MS),
    ),
  );
  if (bookmarks) {
    const every = r.server.limits.bookmarkIntervalMs;
    const tick = () => {
      if (watcher.closed) return;
      watcher.guard(() => watcher.bookmark(storage.resourceVersion));
      watcher.addTimer(setTimeout(tick, every));
    };
    watcher.addTimer(setTimeout(tick, every));
  }

  // The initial events are taken at one version (`current`) and the watcher registered without
  // yielding, so every later change reaches it: queued until the initial events are written.
  if (sendInitialEvents || fromRv === undefined) {
    const snapshot = storage.list(store, r.namespace || undefined);
    storage.addWatcher(store, watcher);
    watcher.streamInitial(snapshot, (o) => watcher.objectLine(o), sendInitialEvents ? current : undefined);
  } else {
    const replay = storage.history.since(fromRv, store);
    storage.addWatcher(store, watcher);
    watcher.streamInitial(replay, (ev) => watcher.eventLine(ev));
  }
}
