// The ticker: a Runnable that sends an empty GenericEvent into a channel every interval, so that
// the controller reconciles on the passing of time, something no Kubernetes object announces.
// It needs leader election (only the leading replica should probe, as only it reconciles), unless
// the controller is sharded: then every replica probes the buckets it holds.
import { setInterval } from "node:timers/promises";
import type { GenericEvent } from "controller-runtime/event";
import type { Runnable } from "controller-runtime/manager";
import type { Channel } from "controller-runtime/source";

export function newTicker(
  events: Channel<GenericEvent>,
  intervalMs: number,
  opts: { leaderElected?: boolean } = {},
): Runnable {
  return {
    needLeaderElection: () => opts.leaderElected ?? true,
    async start(signal) {
      try {
        for await (const _ of setInterval(intervalMs, undefined, { signal })) {
          // An empty event, as Go's event.GenericEvent{}: "time has passed", about no object.
          await events.send({}, { signal });
        }
      } catch (err) {
        // The manager stopping us is the normal way out.
        if (!signal.aborted) throw err;
      }
    },
  };
}
