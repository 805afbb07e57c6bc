// The watcher: a small state machine (after kube-rs's `watcher`) that turns list + watch into one
// endless stream of events. It lists (or streams the initial list), then watches from the list's
// version, resumes a closed watch from the last version it saw, relists when that version is
// gone (410), and reports every other failure as an `error` event and carries on: it never ends
// by itself. Waiting between failures is `withBackoff`'s job, not this file's.
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
  | { type: "error"; error: unknown };

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

/** The annotation on the bookmark that ends a streaming list's initial events. */
export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

/** A watch that ended this fast with no event counts as a failure (client-go's rule). */
const SHORT_WATCH_MS = 1000;

type State =
  /** Nothing listed yet, or the last list failed: (re)list. `rv` is the version to list at. */
  | { kind: "empty"; rv: string }
  /** Listed (or resumed) up to `rv`: open a watch from there. */
  | { kind: "ready"; rv: string };

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
 * The watcher's events as they arrive: the items of a list page together, the events of a watch
 * chunk together. The reflector applies each batch synchronously, so a chunk of fifty events
 * costs one promise, not fifty. Wrap it in `withBatchBackoff`.
 */
export async function* watcherBatches<T extends KubeObject>(
  lw: ListerWatcher<T>,
  signal: AbortSignal,
  options: WatcherOptions = {},
): AsyncGenerator<WatcherBatchEvent<T>[], void, undefined> {
  const opts = resolveWatcherOptions(options);
  const log = opts.logger;
  let streaming = opts.streamingList;
  // client-go: after a list answered with a continue token, later relists page too.
  let paginated = true;
  // The version to relist at is gone too: list with "" (a consistent read) instead.
  let relistAtLatest = false;
  let state: State = { kind: "empty", rv: "0" };
  // Streaming lists that failed before their end, in a row: after two, list + watch instead (a
  // server may cut off a large initial stream as a slow watcher).
  let streamFailures = 0;

  while (!signal.aborted) {
    try {
      if (state.kind === "empty" && streaming) {
        const outcome = yield* streamInitial(lw, signal, opts, (s) => {
          state = s;
        });
        if (outcome === "unsupported") {
          streaming = false;
          log.info("streaming lists are not supported by the server; listing and watching instead");
        }
        streamFailures = 0;
        continue;
      }
      if (state.kind === "empty") {
        const at = relistAtLatest ? "" : state.rv;
        let rv = "";
        let cont: string | undefined;
        let first = true;
        do {
          const page = await lw.list(
            cont
              ? { continue: cont, limit: opts.pageSize }
              : { resourceVersion: at, limit: at === "0" || paginated ? opts.pageSize : undefined },
            signal,
          );
          if (first) {
            first = false;
            paginated = page.metadata?.continue !== undefined && page.metadata.continue !== "";
            yield [{ type: "init" }];
          }
          if (page.items.length > 0) yield [{ type: "initPage", objects: page.items }];
          rv = page.metadata?.resourceVersion ?? "";
          cont = page.metadata?.continue || undefined;
        } while (cont);
        relistAtLatest = false;
        state = { kind: "ready", rv };
        yield [{ type: "initDone", resourceVersion: rv }];
        continue;
      }
      // state.kind === "ready": watch from state.rv until the watch ends.
      state = yield* watchFrom(lw, state.rv, signal, opts);
    } catch (err) {
      if (signal.aborted) return;
      if (streaming && state.kind === "empty" && ++streamFailures >= 2) {
        streaming = false;
        log.info("streaming lists failed twice before their end; listing and watching instead", {
          error: String(err),
        });
      }
      if (expired(err)) {
        // A 410 answer to a list at a version: the next list reads the latest state.
        if (state.kind === "empty") relistAtLatest = true;
        else state = { kind: "empty", rv: state.rv };
      }
      yield [{ type: "error", error: err }];
    }
  }
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

/** Watches from `rv`; returns the state to go on with (`ready` to resume, `empty` to relist). */
async function* watchFrom<T extends KubeObject>(
  lw: ListerWatcher<T>,
  from: string,
  signal: AbortSignal,
  opts: ResolvedWatcherOptions,
): AsyncGenerator<WatcherBatchEvent<T>[], State, undefined> {
  let rv = from;
  let stream: WatchStream<T>;
  try {
    stream = await lw.watch(
      { resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: opts.watchTimeoutSeconds() },
      signal,
    );
  } catch (err) {
    if (expired(err)) return { kind: "empty", rv };
    throw err;
  }
  const started = performance.now();
  const next = batchReader(stream);
  let events = 0;
  try {
    for (let batch = await next(); batch !== undefined; batch = await next()) {
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
          case "ERROR": {
            if (out.length > 0) yield out;
            const err = new StatusError(ev.object);
            if (expired(err)) {
              opts.logger.v(1).info("watch expired; relisting", { resourceVersion: rv, reason: err.message });
              return { kind: "empty", rv };
            }
            // Resume from where we are, after the backoff.
            yield [{ type: "error", error: err }];
            return { kind: "ready", rv };
          }
        }
      }
      if (out.length > 0) yield out;
    }
  } catch (err) {
    if (signal.aborted) throw err;
    yield [{ type: "error", error: err }];
    return { kind: "ready", rv };
  } finally {
    await stream.return();
  }
  if (events === 0 && performance.now() - started < SHORT_WATCH_MS) {
    yield [
      {
        type: "error",
        error: new Error(
          `very short watch: the watch from resourceVersion ${rv} ended at once with no event`,
        ),
      },
    ];
  }
  return { kind: "ready", rv };
}

/**
 * A streaming list: a watch with `sendInitialEvents=true` whose ADDED events up to the
 * `k8s.io/initial-events-end` bookmark are the list; the same watch then goes on. Returns
 * "unsupported" when the server refused it or did not end the initial events.
 */
async function* streamInitial<T extends KubeObject>(
  lw: ListerWatcher<T>,
  signal: AbortSignal,
  opts: ResolvedWatcherOptions,
  setState: (s: State) => void,
): AsyncGenerator<WatcherBatchEvent<T>[], "done" | "unsupported", undefined> {
  // Its own controller, chained by hand: AbortSignal.any would leave a listener on `signal` for
  // every attempt until garbage collection.
  const silent = new AbortController();
  const streamSignal = silent.signal;
  const onAbort = () => silent.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return yield* streamOn(lw, signal, silent, streamSignal, opts, setState);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

async function* streamOn<T extends KubeObject>(
  lw: ListerWatcher<T>,
  signal: AbortSignal,
  silent: AbortController,
  streamSignal: AbortSignal,
  opts: ResolvedWatcherOptions,
  setState: (s: State) => void,
): AsyncGenerator<WatcherBatchEvent<T>[], "done" | "unsupported", undefined> {
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
      streamSignal,
    );
  } catch (err) {
    if (isUnsupported(err)) return "unsupported";
    throw err;
  }
  // Inactivity, not total time: a large list may take long but never goes quiet.
  let last = performance.now();
  const check = () => {
    const idle = performance.now() - last;
    if (idle >= opts.initialEventsTimeoutMs) silent.abort();
    else timer = setTimeout(check, opts.initialEventsTimeoutMs - idle);
  };
  let timer = setTimeout(check, opts.initialEventsTimeoutMs);
  let initial = true;
  let rv = "";
  yield [{ type: "init" }];
  const next = batchReader(stream);
  // The events of the batch being read; whatever ends the stream first hands over those before it.
  let out: WatcherBatchEvent<T>[] = [];
  try {
    for (let batch = await next(); batch !== undefined; batch = await next()) {
      last = performance.now();
      out = [];
      for (const ev of batch) {
        if (ev.type === "ERROR") {
          if (out.length > 0) yield out;
          out = [];
          const err = new StatusError(ev.object);
          if (initial) {
            if (isUnsupported(err)) return "unsupported";
            throw err;
          }
          yield [{ type: "error", error: err }];
          setState(expired(err) ? { kind: "empty", rv } : { kind: "ready", rv });
          return "done";
        }
        rv = rvOf(ev.object) || rv;
        if (initial) {
          if (ev.type === "BOOKMARK") {
            if (ev.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== "true") {
              if (out.length > 0) yield out;
              out = [];
              return "unsupported";
            }
            initial = false;
            clearTimeout(timer);
            out.push({ type: "initDone", resourceVersion: rv });
          } else if (ev.type === "ADDED") out.push({ type: "initApply", object: ev.object });
          // MODIFIED/DELETED cannot come before the end of the initial events.
          else {
            if (out.length > 0) yield out;
            out = [];
            return "unsupported";
          }
          continue;
        }
        if (ev.type === "BOOKMARK") out.push({ type: "bookmark", resourceVersion: rv });
        else if (ev.type === "DELETED") out.push({ type: "delete", object: ev.object, resourceVersion: rv });
        else out.push({ type: "apply", object: ev.object, resourceVersion: rv });
      }
      if (out.length > 0) yield out;
      out = [];
    }
    // The watch ended: resume from where it got to, or start over if the list was not complete.
    if (initial) throw new Error("the streaming list ended before its initial events did");
    setState({ kind: "ready", rv });
    return "done";
  } catch (err) {
    if (silent.signal.aborted && !signal.aborted && initial) return "unsupported";
    if (signal.aborted || initial) throw err;
    yield [{ type: "error", error: err }];
    setState({ kind: "ready", rv });
    return "done";
  } finally {
    clearTimeout(timer);
    await stream.return();
  }
}
