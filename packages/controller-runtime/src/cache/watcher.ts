// The watcher: a state machine (after kube-rs's `watcher`) that turns list + watch into one
// endless stream of events. Two states and one `step` from each:
//   Empty    --list (paged, or streamed with sendInitialEvents)-->  Watching
//   Watching --watch ends or fails-->                                Watching (resume from its version)
//   Watching --410 Expired-->                                        Empty    (relist)
// A streaming list hands its open stream to Watching, so the watch goes on where the initial
// events ended. Every other failure is reported as an `error` event carrying a WatcherError, and
// the machine carries on: it never ends by itself. Waiting between failures is `withBackoff`'s
// job, not this file's.
import type { KubeObject } from "../api/index.js";
import { nullLogger, type Logger } from "../log/index.js";
import { isGone, isResourceExpired, StatusError, type WatchEvent, type WatchStream } from "../rest/index.js";
import type { ListerWatcher } from "./list-watcher.js";

/**
 * What the watcher reports. A (re)list is `init`, one `initApply` per object, then `initDone`:
 * a store applies the whole list at `initDone`, atomically. Afterwards `apply` (added or
 * modified) and `delete` arrive one by one; `bookmark` only moves the version on.
 */
export type WatcherEvent<T extends KubeObject = KubeObject> =
  | { type: "init" }
  | { type: "initApply"; object: T }
  | { type: "initDone"; resourceVersion: string }
  | { type: "apply"; object: T; resourceVersion: string }
  | { type: "delete"; object: T; resourceVersion: string }
  | { type: "bookmark"; resourceVersion: string }
  | { type: "error"; error: WatcherError };

/**
 * What {@link watcherBatches} yields: the watcher's events, several at a time. A list page comes
 * as one `initPage` (the `initApply` of each of its objects); an `error` always comes alone.
 */
export type WatcherBatchEvent<T extends KubeObject = KubeObject> =
  | WatcherEvent<T>
  | { type: "initPage"; objects: readonly T[] };

export interface WatcherOptions {
  /**
   * Start with a streaming list (`sendInitialEvents=true`), falling back to list + watch when the
   * server refuses it (kube-apiserver < 1.27 answers 422) or never ends the initial events. The
   * embedded server streams the initial state with backpressure, as fast as one list GET or
   * faster at 50 000 objects, and without a second pass over a list body. Default: true.
   */
  streamingList?: boolean;
  /** Page size of lists. Default: 500 (client-go's). */
  pageSize?: number;
  /** The server-side length of each watch, in s. Default: random between 300 and 600 (client-go's). */
  watchTimeoutSeconds?: () => number;
  /**
   * How long a streaming list may stay silent before it counts as unsupported (a server that
   * ignores `sendInitialEvents` never ends the initial events), in ms. Default: 10 000.
   */
  initialEventsTimeoutMs?: number;
  /** Default: nullLogger(). */
  logger?: Logger;
}

interface ResolvedWatcherOptions {
  streamingList: boolean;
  pageSize: number;
  watchTimeoutSeconds: () => number;
  initialEventsTimeoutMs: number;
  logger: Logger;
}

function resolveWatcherOptions(opts: WatcherOptions): ResolvedWatcherOptions {
  return {
    streamingList: opts.streamingList ?? true,
    pageSize: opts.pageSize ?? 500,
    watchTimeoutSeconds: opts.watchTimeoutSeconds ?? (() => 300 + Math.floor(Math.random() * 300)),
    initialEventsTimeoutMs: opts.initialEventsTimeoutMs ?? 10_000,
    logger: opts.logger ?? nullLogger(),
  };
}

/** What failed, and so what the watcher does next. */
export type WatcherErrorReason =
  /** A list page failed: list again, at the latest version if the one asked for is gone. */
  | "ListFailed"
  /** A streaming list failed before its end: stream again (after two in a row, list + watch). */
  | "InitialStreamFailed"
  /** A watch could not be opened: open it again from the same version. */
  | "WatchStartFailed"
  /** An open watch broke or sent an ERROR event: resume from the last version seen. */
  | "WatchFailed"
  /** A watch ended at once with no event (client-go counts it a failure): resume after a backoff. */
  | "WatchTooShort";

/** A failure the watcher reports and recovers from; `cause` is the server's or the transport's error. */
export class WatcherError extends Error {
  override readonly name = "WatcherError";
  readonly reason: WatcherErrorReason;

  constructor(reason: WatcherErrorReason, message: string, cause?: unknown) {
    super(cause === undefined ? message : `${message}: ${messageOf(cause)}`, { cause });
    this.reason = reason;
  }
}

/** The annotation on the bookmark that ends a streaming list's initial events. */
export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

/** A watch that ended this fast with no event counts as a failure (client-go's rule). */
const SHORT_WATCH_MS = 1000;

/** An open watch: the stream, and the events already read from it but not yet handled. */
interface OpenWatch<T extends KubeObject> {
  next(): Promise<WatchEvent<T>[] | undefined>;
  /** The stream's push mode, when it has one (WatchStream.consume). */
  consume?: (onBatch: (events: WatchEvent<T>[]) => boolean | undefined) => Promise<boolean>;
  /** Events after a streaming list's end bookmark, read in the same batch. */
  pending: WatchEvent<T>[];
  /** Whether events already came on it (a streaming list's): then it cannot be "too short". */
  readonly continued: boolean;
  close(): Promise<void>;
}

/** Where the watcher is (kube-rs's `watcher::State`). */
type State<T extends KubeObject> =
  /** Nothing listed, or the list is no longer usable: list at `listAt` ("0" first, "" for the latest). */
  | { kind: "Empty"; listAt: string }
  /** Listed up to `rv`: watch from there, on `open` when a streaming list left its stream open. */
  | { kind: "Watching"; rv: string; open?: OpenWatch<T> };

/** How the watcher lists, learnt from the server as it goes. */
interface Strategy {
  /** Stream the initial list; false once the server showed it cannot. */
  streaming: boolean;
  /** client-go: after a list answered with a continue token, later relists page too. */
  paginated: boolean;
  /** Streaming lists that failed before their end, in a row (after two: list + watch). */
  streamFailures: number;
}

interface Machine<T extends KubeObject> {
  readonly lw: ListerWatcher<T>;
  readonly signal: AbortSignal;
  readonly opts: ResolvedWatcherOptions;
  readonly strategy: Strategy;
  /** Where a watch's events go as they arrive, when the consumer takes them so (watcherBatches). */
  readonly deliver: WatchDeliver<T> | undefined;
  /** Where a streaming list's objects go as they arrive, likewise. */
  readonly deliverInitial: WatchDeliver<T> | undefined;
}

type Step<T extends KubeObject> = AsyncGenerator<WatcherBatchEvent<T>[], State<T>, undefined>;

function expired(err: unknown): boolean {
  return isResourceExpired(err) || isGone(err);
}

function isUnsupported(err: unknown): boolean {
  if (!(err instanceof StatusError)) return false;
  const code = err.statusCode;
  return code >= 400 && code < 500 && code !== 429 && code !== 401 && code !== 403 && code !== 410;
}

function rvOf(obj: KubeObject | undefined): string {
  return obj?.metadata?.resourceVersion ?? "";
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function failed<T extends KubeObject>(error: WatcherError): WatcherBatchEvent<T>[] {
  return [{ type: "error", error }];
}

/**
 * Lists and watches through `lw` until `signal` aborts; then the iteration ends (it never throws
 * the abort). Wrap it in `withBackoff` so failures are not retried in a tight loop.
 */
export async function* watcher<T extends KubeObject>(
  lw: ListerWatcher<T>,
  signal: AbortSignal,
  options: WatcherOptions = {},
): AsyncGenerator<WatcherEvent<T>, void, undefined> {
  for await (const batch of watcherBatches(lw, signal, options)) {
    for (const ev of batch) {
      if (ev.type !== "initPage") yield ev;
      else for (const object of ev.objects) yield { type: "initApply", object };
    }
  }
}

/**
 * Applies `events[0..count)` of an open watch, synchronously: ADDED, MODIFIED, DELETED and
 * BOOKMARK only (an ERROR ends the watch before it). The array is the stream's, refilled for the
 * next chunk: nothing may keep it.
 */
export type WatchDeliver<T extends KubeObject> = (events: readonly WatchEvent<T>[], count: number) => void;

/**
 * The watcher's events as they arrive: the items of a list page together, the events of a watch
 * chunk together. The reflector applies each batch synchronously, so a chunk of fifty events
 * costs one promise, not fifty. Wrap it in `withBatchBackoff`.
 *
 * With `deliver`, the events of an open watch whose stream can push (`WatchStream.consume`) go
 * to `deliver` instead, as the server sent them, synchronously, in the callback that read the
 * chunk: no promise, and no array or event object of the watcher's, between the socket and the
 * consumer. Everything else (lists, errors, the end of a watch) is
 * still yielded, in order with what `deliver` got: it is called only while the iteration waits.
 *
 * With `deliverInitial`, a streaming list's objects (its ADDED events before the end bookmark) go
 * to it likewise, between the `init` and the `initDone` yielded: at 100 000 objects the stream
 * comes in some 26 000 chunks of 4 KiB (kube-apiserver's chunked writes), and taking each chunk by
 * a promise, with the body paused and resumed around it, cost more than decoding it.
 */
export async function* watcherBatches<T extends KubeObject>(
  lw: ListerWatcher<T>,
  signal: AbortSignal,
  options: WatcherOptions = {},
  deliver?: WatchDeliver<T>,
  deliverInitial?: WatchDeliver<T>,
): AsyncGenerator<WatcherBatchEvent<T>[], void, undefined> {
  const opts = resolveWatcherOptions(options);
  const machine: Machine<T> = {
    lw,
    signal,
    opts,
    strategy: { streaming: opts.streamingList, paginated: true, streamFailures: 0 },
    deliver,
    deliverInitial,
  };
  let state: State<T> = { kind: "Empty", listAt: "0" };
  try {
    while (!signal.aborted) state = yield* step(state, machine);
  } catch (err) {
    // Each step reports its own failures; what comes here is the abort.
    if (!signal.aborted) throw err;
  } finally {
    if (state.kind === "Watching") await state.open?.close();
  }
}

/** One transition: from `state`, yields what it learns and returns the next state. */
function step<T extends KubeObject>(state: State<T>, m: Machine<T>): Step<T> {
  switch (state.kind) {
    case "Empty":
      return m.strategy.streaming ? streamingList(state, m) : pagedList(state, m);
    case "Watching":
      return watch(state, m);
  }
}

/** Empty → Watching: a list, page by page, then a watch from its version. */
async function* pagedList<T extends KubeObject>(state: { listAt: string }, m: Machine<T>): Step<T> {
  const { lw, signal, opts, strategy } = m;
  const at = state.listAt;
  let rv = "";
  let cont: string | undefined;
  let first = true;
  try {
    do {
      const page = await lw.list(
        cont
          ? { continue: cont, limit: opts.pageSize }
          : { resourceVersion: at, limit: at === "0" || strategy.paginated ? opts.pageSize : undefined },
        signal,
      );
      if (first) {
        first = false;
        strategy.paginated = page.metadata?.continue !== undefined && page.metadata.continue !== "";
        yield [{ type: "init" }];
      }
      if (page.items.length > 0) yield [{ type: "initPage", objects: page.items }];
      rv = page.metadata?.resourceVersion ?? "";
      cont = page.metadata?.continue || undefined;
    } while (cont);
  } catch (err) {
    if (signal.aborted) throw err;
    yield failed(new WatcherError("ListFailed", "list failed", err));
    // A 410 answer to a list at a version: the next list reads the latest state.
    return { kind: "Empty", listAt: expired(err) ? "" : at };
  }
  yield [{ type: "initDone", resourceVersion: rv }];
  return { kind: "Watching", rv };
}

/** Empty → Empty, on list + watch from now on: the server cannot stream lists. */
function streamingUnsupported<T extends KubeObject>(
  state: { listAt: string },
  m: Machine<T>,
  why: string,
): State<T> {
  m.strategy.streaming = false;
  m.opts.logger.info(`streaming lists ${why}; listing and watching instead`);
  return { kind: "Empty", listAt: state.listAt };
}

/**
 * Empty → Watching: a streaming list, a watch with `sendInitialEvents=true` whose ADDED events up
 * to the `k8s.io/initial-events-end` bookmark are the list. Its stream stays open for Watching.
 */
async function* streamingList<T extends KubeObject>(state: { listAt: string }, m: Machine<T>): Step<T> {
  const { lw, signal, opts, strategy } = m;
  // Its own controller, chained by hand, so that inactivity can end it: AbortSignal.any would
  // leave a listener on `signal` for every attempt until garbage collection.
  const silent = new AbortController();
  const onAbort = () => silent.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const release = () => signal.removeEventListener("abort", onAbort);
  let stream: WatchStream<T>;
  try {
    stream = await lw.watch(
      {
        resourceVersion: "",
        resourceVersionMatch: "NotOlderThan",
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        timeoutSeconds: opts.watchTimeoutSeconds(),
      },
      silent.signal,
    );
  } catch (err) {
    release();
    if (isUnsupported(err)) return streamingUnsupported(state, m, "are not supported by the server");
    if (signal.aborted) throw err;
    return yield* streamFailed(state, m, err);
  }
  // Inactivity, not total time: a large list may take long but never goes quiet.
  let last = performance.now();
  const check = () => {
    const idle = performance.now() - last;
    if (idle >= opts.initialEventsTimeoutMs) silent.abort();
    else timer = setTimeout(check, opts.initialEventsTimeoutMs - idle);
  };
  let timer = setTimeout(check, opts.initialEventsTimeoutMs);
  const next = batchReader(stream);
  let handedOver = false;
  let rv = "";
  yield [{ type: "init" }];
  // The events of the batch being read; whatever ends the stream first hands over those before it.
  let out: WatcherBatchEvent<T>[] = [];
  // An exception of the consumer's own (push mode): it ends the iteration as from a yield.
  let consumerFailure: { error: unknown } | undefined;
  try {
    const deliverInitial = m.deliverInitial;
    if (deliverInitial !== undefined && stream.consume !== undefined) {
      // Push mode: the objects of each chunk are delivered in the callback that read it, until
      // the first event that is not ADDED, which ends the initial events one way or another.
      let stop: WatchEvent<T> | undefined;
      let rest: WatchEvent<T>[] = [];
      const onBatch = (b: WatchEvent<T>[]): boolean => {
        last = performance.now();
        let count = b.length;
        for (let i = 0; i < b.length; i++) {
          const ev = b[i]!;
          if (ev.type !== "ADDED") {
            count = i;
            stop = ev;
            // The array is the stream's, refilled for the next chunk.
            rest = b.slice(i + 1);
            break;
          }
          rv = rvOf(ev.object) || rv;
        }
        if (count > 0) {
          try {
            deliverInitial(b, count);
          } catch (error) {
            consumerFailure = { error };
            return false;
          }
        }
        return stop === undefined;
      };
      await stream.consume(onBatch);
      if (consumerFailure !== undefined) throw consumerFailure.error;
      if (stop === undefined) {
        return yield* streamFailed(
          state,
          m,
          new Error("the streaming list ended before its initial events did"),
        );
      }
      const end: WatchEvent<T> = stop;
      if (end.type === "ERROR") {
        const err = new StatusError(end.object);
        if (isUnsupported(err)) return streamingUnsupported(state, m, "are refused by the server");
        return yield* streamFailed(state, m, err);
      }
      if (
        end.type !== "BOOKMARK" ||
        end.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== "true"
      ) {
        return streamingUnsupported(state, m, "are not supported by the server");
      }
      rv = rvOf(end.object) || rv;
      yield [{ type: "initDone", resourceVersion: rv }];
      strategy.streamFailures = 0;
      handedOver = true;
      return {
        kind: "Watching",
        rv,
        open: {
          next,
          consume: stream.consume.bind(stream),
          pending: rest,
          continued: true,
          close: async () => {
            release();
            await stream.return();
          },
        },
      };
    }
    for (let batch = await next(); batch !== undefined; batch = await next()) {
      last = performance.now();
      out = [];
      for (let i = 0; i < batch.length; i++) {
        const ev = batch[i];
        if (ev.type === "ERROR") {
          if (out.length > 0) yield out;
          const err = new StatusError(ev.object);
          if (isUnsupported(err)) return streamingUnsupported(state, m, "are refused by the server");
          return yield* streamFailed(state, m, err);
        }
        rv = rvOf(ev.object) || rv;
        if (ev.type === "ADDED") {
          out.push({ type: "initApply", object: ev.object });
          continue;
        }
        // MODIFIED, DELETED or a plain bookmark cannot come before the end of the initial events.
        if (
          ev.type !== "BOOKMARK" ||
          ev.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== "true"
        ) {
          if (out.length > 0) yield out;
          return streamingUnsupported(state, m, "are not supported by the server");
        }
        out.push({ type: "initDone", resourceVersion: rv });
        yield out;
        strategy.streamFailures = 0;
        handedOver = true;
        const open: OpenWatch<T> = {
          next,
          consume: stream.consume?.bind(stream),
          pending: batch.slice(i + 1),
          continued: true,
          close: async () => {
            release();
            await stream.return();
          },
        };
        return { kind: "Watching", rv, open };
      }
      if (out.length > 0) yield out;
      out = [];
    }
    return yield* streamFailed(state, m, new Error("the streaming list ended before its initial events did"));
  } catch (err) {
    if (consumerFailure !== undefined) throw consumerFailure.error;
    if (silent.signal.aborted && !signal.aborted) {
      return streamingUnsupported(state, m, "never ended their initial events here");
    }
    if (signal.aborted) throw err;
    return yield* streamFailed(state, m, err);
  } finally {
    clearTimeout(timer);
    if (!handedOver) {
      release();
      await stream.return();
    }
  }
}

/** Empty → Empty: a streaming list failed before its end; after two in a row, list + watch. */
async function* streamFailed<T extends KubeObject>(
  state: { listAt: string },
  m: Machine<T>,
  err: unknown,
): Step<T> {
  yield failed(new WatcherError("InitialStreamFailed", "streaming list failed", err));
  if (++m.strategy.streamFailures >= 2) {
    // A server may cut off a large initial stream as a slow watcher.
    return streamingUnsupported(state, m, "failed twice before their end");
  }
  return { kind: "Empty", listAt: expired(err) ? "" : state.listAt };
}

/** Reads a stream a batch at a time, or an event at a time when it cannot batch. */
function batchReader<T extends KubeObject>(
  stream: WatchStream<T>,
): () => Promise<WatchEvent<T>[] | undefined> {
  if (stream.nextBatch) return stream.nextBatch.bind(stream);
  return async () => {
    const r = await stream.next();
    return r.done ? undefined : [r.value];
  };
}

/**
 * Watching → Watching (resume from the last version) or → Empty (410: relist). Opens a watch from
 * `rv` unless a streaming list left one open, and follows it until it ends.
 */
async function* watch<T extends KubeObject>(
  state: { rv: string; open?: OpenWatch<T> },
  m: Machine<T>,
): Step<T> {
  const { lw, signal, opts } = m;
  let rv = state.rv;
  let open = state.open;
  if (open === undefined) {
    try {
      const stream = await lw.watch(
        { resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: opts.watchTimeoutSeconds() },
        signal,
      );
      open = {
        next: batchReader(stream),
        consume: stream.consume?.bind(stream),
        pending: [],
        continued: false,
        close: async () => void (await stream.return()),
      };
    } catch (err) {
      if (signal.aborted) throw err;
      if (expired(err)) return relist(rv, m, err);
      yield failed(new WatcherError("WatchStartFailed", `watch from resourceVersion ${rv} failed`, err));
      return { kind: "Watching", rv };
    }
  }
  const started = performance.now();
  let events = 0;
  // What ended the watch early: an ERROR event's next state, with the failure to report.
  let ended: { next: State<T>; failure?: WatcherError } | undefined;
  /** At an ERROR: what the watcher does next. */
  const endWith = (status: WatchEvent<T> & { type: "ERROR" }): void => {
    const err = new StatusError(status.object);
    if (expired(err)) ended = { next: relist(rv, m, err) };
    else {
      // Resume from where we are, after the backoff.
      ended = {
        next: { kind: "Watching", rv },
        failure: new WatcherError("WatchFailed", `watch from resourceVersion ${rv} failed`, err),
      };
    }
  };
  /** The watcher events of a chunk; sets `ended` at an ERROR and leaves out what follows it. */
  const convert = (batch: WatchEvent<T>[]): WatcherBatchEvent<T>[] => {
    events += batch.length;
    const out: WatcherBatchEvent<T>[] = [];
    for (const ev of batch) {
      switch (ev.type) {
        case "ADDED":
        case "MODIFIED":
          rv = rvOf(ev.object) || rv;
          out.push({ type: "apply", object: ev.object, resourceVersion: rv });
          break;
        case "DELETED":
          rv = rvOf(ev.object) || rv;
          out.push({ type: "delete", object: ev.object, resourceVersion: rv });
          break;
        case "BOOKMARK":
          rv = rvOf(ev.object) || rv;
          out.push({ type: "bookmark", resourceVersion: rv });
          break;
        case "ERROR":
          endWith(ev);
          return out;
      }
    }
    return out;
  };
  const deliver = m.deliver;
  // An exception of the consumer's own, not the watch's: it ends the iteration as it would
  // have from a yield.
  let consumerFailure: { error: unknown } | undefined;
  try {
    let batch: WatchEvent<T>[] | undefined = open.pending;
    open.pending = [];
    if (deliver !== undefined && open.consume !== undefined) {
      // The events go on as they came; only the version and an ERROR matter here.
      const onBatch = (b: WatchEvent<T>[]): boolean => {
        let count = b.length;
        for (let i = 0; i < b.length; i++) {
          const ev = b[i]!;
          if (ev.type === "ERROR") {
            count = i;
            endWith(ev);
            break;
          }
          rv = rvOf(ev.object) || rv;
        }
        events += count;
        if (count > 0) {
          try {
            deliver(b, count);
          } catch (error) {
            consumerFailure = { error };
            return false;
          }
        }
        return ended === undefined;
      };
      if (batch.length === 0 || onBatch(batch)) await open.consume(onBatch);
    } else {
      if (batch.length === 0) batch = await open.next();
      while (batch !== undefined) {
        const out = convert(batch);
        if (out.length > 0) yield out;
        if (ended !== undefined) break;
        batch = await open.next();
      }
    }
  } catch (err) {
    if (signal.aborted) throw err;
    yield failed(new WatcherError("WatchFailed", `watch from resourceVersion ${rv} failed`, err));
    return { kind: "Watching", rv };
  } finally {
    await open.close();
  }
  if (consumerFailure !== undefined) throw consumerFailure.error;
  if (ended !== undefined) {
    if (ended.failure !== undefined) yield failed(ended.failure);
    return ended.next;
  }
  if (events === 0 && !open.continued && performance.now() - started < SHORT_WATCH_MS) {
    yield failed(
      new WatcherError(
        "WatchTooShort",
        `very short watch: the watch from resourceVersion ${rv} ended at once with no event`,
      ),
    );
  }
  return { kind: "Watching", rv };
}

/** Watching → Empty: the version to resume from is gone (410), so list again. */
function relist<T extends KubeObject>(rv: string, m: Machine<T>, err: unknown): State<T> {
  m.opts.logger.v(1).info("watch expired; relisting", { resourceVersion: rv, reason: messageOf(err) });
  return { kind: "Empty", listAt: rv };
}
