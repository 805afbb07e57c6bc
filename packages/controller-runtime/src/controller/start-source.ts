// Starting one source for a controller: start it, then wait for it to sync, both within the
// controller's cacheSyncTimeoutMs (controller-runtime's startEventSourcesAndQueueLocked).
import type { RequestQueue } from "../handler/index.js";
import type { Logger } from "../log/index.js";
import type { Source } from "../source/index.js";

export interface StartSourceOptions<Req> {
  signal: AbortSignal;
  queue: RequestQueue<Req>;
  logger: Logger;
  timeoutMs: number;
  onStartTimeout(): Error;
  onSyncError(err: unknown): Error;
}

/**
 * Starts `source` and waits for it to sync. Resolves on success or when `signal` aborts (a
 * shutdown is no failure); rejects when the source fails, or does not start or sync in time.
 */
export async function startSource<Req>(source: Source<Req>, o: StartSourceOptions<Req>): Promise<void> {
  // The source is started with the controller's signal (it runs until shutdown); the deadline only
  // bounds the waiting. Not AbortSignal.timeout(): on Node 20 a timeout signal held only through
  // AbortSignal.any() can be garbage-collected before it fires, and the wait never ends. This
  // timer is referenced until cleared, and unref'd so it does not keep the process alive.
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new DOMException(`timed out after ${o.timeoutMs} ms`, "TimeoutError")),
    o.timeoutMs,
  );
  timer.unref();
  try {
    await startAndSync(source, o, AbortSignal.any([o.signal, timeout.signal]));
  } finally {
    clearTimeout(timer);
  }
}

async function startAndSync<Req>(
  source: Source<Req>,
  o: StartSourceOptions<Req>,
  deadline: AbortSignal,
): Promise<void> {
  o.logger.info("Starting EventSource");
  const started = source.start(o.signal, o.queue, { logger: o.logger });
  const outcome = await raceAbort(started, deadline);
  if (outcome === "aborted") {
    started.catch(() => {});
    if (o.signal.aborted) return;
    throw o.onStartTimeout();
  }
  if (source.waitForSync === undefined) return;
  try {
    await source.waitForSync(deadline);
  } catch (err) {
    const e = o.onSyncError(err);
    o.logger.error(e, "Could not wait for Cache to sync");
    throw e;
  }
}

/** Waits for `p`, or for `signal` to abort first ("aborted"); rejects if `p` rejects first. */
function raceAbort(p: Promise<void>, signal: AbortSignal): Promise<"done" | "aborted"> {
  if (signal.aborted) return Promise.resolve("aborted");
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve("done");
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
