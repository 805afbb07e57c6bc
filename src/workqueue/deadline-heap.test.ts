import assert from "node:assert/strict";
import { test } from "node:test";
import { DeadlineHeap } from "./deadline-heap.js";
import { Entry } from "./entry.js";

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
  for (let i = 0; i < 20_000; i++) {
    const op = rand(4);
    if (op === 0 || inHeap.length === 0) {
      const e = new Entry(`k${i}`);
      e.deadline = rand(500);
      e.seq = seq++;
      heap.push(e);
      inHeap.push(e);
    } else if (op === 1) {
      const min = [...inHeap].sort(order)[0]!;
      assert.equal(heap.peekDeadline(), min.deadline);
      const top = heap.pop()!;
      assert.equal(top, min, "earliest deadline first, ties in creation order");
      assert.equal(top.heapIndex, -1);
      inHeap.splice(inHeap.indexOf(top), 1);
    } else if (op === 2) {
      const e = inHeap.splice(rand(inHeap.length), 1)[0]!;
      heap.remove(e);
      assert.equal(e.heapIndex, -1);
    } else {
      const e = inHeap[rand(inHeap.length)]!;
      e.deadline -= rand(100);
      heap.moveEarlier(e);
    }
    assert.equal(heap.size, inHeap.length);
  }
  const drained: Entry<string>[] = [];
  for (let e = heap.pop(); e !== undefined; e = heap.pop()) drained.push(e);
  assert.deepEqual(drained, inHeap.sort(order));
  assert.equal(heap.peekDeadline(), Number.POSITIVE_INFINITY);
});
