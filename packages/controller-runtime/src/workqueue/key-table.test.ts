import assert from "node:assert/strict";
import { test } from "node:test";
import { KeyTable } from "./key-table.js";

interface Rec {
  key: string;
  hash: number;
}

test("key table: inserts, lookups and removals agree with a Map through growth and shrinking", () => {
  const table = new KeyTable<string, Rec>();
  const model = new Map<string, Rec>();
  let s = 7;
  const rand = (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
  for (let round = 0; round < 3; round++) {
    // Fill up to ~5 000 keys drawn from 8 000, then empty most of them, so the table grows and shrinks.
    for (let i = 0; i < 20_000; i++) {
      const key = `ns-${rand(8000)}/name-${rand(3)}`;
      const h = table.hash(key);
      const found = table.get(key, h);
      assert.equal(found, model.get(key), `lookup of ${key}`);
      if (found === undefined && rand(3) > 0) {
        const r = { key, hash: 0 };
        table.insert(r, h);
        model.set(key, r);
      } else if (found !== undefined) {
        table.delete(found);
        model.delete(key);
      }
    }
    for (const [key, r] of [...model]) {
      if (rand(10) === 0) continue;
      table.delete(r);
      model.delete(key);
    }
    assert.equal(table.size, model.size);
    assert.deepEqual(new Set(table.values()), new Set(model.values()));
    for (const [key, r] of model) assert.equal(table.get(key, table.hash(key)), r);
  }
});

test("key table: hashes are small positive integers and differ between tables (random seeds)", () => {
  const a = new KeyTable<string, Rec>();
  const b = new KeyTable<string, Rec>();
  let same = 0;
  for (let i = 0; i < 100; i++) {
    const h = a.hash(`default/obj-${i}`);
    assert.ok(Number.isInteger(h) && h > 0 && h < 2 ** 30);
    if (h === b.hash(`default/obj-${i}`)) same++;
  }
  assert.ok(same < 5, "two tables hash with different seeds");
});

test("key table: stays correct when every key collides (long runs trigger bounded rebuilds)", () => {
  class Colliding extends KeyTable<string, Rec> {
    override hash(): number {
      return 1;
    }
  }
  const table = new Colliding();
  const recs = Array.from({ length: 400 }, (_, i) => ({ key: `k${i}`, hash: 0 }));
  for (const r of recs) table.insert(r, table.hash());
  for (const r of recs) assert.equal(table.get(r.key, 1), r);
  for (const r of recs.filter((_, i) => i % 2 === 0)) table.delete(r);
  for (const [i, r] of recs.entries()) assert.equal(table.get(r.key, 1), i % 2 === 0 ? undefined : r);
  assert.equal(table.size, 200);
});
