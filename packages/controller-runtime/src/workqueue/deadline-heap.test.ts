import assert from "node:assert/strict";
import { test } from "node:test";
import { DeadlineHeap } from "./deadline-heap.js";
import { Entry, EntryState } from "./entry.js";

test("the deadline heap matches a sorted reference under random pushes, pops, removals and earlier deadlines", () => {
  const heap = new DeadlineHeap<string>();
  const inHeap: Entry<string>[] = [];
  let seed = 11;
  let seq = 0;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const order = (a: Entry<string>, b: Entry<string>) => a.deadline - b.deadline || a.seq - b.seq;
  // Entries leave and come back (as the queue's pooled records do), so stale nodes must never revive.
  const spare: Entry<string>[] = [];
  for (let i = 0; i < 30_000; i++) {
    const op = rand(4);
    if (op === 0 || inHeap.length === 0) {
      const e = spare.pop() ?? new Entry(`k${i}`);
      e.state = EntryState.Delayed;
      e.deadline = rand(500);
      e.seq = seq++;
      heap.push(e);
      inHeap.push(e);
    } else if (op === 1) {
      const min = [...inHeap].sort(order)[0]!;
      assert.equal(heap.peekDeadline(), min.deadline);
      const top = heap.pop()!;
      assert.equal(top, min, "earliest deadline first, ties in creation order");
      inHeap.splice(inHeap.indexOf(top), 1);
      top.state = EntryState.None;
      spare.push(top);
    } else if (op === 2) {
      const e = inHeap.splice(rand(inHeap.length), 1)[0]!;
      e.state = EntryState.Ready;
      heap.remove(e);
      spare.push(e);
    } else {
      const e = inHeap[rand(inHeap.length)]!;
      e.deadline -= 1 + rand(100);
      heap.moveEarlier(e);
    }
    assert.equal(heap.size, inHeap.length);
  }
  assert.deepEqual(new Set(heap.clear()), new Set(inHeap), "clear returns exactly the live entries");
  assert.equal(heap.size, 0);
  assert.equal(heap.peekDeadline(), Number.POSITIVE_INFINITY);
  for (const e of inHeap) heap.push(e);
  const drained: Entry<string>[] = [];
  for (let e = heap.pop(); e !== undefined; e = heap.pop()) drained.push(e);
  assert.deepEqual(drained, inHeap.sort(order));
});
