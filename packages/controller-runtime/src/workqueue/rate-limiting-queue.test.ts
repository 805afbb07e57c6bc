import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveControllerOptions } from "../controller/options.js";
import { newFakeClock } from "./fake-clock.js";
import { LowPriority, newPriorityQueue, newRateLimitingQueue, type PriorityQueue } from "./index.js";

function takeAll(q: PriorityQueue): string[] {
  const keys: string[] = [];
  for (let r = q.tryGet(); r !== undefined && !r.shutdown; r = q.tryGet()) {
    keys.push(r.key);
    q.done(r.key);
  }
  return keys;
}

test("the rate-limiting queue hands keys out in the order they became ready, whatever their priority", () => {
  const clock = newFakeClock();
  const q = newRateLimitingQueue({ clock });
  q.add("initial-list", { priority: LowPriority });
  q.add("change", { priority: 10 });
  q.add("later", { after: 100, priority: 100 });
  q.add("initial-list"); // merged, keeps its place
  assert.deepEqual(takeAll(q), ["initial-list", "change"]);
  clock.advance(100);
  const r = q.tryGet();
  assert.deepEqual(r, { shutdown: false, key: "later", priority: 0 });
  q.addRateLimited("retry");
  assert.equal(q.numRequeues("retry"), 1);
  q.shutDown();
  assert.equal(q.shuttingDown(), true);
});

test("usePriorityQueue: false, as a controller's or the Manager's default, gives controllers the FIFO queue", () => {
  const reconciler = { reconcile: async () => ({}) };
  const order = (usePriority: boolean | undefined, fromDefaults: boolean) => {
    const o = resolveControllerOptions(
      "c",
      { controllerDefaults: fromDefaults ? { usePriorityQueue: usePriority } : {} },
      { reconciler, ...(fromDefaults ? {} : { usePriorityQueue: usePriority }) },
    );
    const q = o.newQueue("c", o.rateLimiter);
    q.add("low", { priority: LowPriority });
    q.add("high", { priority: 1 });
    return takeAll(q);
  };
  assert.deepEqual(order(undefined, false), ["high", "low"], "the priority queue by default");
  assert.deepEqual(order(false, false), ["low", "high"]);
  assert.deepEqual(order(false, true), ["low", "high"]);
  assert.ok(newPriorityQueue());
});
