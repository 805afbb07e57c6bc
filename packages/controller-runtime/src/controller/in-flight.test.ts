import assert from "node:assert/strict";
import { test } from "node:test";
import { InFlightList } from "./in-flight.js";

interface Item {
  name: string;
  prev: Item | null;
  next: Item | null;
}
const item = (name: string): Item => ({ name, prev: null, next: null });

test("the in-flight list keeps what runs oldest first, whichever ends first", () => {
  const list = new InFlightList<Item>();
  const [a, b, c, d] = ["a", "b", "c", "d"].map(item) as [Item, Item, Item, Item];
  for (const x of [a, b, c]) list.add(x);
  const names = () => [...list].map((x) => x.name);
  assert.deepEqual(names(), ["a", "b", "c"]);
  list.delete(b); // the middle
  assert.deepEqual(names(), ["a", "c"]);
  list.add(d);
  list.delete(a); // the oldest
  assert.deepEqual(names(), ["c", "d"]);
  list.delete(d); // the newest
  list.delete(c);
  assert.deepEqual(names(), []);
  assert.equal(list.size, 0);
  list.add(b);
  assert.deepEqual(names(), ["b"]);
  assert.equal(list.size, 1);
});
