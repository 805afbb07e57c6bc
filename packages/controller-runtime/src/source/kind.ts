// The kind source: events for one kind from the cache's shared informer (controller-runtime's
// `source.Kind`). Starting it only registers a handler; the cache (started by the Manager before
// the controllers) does the listing and watching.
import type { GroupVersionKind, Kind, KubeObject } from "../api/index.js";
import type { GetInformerOptions, HandlerRegistration } from "../cache/index.js";
import type { EventHandler } from "../handler/index.js";
import { nullLogger } from "../log/index.js";
import type { Predicate } from "../predicate/index.js";
import type { Request } from "../reconcile/index.js";
import { sleep } from "../rest/index.js";
import { InformerSyncError, KindSyncTimeoutError } from "./errors.js";
import type { SourceInformer } from "./informer.js";
import { informerEventHandler } from "./informer-events.js";
import { handlerContext, isTimeoutReason, type Source } from "./source.js";

/** What a kind source needs of the cache (the cache's `Cache` has it). */
export interface InformerCache {
  getInformer<T extends KubeObject>(kind: Kind<T>, opts?: GetInformerOptions): Promise<KindInformer<T>>;
}

/** An informer that can also say why it has not synced yet (the cache's `Informer` can). */
export interface KindInformer<T extends KubeObject = KubeObject> extends SourceInformer<T> {
  health?(): { readonly lastError: unknown };
}

// Retry delays of getInformer: it fails only while the cache cannot make the informer (discovery
// down, say); controller-runtime polls every 10 s, starting faster suits tests and restarts.
const firstRetryMs = 200;
const maxRetryMs = 10_000;

/**
 * A source of the changes to objects of `kind` in `cache`, filtered by `predicates` (all must pass)
 * and mapped by `handler`. `waitForSync` resolves once the informer has listed; for a kind the
 * server does not serve it never does, and rejects with a {@link KindSyncTimeoutError} naming the
 * kind and the server's answer once the controller's `cacheSyncTimeoutMs` passes.
 */
export function kind<T extends KubeObject, Req = Request>(
  cache: InformerCache,
  k: Kind<T>,
  handler: EventHandler<T, Req>,
  ...predicates: Predicate<T>[]
): Source<Req> {
  let started: Promise<void> | undefined;
  let informer: KindInformer<T> | undefined;
  let lastError: unknown;
  const description = `kind source: ${gvkText(k)}`;
  return {
    start(signal, queue, options) {
      if (started !== undefined) return Promise.reject(new Error(`${description}: start was called twice`));
      const logger = (options?.logger ?? nullLogger()).withValues({ kind: k.kind, group: k.group });
      const ctx = handlerContext(signal, logger);
      // Runs in the background: start must not wait for the informer (see Source.start).
      started = (async () => {
        for (let delay = firstRetryMs; ; delay = Math.min(delay * 2, maxRetryMs)) {
          try {
            informer = await cache.getInformer(k, { blockUntilSynced: false, signal });
            break;
          } catch (err) {
            if (signal.aborted) return;
            lastError = err;
            logger.error(
              err,
              "failed to get informer from cache; retrying (if the kind is a CRD, install it)",
            );
            await sleep(delay, signal);
            if (signal.aborted) return;
          }
        }
        const reg: HandlerRegistration = informer.addEventHandler(
          informerEventHandler(handler, predicates, queue, ctx),
        );
        signal.addEventListener("abort", () => reg.remove(), { once: true });
        if (!(await informer.waitForSync(signal)) && !signal.aborted) {
          throw new InformerSyncError(
            `${description}: the informer stopped before it synced (was the cache stopped?)`,
          );
        }
      })();
      // Failures are reported by waitForSync; this keeps them from being unhandled meanwhile.
      started.catch(() => {});
      return Promise.resolve();
    },
    async waitForSync(signal) {
      if (started === undefined) throw new Error(`${description}: waitForSync before start`);
      if (signal.aborted) return abortOutcome(signal);
      const outcome = await new Promise<"done" | "aborted">((resolve, reject) => {
        const onAbort = () => resolve("aborted");
        signal.addEventListener("abort", onAbort, { once: true });
        started!.then(
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
      if (outcome === "aborted") return abortOutcome(signal);
    },
    toString: () => description,
  };

  function abortOutcome(signal: AbortSignal): void {
    if (!isTimeoutReason(signal.reason)) return;
    throw new KindSyncTimeoutError(k, informer?.health?.().lastError ?? lastError);
  }
}

function gvkText(gvk: GroupVersionKind): string {
  return gvk.group ? `${gvk.group}/${gvk.version}, Kind=${gvk.kind}` : `${gvk.version}, Kind=${gvk.kind}`;
}
