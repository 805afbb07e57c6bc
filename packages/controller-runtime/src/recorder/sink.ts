// Where Events go: client-go's `EventSink`. The REST sink writes core/v1 Events; repeats are
// strategic-merge patches of `count`, `lastTimestamp` and `message`, as client-go sends them.
import type { Event } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { isUnsupportedMediaType, type RESTClient, resourceOf } from "../rest/index.js";

const EVENTS = resourceOf(kinds.Event);

export interface EventSink {
  create(event: Event, signal: AbortSignal): Promise<Event>;
  /** Patches the Event `event.metadata.name` in `event.metadata.namespace`. */
  patch(event: Event, patch: Record<string, unknown>, signal: AbortSignal): Promise<Event>;
}

/** Writes Events through `client`; each request gives up after `timeoutMs`. */
export function restEventSink(client: RESTClient, timeoutMs: number): EventSink {
  return {
    create(event, signal) {
      return client.create(EVENTS, event, { namespace: event.metadata?.namespace, signal, timeoutMs });
    },
    async patch(event, patch, signal) {
      const name = event.metadata?.name ?? "";
      const namespace = event.metadata?.namespace;
      try {
        return await client.patch<Event>(EVENTS, name, patch, {
          namespace,
          patchType: "strategic",
          signal,
          timeoutMs,
        });
      } catch (err) {
        // A server without strategic merge (not kube-apiserver) gets the same fields as a merge patch.
        if (!isUnsupportedMediaType(err)) throw err;
        return client.patch<Event>(EVENTS, name, patch, { namespace, patchType: "merge", signal, timeoutMs });
      }
    },
  };
}
