// Store views against a model: random creates, updates and deletes across namespaces, then every
// page of every namespace at every resourceVersion the history still holds, compared with the
// state recorded at that version.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SortedKeys } from "./sorted-keys.js";
import { Storage } from "./store.js";
import { Random } from "../../../../test/fuzz/random.js";

test("sorted keys keep their order through inserts and deletes across chunk splits", () => {
  const random = new Random(7);
  const rnd = () => random.next();
  const keys = new SortedKeys();
  const model = new Set<string>();
  for (let i = 0; i < 20_000; i++) {
    const k = `k${Math.floor(rnd() * 5_000)}`;
    if (model.has(k)) {
      assert.ok(keys.delete(k));
      model.delete(k);
    } else {
      keys.insert(k);
      model.add(k);
    }
  }
  const sorted = [...model].sort();
  const seen: string[] = [];
  keys.forEach("", false, undefined, (k) => {
    seen.push(k);
    return true;
  });
  assert.deepEqual(seen, sorted);
  assert.equal(keys.size, sorted.length);
  for (const probe of ["k1", "k2500", "k4999", "k9", "a", "z"]) {
    assert.equal(keys.rank(probe), sorted.filter((k) => k < probe).length, probe);
  }
  assert.equal(keys.delete("absent"), false);
});

test("views at every kept resourceVersion page like the state recorded then", () => {
  const random = new Random(42);
  const rnd = () => random.next();
  const storage = new Storage({ historySize: 400 });
  const store = "/configmaps";
  const live = new Map<string, { ns: string; name: string; n: number }>();
  // The state after each write: key -> version counter.
  const states = new Map<number, Map<string, number>>();
  const namespaces = ["a", "b", "c"];
  for (let i = 0; i < 1_500; i++) {
    const ns = namespaces[Math.floor(rnd() * namespaces.length)]!;
    const name = `o${Math.floor(rnd() * 60)}`;
    const key = `${ns}/${name}`;
    const existing = live.get(key);
    if (existing && rnd() < 0.3) {
      storage.remove(store, key);
      live.delete(key);
    } else {
      const n = (existing?.n ?? 0) + 1;
      storage.put(store, { metadata: { namespace: ns, name }, data: { n: String(n) } });
      live.set(key, { ns, name, n });
    }
    states.set(storage.resourceVersion, new Map([...live].map(([k, v]) => [k, v.n])));
  }
  let checked = 0;
  for (const [rv, state] of states) {
    const view = storage.view(store, undefined, rv);
    if (!storage.history.covers(rv)) {
      assert.equal(view, undefined);
      continue;
    }
    for (const ns of [undefined, ...namespaces]) {
      const v = storage.view(store, ns, rv)!;
      const expected = [...state]
        .filter(([k]) => ns === undefined || k.startsWith(`${ns}/`))
        .sort(([x], [y]) => (x < y ? -1 : 1));
      // Page through in pages of 7, as a client with limit=7 does.
      const got: [string, number][] = [];
      let after = "";
      for (;;) {
        const page: [string, number][] = [];
        let more = false;
        v.forEach(after, (o) => {
          if (page.length === 7) {
            more = true;
            return false;
          }
          page.push([o.key, Number((o.obj.data as { n: string }).n)]);
          return true;
        });
        got.push(...page);
        if (!more) break;
        after = page[page.length - 1]![0];
        assert.equal(v.countAfter(after), expected.length - got.length, `remaining after ${after} at ${rv}`);
      }
      assert.deepEqual(got, expected, `namespace ${ns ?? "(all)"} at ${rv}`);
      assert.equal(v.countAfter(""), expected.length);
      checked++;
    }
  }
  assert.ok(checked > 1_000, `checked ${checked} views`);
});
