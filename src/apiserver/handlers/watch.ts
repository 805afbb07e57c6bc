// WATCH: replay from a resourceVersion out of the bounded history (or an ERROR 410 event when
// it is gone), then stream; initial events (sendInitialEvents, or no resourceVersion), periodic
// and initial-events-end bookmarks, selectors applied to transitions, timeouts, and a cut-off
// for watchers that do not read. One JSON object per line, one chunk per event.
import { type WatchLineConverter, watchLineConverter } from "../conversion/index.js";
import { negotiate, type ResponseForm } from "../http-io.js";
import { apiVersionOfDef } from "../object/meta.js";
import { storeKeyOf } from "../registry/index.js";
import { failureStatus } from "../status.js";
import type { Obj, StoredEvent, StoredObject, WatchSink } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import { isTrue, parseRv, validateListOptions } from "./list-options.js";
import { buildFilter, type ObjectFilter } from "./selection.js";
import { formJson } from "./serialize.js";
import { includeObjectOf, tableJson, tableSupported } from "./table.js";

/** Parses `timeoutSeconds`, else a Go duration in `timeout` (`8m1s`), in seconds. */
function watchTimeout(query: URLSearchParams, fallback: number): number {
  const ts = query.get("timeoutSeconds");
  if (ts !== null && /^\d+$/.test(ts)) return Number(ts);
  const d = query.get("timeout");
  if (d) {
    let total = 0;
    const re = /(\d+(?:\.\d+)?)(h|ms|m|s)/g;
    for (let m = re.exec(d); m; m = re.exec(d)) {
      const n = Number(m[1]);
      total += m[2] === "h" ? n * 3600 : m[2] === "m" ? n * 60 : m[2] === "s" ? n : n / 1000;
    }
    if (total > 0) return total;
  }
  return fallback;
}

/** How long a watcher's unsent bytes may stay above the limit before it is cut off. */
const CONGESTION_GRACE_MS = 1000;
/** Unsent bytes, as a multiple of the limit, that cut a watcher off at once. */
const HARD_LIMIT_FACTOR = 4;

class Watcher implements WatchSink {
  #closed = false;
  #timers: NodeJS.Timeout[] = [];
  readonly #r: ResourceRequest;
  readonly #filter: ObjectFilter;
  readonly #form: ResponseForm;
  readonly #key: string;
  readonly #apiVersion: string;
  readonly #minRv: number;
  readonly #onClose: () => void;
  readonly #includeObject: "None" | "Object" | "Metadata";
  #tableHeadersSent = false;
  /** Whether unsent bytes passed the limit and a drain is awaited. */
  #congested = false;
  /** Set when objects may need a CRD's conversion webhook: lines then wait for it, in order. */
  readonly #converter: WatchLineConverter | undefined;

  constructor(
    r: ResourceRequest,
    filter: ObjectFilter,
    form: ResponseForm,
    minRv: number,
    onClose: () => void,
  ) {
    this.#r = r;
    this.#filter = filter;
    this.#form = form;
    this.#apiVersion = apiVersionOfDef(r.def);
    this.#key = `${form}|${this.#apiVersion}`;
    this.#minRv = minRv;
    this.#onClose = onClose;
    this.#includeObject = includeObjectOf(r.query);
    this.#converter = form === "object" ? watchLineConverter(r) : undefined;
  }

  get closed(): boolean {
    return this.#closed;
  }

  addTimer(t: NodeJS.Timeout): void {
    this.#timers.push(t);
  }

  #line(type: string, stored: StoredObject): string {
    return `{"type":"${type}","object":${this.#objectJson(stored)}}\n`;
  }

  #objectJson(stored: StoredObject): string {
    // The converter needs the stored apiVersion to convert from.
    if (this.#converter) return stored.json;
    if (this.#form !== "Table") return formJson(this.#r.def, stored, this.#form);
    // As kube: the first event's Table carries the column definitions, later ones only rows.
    const json = tableJson(
      this.#r,
      [stored],
      { resourceVersion: String(stored.rv) },
      {
        includeObject: this.#includeObject,
        noHeaders: this.#tableHeadersSent,
      },
    );
    this.#tableHeadersSent = true;
    return json;
  }

  deliver(ev: StoredEvent): void {
    // Called inside a writer's request: a failure here must end this watch, not the write.
    this.guard(() => this.#deliver(ev));
  }

  /** Runs `fn`; if it throws, the watch ends with an ERROR event saying why. */
  guard(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      if (this.#closed) return;
      const status = failureStatus(
        500,
        "InternalError",
        `watch closed: ${(e as Error)?.message ?? String(e)}`,
      );
      this.#r.res.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
      this.close();
    }
  }

  #deliver(ev: StoredEvent): void {
    if (this.#closed || ev.rv <= this.#minRv) return;
    const now = ev.type !== "DELETED" && this.#filter.matches(ev.object.obj);
    const before = ev.prev !== undefined && this.#filter.matches(ev.prev.obj);
    let type: string;
    if (ev.type === "DELETED") {
      if (!before) return;
      type = "DELETED";
    } else if (now && before) type = "MODIFIED";
    else if (now) type = "ADDED";
    else if (before)
      type = "GONE"; // stopped matching: DELETED with the previous content
    else return;
    const cacheKey = `${type}|${this.#key}`;
    // Table lines depend on this watcher's state (headers sent), so they are not shared.
    let line = this.#form === "Table" ? undefined : ev.lines.get(cacheKey);
    if (line === undefined) {
      if (type === "GONE") {
        const prev = JSON.parse(ev.prev!.json) as Obj;
        (prev.metadata as Obj).resourceVersion = String(ev.rv);
        const stored: StoredObject = { ...ev.prev!, obj: prev, json: JSON.stringify(prev), rv: ev.rv };
        line = this.#line("DELETED", stored);
      } else line = this.#line(type, ev.object);
      if (this.#form !== "Table") ev.lines.set(cacheKey, line);
    }
    this.write(line);
  }

  sendInitial(stored: StoredObject): void {
    if (this.#filter.matches(stored.obj)) this.write(this.#line("ADDED", stored));
  }

  bookmark(rv: number, initialEventsEnd = false): void {
    const meta: Obj = { resourceVersion: String(rv), creationTimestamp: null };
    if (initialEventsEnd) meta.annotations = { "k8s.io/initial-events-end": "true" };
    const metaForm = this.#form === "PartialObjectMetadata" || this.#form === "PartialObjectMetadataList";
    const obj = metaForm
      ? { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: meta }
      : { kind: this.#r.def.kind, apiVersion: this.#apiVersion, metadata: meta };
    if (this.#form === "Table") {
      // kube turns bookmarks into Tables too: one row for the bookmark's (empty) object.
      const stored = { obj, json: JSON.stringify(obj), rv, key: "", namespace: "", name: "" };
      this.write(`{"type":"BOOKMARK","object":${this.#objectJson(stored)}}\n`);
      return;
    }
    this.write(`{"type":"BOOKMARK","object":${JSON.stringify(obj)}}\n`);
  }

  write(line: string): void {
    if (this.#closed) return;
    if (this.#converter) {
      this.#converter.push(
        line,
        (l) => this.#send(l),
        (error) => {
          this.#send(error);
          this.close();
        },
      );
      return;
    }
    this.#send(line);
  }

  #send(line: string): void {
    if (this.#closed) return;
    const res = this.#r.res;
    res.write(line);
    const limit = this.#r.server.limits.watchBufferBytes;
    const pending = res.writableLength;
    if (pending <= limit) return;
    // A burst (a namespace deleted, one large object) may pass the limit for a moment even for
    // a client that reads: cut off only a watcher that stays above it, or that goes far above.
    if (pending > limit * HARD_LIMIT_FACTOR) {
      this.#overflow();
      return;
    }
    if (this.#congested) return;
    this.#congested = true;
    const timer = setTimeout(() => {
      this.#congested = false;
      if (!this.#closed && res.writableLength > limit) this.#overflow();
    }, CONGESTION_GRACE_MS);
    this.addTimer(timer);
    res.once("drain", () => {
      clearTimeout(timer);
      this.#congested = false;
    });
  }

  #overflow(): void {
    const limit = this.#r.server.limits.watchBufferBytes;
    const status = failureStatus(
      500,
      "InternalError",
      `watch closed: the client did not read events fast enough (more than ${limit} bytes unsent); watch again from the last resourceVersion it saw`,
    );
    this.#r.res.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
    this.close();
    // A reader that stopped reading will not drain what is buffered: drop the connection.
    this.#r.res.destroy();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#onClose();
    if (!this.#r.res.writableEnded) this.#r.res.end();
  }
}

export function handleWatch(r: ResourceRequest): void {
  validateListOptions(r.query, true);
  const form = negotiate(r.req.headers.accept, tableSupported());
  includeObjectOf(r.query); // a bad value is a 400, before the stream starts
  const filter = buildFilter(r.def, r.namespace, r.query);
  const storage = r.server.storage;
  const store = storeKeyOf(r.def);
  const rvParam = r.query.get("resourceVersion") ?? "";
  const sendInitialEvents = isTrue(r.query.get("sendInitialEvents"));
  const bookmarks = isTrue(r.query.get("allowWatchBookmarks"));
  const fromRv = rvParam === "" || rvParam === "0" ? undefined : parseRv(rvParam);
  const timeoutSeconds = watchTimeout(r.query, r.server.limits.defaultWatchTimeoutSeconds);

  r.res.writeHead(200, {
    "Content-Type": "application/json",
    "Cache-Control": "no-cache, private",
    "Transfer-Encoding": "chunked",
  });
  r.res.socket?.setNoDelay(true);
  // Clients (client-go) wait for the response headers before they consider the watch open.
  r.res.flushHeaders();

  const current = storage.resourceVersion;
  if (fromRv !== undefined && !sendInitialEvents && !storage.history.covers(fromRv)) {
    const status = failureStatus(
      410,
      "Expired",
      `too old resource version: ${fromRv} (${storage.history.compactedThrough + 1})`,
    );
    r.res.end(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
    return;
  }

  const onAbort = () => watcher.close();
  const watcher: Watcher = new Watcher(
    r,
    filter,
    form,
    fromRv !== undefined && fromRv > current ? fromRv : 0,
    () => {
      storage.removeWatcher(store, watcher);
      r.server.signal.removeEventListener("abort", onAbort);
    },
  );

  // Everything from here to addWatcher runs without yielding, so no change falls in between.
  if (sendInitialEvents || fromRv === undefined) {
    for (const o of storage.list(store, r.namespace || undefined)) watcher.sendInitial(o);
    if (sendInitialEvents) watcher.bookmark(current, true);
  } else {
    for (const ev of storage.history.since(fromRv, store)) watcher.deliver(ev);
  }
  storage.addWatcher(store, watcher);

  r.server.signal.addEventListener("abort", onAbort);
  r.res.on("close", () => watcher.close());
  r.res.on("error", () => watcher.close());
  watcher.addTimer(
    setTimeout(() => {
      if (bookmarks) watcher.guard(() => watcher.bookmark(storage.resourceVersion));
      watcher.close();
    }, timeoutSeconds * 1000),
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
}
