// The reflector: runs a watcher (with backoff) and applies its events to a sink, the informer's
// store, a batch at a time (a list page, a watch chunk) with no promise between the events of a
// batch; an open watch's chunks are applied in the callback that read them from the socket. A list is gathered and handed over whole at `initDone`, so the store changes atomically. Each object is transformed and frozen once, here, on its way in.
// It also keeps the health a readyz check reads.
import type { DeepReadonly, KubeObject } from "../api/index.js";
import type { WatchEvent } from "../rest/index.js";
import { nullLogger, type Logger } from "../log/index.js";
import { isNotFound } from "../rest/index.js";
import { type Backoff, exponentialBackoff, withBatchBackoff } from "./backoff.js";
import type { ListerWatcher } from "./list-watcher.js";
import { type WatcherBatchEvent, type WatcherError, watcherBatches, type WatcherOptions } from "./watcher.js";

/**
 * Where a reflector puts what it learns. Objects come without keys: a store places them by their
 * namespace and name (`storeKeyOf` builds the `namespace/name` key for those that want one).
 */
export interface ReflectorSink<T extends KubeObject> {
  /** The complete state of this reflector's scope, from a (re)list. The array is the sink's to keep. */
  replace(items: DeepReadonly<T>[]): void;
  apply(obj: DeepReadonly<T>): void;
  delete(obj: DeepReadonly<T>): void;
  /** Called after the first `replace`, once `hasSynced()` is true. */
  synced?(): void;
  /**
   * Called once the sink holds every change up to `resourceVersion` (after a list, after each
   * batch of events, on a bookmark): what read-your-writes waits for.
   */
  progress?(resourceVersion: string): void;
}

/** How a reflector is doing, for readiness checks and logs. */
export interface ReflectorHealth {
  /** The first full list has been stored. */
  hasSynced: boolean;
  /** The last resourceVersion seen (from a list, an event or a bookmark). */
  resourceVersion: string;
  /** When the server last answered with something useful (a list, an event, a bookmark). */
  lastSyncTime: Date | undefined;
  /** The last failure, until the next success. */
  lastError: unknown;
  lastErrorTime: Date | undefined;
  /** Failures since the last success. */
  consecutiveErrors: number;
}

export interface ReflectorOptions<T extends KubeObject> {
  /** Turns a decoded object into the stored one (transform + freeze). Default: as is. */
  ingest?: (obj: T) => DeepReadonly<T>;
  /** Default: nullLogger(). */
  logger?: Logger;
  /** Default: `exponentialBackoff()` (800 ms doubling to 30 s, full jitter). */
  backoff?: Backoff;
  watcher?: WatcherOptions;
  /**
   * Called with each list or watch failure before the backoff (client-go's WatchErrorHandler,
   * controller-runtime's `DefaultWatchErrorHandler`); it must not throw. Default: none (logged).
   */
  onError?: (err: WatcherError) => void;
}

/** The store key of an object: `namespace/name`, or `name` when it has no namespace. */
export function storeKeyOf(obj: KubeObject): string {
  const meta = obj.metadata;
  const name = meta?.name ?? "";
  const ns = meta?.namespace;
  return ns ? `${ns}/${name}` : name;
}

export class Reflector<T extends KubeObject> {
  readonly #lw: ListerWatcher<T>;
  readonly #sink: ReflectorSink<T>;
  readonly #ingest: (obj: T) => DeepReadonly<T>;
  readonly #log: Logger;
  readonly #backoff: Backoff;
  readonly #watcherOptions: WatcherOptions;
  readonly #onError: ((err: WatcherError) => void) | undefined;
  #synced = false;
  #rv = "";
  /**
   * performance.now() of the last success (0: none): recorded after every watch chunk, where
   * Date.now() is a runtime call and performance.now() a fast one; health() turns it into a date.
   */
  #lastSyncAt = 0;
  #lastError: unknown;
  #lastErrorMs = 0;
  #errors = 0;

  constructor(lw: ListerWatcher<T>, sink: ReflectorSink<T>, opts: ReflectorOptions<T> = {}) {
    this.#lw = lw;
    this.#sink = sink;
    this.#ingest = opts.ingest ?? ((o) => o as DeepReadonly<T>);
    this.#log = opts.logger ?? nullLogger();
    this.#backoff = opts.backoff ?? exponentialBackoff();
    this.#watcherOptions = { ...opts.watcher, logger: opts.watcher?.logger ?? this.#log };
    this.#onError = opts.onError;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  health(): ReflectorHealth {
    return {
      hasSynced: this.#synced,
      resourceVersion: this.#rv,
      lastSyncTime: this.#lastSyncAt
        ? new Date(Date.now() - (performance.now() - this.#lastSyncAt))
        : undefined,
      lastError: this.#lastError,
      lastErrorTime: this.#lastErrorMs ? new Date(this.#lastErrorMs) : undefined,
      consecutiveErrors: this.#errors,
    };
  }

  /** Lists and watches until `signal` aborts; resolves then. Never rejects on server failures. */
  async run(signal: AbortSignal): Promise<void> {
    const backoff = this.#backoff;
    // An open watch's chunks come straight from the socket's callback (watcherBatches' deliver):
    // a success, so the backoff starts over, as withBatchBackoff does for what it passes on.
    const deliver = (events: readonly WatchEvent<T>[], count: number) => {
      backoff.reset();
      this.#applyWatch(events, count);
    };
    // A streaming list's objects likewise, into the list being gathered (after `init`).
    const deliverInitial = (events: readonly WatchEvent<T>[], count: number) => {
      const ingest = this.#ingest;
      const buffer = this.#buffer ?? [];
      this.#buffer = buffer;
      // Only ADDED events come here: their objects are T.
      for (let i = 0; i < count; i++) buffer.push(ingest(events[i]!.object as T));
    };
    const batches = withBatchBackoff(
      watcherBatches(this.#lw, signal, this.#watcherOptions, deliver, deliverInitial),
      backoff,
      signal,
    );
    try {
      for await (const batch of batches) this.#apply(batch);
    } catch (err) {
      if (!signal.aborted) throw err;
    }
  }

  /** A list being gathered: handed to the sink whole at `initDone`. */
  #buffer: DeepReadonly<T>[] | undefined;

  /** Applies a batch to the sink, synchronously. */
  #apply(batch: readonly WatcherBatchEvent<T>[]): void {
    const ingest = this.#ingest;
    const sink = this.#sink;
    // The version the batch got to: the time and the error reset are recorded once per batch.
    let rv: string | undefined;
    for (const ev of batch) {
      switch (ev.type) {
        case "init":
          this.#buffer = [];
          break;
        case "initPage": {
          const buffer = this.#buffer ?? [];
          this.#buffer = buffer;
          for (const object of ev.objects) buffer.push(ingest(object));
          break;
        }
        case "initApply": {
          const buffer = this.#buffer ?? [];
          this.#buffer = buffer;
          buffer.push(ingest(ev.object));
          break;
        }
        case "initDone":
          sink.replace(this.#buffer ?? []);
          this.#buffer = undefined;
          this.#ok(ev.resourceVersion);
          if (!this.#synced) {
            this.#synced = true;
            sink.synced?.();
          }
          break;
        case "apply":
          sink.apply(ingest(ev.object));
          rv = ev.resourceVersion;
          this.#rv = rv;
          break;
        case "delete":
          sink.delete(ingest(ev.object));
          rv = ev.resourceVersion;
          this.#rv = rv;
          break;
        case "bookmark":
          rv = ev.resourceVersion;
          break;
        case "error":
          this.#failed(ev.error);
          break;
      }
    }
    if (rv !== undefined) this.#ok(rv);
  }

  /** An open watch's events, as the server sent them (no ERROR among them): see WatchDeliver. */
  #applyWatch(events: readonly WatchEvent<T>[], count: number): void {
    const ingest = this.#ingest;
    const sink = this.#sink;
    let rv = this.#rv;
    for (let i = 0; i < count; i++) {
      const ev = events[i]!;
      if (ev.type === "ERROR") continue;
      const obj = ev.object;
      rv = obj.metadata?.resourceVersion || rv;
      // Kept up to date event by event: a handler may read health() (readyz) meanwhile.
      this.#rv = rv;
      if (ev.type === "ADDED" || ev.type === "MODIFIED") sink.apply(ingest(obj));
      else if (ev.type === "DELETED") sink.delete(ingest(obj));
    }
    this.#ok(rv);
  }

  #failed(error: WatcherError): void {
    this.#errors++;
    // The server's own error, which callers test (isNotFound, isForbidden).
    this.#lastError = error.cause ?? error;
    this.#lastErrorMs = Date.now();
    // A list answered 404 is a resource the server does not serve: most often a CRD
    // not installed yet. Say so at once rather than leave the server's bare words.
    if (error.reason === "ListFailed" && isNotFound(this.#lastError)) {
      this.#log.error(
        error,
        "the API server does not serve this kind: is its CRD installed? (kubectl apply -f config/crd; in tests, envtest's crdDirectoryPaths); retrying after a backoff",
        { consecutiveErrors: this.#errors },
      );
    } else {
      this.#log.error(error, "list/watch failed; retrying after a backoff", {
        reason: error.reason,
        resourceVersion: this.#rv,
        consecutiveErrors: this.#errors,
      });
    }
    try {
      this.#onError?.(error);
    } catch (err) {
      this.#log.error(err, "the watch error handler threw");
    }
  }

  #ok(rv: string): void {
    this.#rv = rv;
    this.#sink.progress?.(rv);
    this.#lastSyncAt = performance.now();
    if (this.#errors !== 0) {
      this.#errors = 0;
      this.#lastError = undefined;
    }
  }
}
