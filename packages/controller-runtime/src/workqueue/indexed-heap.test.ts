import assert from "node:assert/strict";
import { test } from "node:test";
import { IndexedHeap } from "./indexed-heap.js";

interface Node {
  value: number;
  heapIndex: number;
}

test("the heap matches a sorted reference under random pushes, pops, removals and key changes", () => {
  const heap = new IndexedHeap<Node>((a, b) => a.value < b.value);
  const inHeap: Node[] = [];
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < 5000; i++) {
    const op = rand(4);
    if (op === 0 || inHeap.length === 0) {
      const n = { value: rand(1000), heapIndex: -1 };
      heap.push(n);
      inHeap.push(n);
    } else if (op === 1) {
      const min = Math.min(...inHeap.map((n) => n.value));
      const top = heap.pop()!;
      assert.equal(top.value, min);
      assert.equal(top.heapIndex, -1);
      inHeap.splice(inHeap.indexOf(top), 1);
    } else if (op === 2) {
      const n = inHeap.splice(rand(inHeap.length), 1)[0]!;
      heap.remove(n);
      assert.equal(n.heapIndex, -1);
    } else {
      const n = inHeap[rand(inHeap.length)]!;
      n.value = rand(1000);
      heap.fix(n);
    }
    assert.equal(heap.size, inHeap.length);
  }
  const drained: number[] = [];
  for (let n = heap.pop(); n !== undefined; n = heap.pop()) drained.push(n.value);
  assert.deepEqual(
    drained,
    inHeap.map((n) => n.value).sort((a, b) => a - b),
  );
});
