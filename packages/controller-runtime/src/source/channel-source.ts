// The channel source: generic events from outside the cluster (a ticker, another system's
// webhook) into a controller (controller-runtime's `source.Channel`). Each event passes the
// predicates' `generic` and goes to the handler's `generic`, one at a time: the source awaits an
// async handler (a map function listing objects, say) before taking the next event.
import type { KubeObject } from "../api/index.js";
import type { GenericEvent } from "../event/index.js";
import type { EventHandler, HandlerContext, RequestQueue } from "../handler/index.js";
import { nullLogger } from "../log/index.js";
import type { Predicate } from "../predicate/index.js";
import type { Request } from "../reconcile/index.js";
import type { Channel } from "./channel.js";
import { handlerContext, type Source } from "./source.js";

/** Options of {@link channel}. */
export interface ChannelSourceOptions<T extends KubeObject = KubeObject> {
  /**
   * Events buffered for this source when reading a {@link Channel} (controller-runtime's
   * DestBufferSize): a sender waits while the buffer is full. Ignored for other iterables, which
   * are read one event at a time. Default: 1024.
   */
  bufferSize?: number;
  /** Filters; all must pass an event's `generic`. Default: none. */
  predicates?: readonly Predicate<T>[];
}

/**
 * A source of the events of `events`: a {@link Channel} (every channel source reading it gets every
 * event) or any async iterable (read by this source alone). The source ends when the channel is
 * closed or the iterable ends, or when the controller stops.
 */
export function channel<T extends KubeObject = KubeObject, Req = Request>(
  events: Channel<GenericEvent<T>> | AsyncIterable<GenericEvent<T>>,
  handler: EventHandler<T, Req>,
  options: ChannelSourceOptions<T> = {},
): Source<Req> {
  const predicates = options.predicates ?? [];
  let started = false;
  return {
    async start(signal, queue, startOptions) {
      if (started) throw new Error("channel source: start was called twice");
      started = true;
      const ctx = handlerContext(signal, startOptions?.logger ?? nullLogger());
      // Subscribe now, before start resolves, so that no event sent after the start is missed.
      const iterator = isChannel(events)
        ? events.subscribe({ bufferSize: options.bufferSize ?? 1024, signal })
        : abortable(events[Symbol.asyncIterator](), signal);
      void deliverAll(iterator, handler, predicates, queue, ctx);
    },
    toString: () => "channel source",
  };
}

async function deliverAll<T extends KubeObject, Req>(
  iterator: AsyncIterator<GenericEvent<T>>,
  handler: EventHandler<T, Req>,
  predicates: readonly Predicate<T>[],
  queue: RequestQueue<Req>,
  ctx: HandlerContext,
): Promise<void> {
  try {
    for (;;) {
      const r = await iterator.next();
      if (r.done === true || ctx.signal.aborted) return;
      const e = r.value ?? {};
      try {
        if (!predicates.every((p) => p.generic(e))) continue;
        await handler.generic(e, queue, ctx);
      } catch (err) {
        ctx.logger.error(err, "event handler failed on a generic event");
      }
    }
  } catch (err) {
    ctx.logger.error(err, "channel source: reading the events failed; the source stopped");
  } finally {
    void iterator.return?.()?.catch(() => {});
  }
}

function isChannel<E>(x: Channel<E> | AsyncIterable<E>): x is Channel<E> {
  return typeof (x as Channel<E>).subscribe === "function" && typeof (x as Channel<E>).send === "function";
}

/** `it`, whose pending `next()` ends (done) when `signal` aborts; it is then told to `return`. */
function abortable<E>(it: AsyncIterator<E>, signal: AbortSignal): AsyncIterator<E> {
  const aborted = new Promise<IteratorResult<E>>((resolve) => {
    if (signal.aborted) resolve({ done: true, value: undefined });
    else signal.addEventListener("abort", () => resolve({ done: true, value: undefined }), { once: true });
  });
  return {
    next: () => Promise.race([it.next(), aborted]),
    return: async () => {
      // A generator suspended in `await` finishes its pending next() before it returns: don't wait.
      void it.return?.()?.catch(() => {});
      return { done: true, value: undefined };
    },
  };
}
