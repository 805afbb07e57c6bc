// One watcher: the lines it sends (selectors applied to transitions, bookmarks, the Table and
// metadata forms, a CRD's conversion webhook), its initial events written at the client's pace
// and then its live events, which arrive synchronously from storage's fan-out.
import type { WatchLineConverter } from "../conversion/index.js";
import { builtinView, hasBuiltinForms, watchLineConverter } from "../conversion/index.js";
import { isProtobufResponse, metaApiVersionOf, type ResponseForm } from "../http-io.js";
import { protobufCodec } from "../lazy.js";
import { apiVersionOfDef } from "../object/meta.js";
import { expiredWatchLine, type WatchFault } from "controller-runtime/envtest/faults";
import { type EndFault, WatchFaultGate } from "controller-runtime/envtest/faults";
import { failureStatus } from "../status.js";
import type { Obj, StoredEvent, StoredObject, WatchSink } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import type { ObjectFilter } from "./selection.js";
import { formJson } from "./serialize.js";
import { includeObjectOf, tableJson } from "./table.js";
import { WatchWriter, WRITE_CHUNK_BYTES } from "./watch-writer.js";
import { stringifyJson } from "../object/deep-json.js";

export class Watcher implements WatchSink {
  #closed = false;
  #timers: NodeJS.Timeout[] = [];
  readonly #r: ResourceRequest;
  readonly #filter: ObjectFilter;
  readonly #form: ResponseForm;
  readonly #key: string;
  /** meta.k8s.io's version of the PartialObjectMetadata form. */
  readonly #metaApiVersion: string;
  readonly #apiVersion: string;
  readonly #minRv: number;
  readonly #onClose: () => void;
  readonly #includeObject: "None" | "Object" | "Metadata";
  readonly #out: WatchWriter;
  #tableHeadersSent = false;
  readonly #initialFault: WatchFault | undefined;
  /** Injected faults armed on this watch; undefined (and free) until one is. */
  #faults: WatchFaultGate | undefined;
  /**
   * Live events that arrived while initial events were written, sent after them in order;
   * undefined once initial events are done. Lines are made when sent: a Table's depend on order.
   */
  #backlog: StoredEvent[] | undefined = [];
  #backlogBytes = 0;
  /** Set when objects may need a CRD's conversion webhook: lines then wait for it, in order. */
  readonly #converter: WatchLineConverter | undefined;
  /** Set when objects may be in another built-in form (an Event written through events.k8s.io). */
  readonly #builtinForms: boolean;
  /** Objects (or their metadata) go out as protobuf frames of the stored object's kept message, not from its JSON. */
  readonly #nativeProtobuf: boolean;

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
    this.#metaApiVersion = metaApiVersionOf(r.res);
    this.#converter = form === "object" ? watchLineConverter(r) : undefined;
    this.#nativeProtobuf =
      isProtobufResponse(r.res) &&
      (form === "object" || form === "PartialObjectMetadata") &&
      !this.#converter;
    // Lines are shared between watchers of the same key: protobuf frames are not JSON lines.
    this.#key = `${form}|${this.#apiVersion}|${this.#metaApiVersion}${this.#nativeProtobuf ? "|pb" : ""}`;
    this.#minRv = minRv;
    this.#onClose = onClose;
    this.#includeObject = includeObjectOf(r.query);
    this.#initialFault = r.watchFault;
    this.#builtinForms = hasBuiltinForms(r.def);
    this.#out = new WatchWriter(
      r.res,
      r.server.limits.watchBufferBytes,
      () => this.#overflow(),
      isProtobufResponse(r.res) ? protobufCodec.get().protobufWatchFrame() : undefined,
    );
  }

  get closed(): boolean {
    return this.#closed;
  }

  addTimer(t: NodeJS.Timeout): void {
    this.#timers.push(t);
  }

  #line(type: string, stored: StoredObject): string {
    if (this.#nativeProtobuf) {
      const codec = protobufCodec.get();
      // Metadata is the same in every version: no conversion for it.
      const frame =
        this.#form === "PartialObjectMetadata"
          ? codec.storedMetadataFrameText(type, this.#metaApiVersion, stored.obj)
          : codec.storedFrameText(
              type,
              this.#apiVersion,
              this.#r.def.kind,
              this.#builtinForms ? builtinView(this.#r.def, stored) : stored,
            );
      if (frame !== undefined) return frame;
    }
    return `{"type":"${type}","object":${this.#objectJson(stored)}}\n`;
  }

  #objectJson(written: StoredObject): string {
    // The converter needs the stored apiVersion to convert from.
    if (this.#converter) return written.json;
    const stored = this.#builtinForms ? builtinView(this.#r.def, written) : written;
    if (this.#form !== "Table") return formJson(this.#r.def, stored, this.#form, this.#metaApiVersion);
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
    this.guard(() => {
      if (this.#closed || ev.rv <= this.#minRv) return;
      if (this.#backlog) {
        this.#backlog.push(ev);
        this.#backlogBytes += ev.object.json.length;
        this.#out.hold(this.#backlogBytes);
        return;
      }
      const line = this.eventLine(ev);
      if (line !== undefined) this.write(line);
    });
  }

  /** Runs `fn`; if it throws, the watch ends with an ERROR event saying why. */
  guard(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.#fail(e);
    }
  }

  #fail(e: unknown): void {
    if (this.#closed) return;
    const status = failureStatus(500, "InternalError", `watch closed: ${(e as Error)?.message ?? String(e)}`);
    this.close(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
  }

  /** The line of a change as this watcher sees it (selectors apply to transitions), if any. */
  eventLine(ev: StoredEvent): string | undefined {
    if (ev.rv <= this.#minRv) return undefined;
    const now = ev.type !== "DELETED" && this.#filter.matches(ev.object.obj);
    const before = ev.prev !== undefined && this.#filter.matches(ev.prev.obj);
    let type: string;
    if (ev.type === "DELETED") {
      if (!before) return undefined;
      type = "DELETED";
    } else if (now && before) type = "MODIFIED";
    else if (now) type = "ADDED";
    else if (before)
      type = "GONE"; // stopped matching: DELETED with the previous content
    else return undefined;
    const cacheKey = `${type}|${this.#key}`;
    // Table lines depend on this watcher's state (headers sent), so they are not shared.
    let line = this.#form === "Table" ? undefined : ev.lines?.get(cacheKey);
    if (line === undefined) {
      if (type === "GONE") {
        const prev = JSON.parse(ev.prev!.json) as Obj;
        (prev.metadata as Obj).resourceVersion = String(ev.rv);
        const stored: StoredObject = { ...ev.prev!, obj: prev, json: stringifyJson(prev), rv: ev.rv };
        line = this.#line("DELETED", stored);
      } else line = this.#line(type, ev.object);
      if (this.#form !== "Table") {
        ev.lines ??= new Map();
        ev.lines.set(cacheKey, line);
      }
    }
    return line;
  }

  /** The ADDED line of a snapshot's object, if it matches. */
  objectLine(stored: StoredObject): string | undefined {
    return this.#filter.matches(stored.obj) ? this.#line("ADDED", stored) : undefined;
  }

  #bookmarkLine(rv: number, initialEventsEnd: boolean): string {
    // By 1.37 ObjectMeta's creationTimestamp is omitzero: a bookmark's metadata has none.
    const meta: Obj = { resourceVersion: String(rv) };
    if (initialEventsEnd) meta.annotations = { "k8s.io/initial-events-end": "true" };
    const metaForm = this.#form === "PartialObjectMetadata" || this.#form === "PartialObjectMetadataList";
    const obj = metaForm
      ? { kind: "PartialObjectMetadata", apiVersion: this.#metaApiVersion, metadata: meta }
      : { kind: this.#r.def.kind, apiVersion: this.#apiVersion, metadata: meta };
    if (this.#form === "Table") {
      // kube turns bookmarks into Tables too: one row for the bookmark's (empty) object.
      const stored = { obj, json: stringifyJson(obj), rv, key: "", namespace: "", name: "" };
      return `{"type":"BOOKMARK","object":${this.#objectJson(stored)}}\n`;
    }
    return `{"type":"BOOKMARK","object":${JSON.stringify(obj)}}\n`;
  }

  /** A periodic (or final) bookmark; none while initial events are written: they end with their own. */
  bookmark(rv: number): void {
    if (this.#closed || this.#backlog) return;
    this.write(this.#bookmarkLine(rv, false));
  }

  /**
   * Writes initial events (a snapshot's objects, or the history replayed from a version) at the
   * client's pace, then the initial-events-end bookmark at `endRv` if given, then the live events
   * that arrived meanwhile, and from then on live events as they come.
   */
  streamInitial<T>(items: readonly T[], lineOf: (item: T) => string | undefined, endRv?: number): void {
    this.#pump(items, lineOf, endRv).catch((e: unknown) => this.#fail(e));
  }

  async #pump<T>(
    items: readonly T[],
    lineOf: (item: T) => string | undefined,
    endRv?: number,
  ): Promise<void> {
    let lines: string[] = [];
    let bytes = 0;
    for (const item of items) {
      if (this.#closed) return;
      const line = lineOf(item);
      if (line === undefined) continue;
      if (this.#form === "PartialObjectMetadataList") {
        this.#unencodable();
        return;
      }
      const end = this.#faults?.dueEnd();
      if (end) {
        // The events before it go out first.
        if (lines.length > 0) await this.#writeInitial(lines);
        this.#actFault(end);
        return;
      }
      lines.push(line);
      bytes += line.length;
      if (bytes >= WRITE_CHUNK_BYTES) {
        const written = this.#writeInitial(lines);
        lines = [];
        bytes = 0;
        await written;
      }
    }
    if (this.#closed) return;
    if (endRv !== undefined && this.#form === "PartialObjectMetadataList") {
      this.#unencodable();
      return;
    }
    if (endRv !== undefined) lines.push(this.#bookmarkLine(endRv, true));
    // Without waiting: the live events go right behind the last initial ones, in order.
    if (lines.length > 0) void this.#writeInitial(lines);
    const backlog = this.#backlog ?? [];
    this.#backlog = undefined;
    this.#backlogBytes = 0;
    this.#out.goLive();
    for (const ev of backlog) {
      const line = this.eventLine(ev);
      if (line !== undefined) this.write(line);
    }
  }

  /** Hands `lines` to the socket (through the converter, if any) now; resolves when more may follow. */
  #writeInitial(lines: string[]): Promise<void> {
    const converter = this.#converter;
    if (!converter) return this.#out.writeInitial(lines.join(""));
    return new Promise<void>((resolve) => {
      const last = lines.length - 1;
      for (let i = 0; i <= last; i++) {
        converter.push(
          lines[i]!,
          (l) => {
            if (!this.#closed) void this.#out.writeInitial(l);
            if (i === last) resolve();
          },
          (error) => {
            this.close(error);
            resolve();
          },
        );
      }
    }).then(() => this.#out.drained());
  }

  /** Writes a live line (through the converter, if any), after any injected fault on live events. */
  write(line: string): void {
    if (this.#closed) return;
    if (this.#form === "PartialObjectMetadataList") {
      this.#unencodable();
      return;
    }
    if (this.#faults) this.#faults.line(line);
    else this.#sendOnce(line);
  }

  #sendOnce(line: string): void {
    if (this.#converter) {
      this.#converter.push(
        line,
        (l) => {
          if (!this.#closed) this.#out.writeLive(l);
        },
        (error) => this.close(error),
      );
      return;
    }
    this.#out.writeLive(line);
  }

  /** Acts out an injected end: the connection cut, or an ERROR 410 Expired after what is queued. */
  #actFault(fault: EndFault): void {
    if (this.#closed) return;
    if (fault.type === "dropWatch") {
      // Cut, not ended: the events written so far go out, then the connection closes without the
      // response's end, as when a network path or a proxy drops it. HTTP/2 resets the stream.
      this.#stop();
      const socket = this.#r.req.httpVersionMajor === 1 ? this.#r.res.socket : null;
      if (socket) socket.end();
      else this.#r.res.destroy();
    } else {
      this.close(expiredWatchLine(this.#r.server.storage.resourceVersion));
    }
  }

  /** Arms an injected fault on this watch (by default the one the request came with). */
  arm(fault: WatchFault | undefined = this.#initialFault): void {
    if (fault === undefined || this.#closed) return;
    this.#faults ??= new WatchFaultGate(
      (line) => this.#sendOnce(line),
      (end) => this.#actFault(end),
      () => this.#closed,
    );
    this.#faults.arm(fault);
  }

  #overflow(): void {
    if (this.#closed) return;
    const limit = this.#r.server.limits.watchBufferBytes;
    const status = failureStatus(
      500,
      "InternalError",
      `watch closed: the client did not read events fast enough (more than ${limit} bytes unsent); watch again from the last resourceVersion it saw`,
    );
    this.#stop();
    // A reader that stopped reading will not drain what is buffered: drop the connection.
    this.#out.cutOff(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
  }

  /** Ends the watch after what is queued and `last` (an ERROR line, say). */
  /**
   * A watch asked for PartialObjectMetadataList: kube cannot turn an event's single object into
   * a list, keeps the object, which its meta.k8s.io encoder cannot write, and the stream ends
   * at the first event with nothing written.
   */
  #unencodable(): void {
    this.close();
  }

  close(last?: string): void {
    if (this.#closed) return;
    this.#stop();
    this.#out.end(last);
  }

  #stop(): void {
    this.#closed = true;
    this.#backlog = undefined;
    for (const t of this.#timers) clearTimeout(t);
    this.#onClose();
  }
}
