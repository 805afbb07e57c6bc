import assert from "node:assert/strict";
import { before, test } from "node:test";
import { stringify } from "yaml";
import {
  JsonDepthError,
  jsonDepthExceeded,
  parseYamlBounded,
  readYaml,
  YamlDepthError,
  yamlDepthExceeded,
  yamlLib,
} from "./nesting.js";

// The server loads yaml on the first YAML request; these tests call the parser directly.
before(() => yamlLib.load());

test("JSON depth counts brackets outside strings only", () => {
  const deep = (d: number) => `${"[".repeat(d)}${"]".repeat(d)}`;
  assert.equal(jsonDepthExceeded(deep(10), 10), undefined);
  assert.equal(jsonDepthExceeded(deep(11), 10), "[");
  assert.equal(jsonDepthExceeded(`{"a":"${"[".repeat(50)}\\"{{{{{{{{{{{{"}`, 10), undefined);
  assert.equal(jsonDepthExceeded(`{"a":${'{"b":'.repeat(11)}1${"}".repeat(11)}}`, 10), "{");
});

// A random value nested `depth` levels at its deepest, of maps, lists and scalars.
function randomValue(depth: number, rand: () => number): unknown {
  if (depth === 0) return rand() < 0.5 ? "x[{" : 1;
  const width = 1 + Math.floor(rand() * 3);
  const deepest = Math.floor(rand() * width);
  const child = (i: number) =>
    randomValue(i === deepest ? depth - 1 : Math.floor(rand() * Math.min(depth, 3)), rand);
  if (rand() < 0.5) return Array.from({ length: width }, (_, i) => child(i));
  return Object.fromEntries(Array.from({ length: width }, (_, i) => [`k${i}: "'[`, child(i)]));
}

test("the YAML bound is never below the real depth, in block and flow style", () => {
  let seed = 11;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
  for (let i = 0; i < 300; i++) {
    const depth = 1 + Math.floor(rand() * 40);
    const value = randomValue(depth, rand);
    for (const text of [
      stringify(value),
      stringify(value, { collectionStyle: "flow" }),
      stringify(value, { indent: 1 }),
    ]) {
      // Padded past the short-text shortcut.
      const padded = `${text}\n# ${"-".repeat(200)}\n`;
      assert.equal(yamlDepthExceeded(padded, depth - 1), true, text);
    }
  }
});

test("a YAML body past go-yaml's limits is refused in its words, fast", () => {
  for (const [text, message] of [
    [`x:\n${"- ".repeat(100_000)}1\n`, "yaml: line 2: exceeded max depth of 10000"],
    [`x: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`, "yaml: exceeded max depth of 10000"],
    [`a: 1\nx: ${"[".repeat(10_001)}1${"]".repeat(10_001)}\n`, "yaml: line 2: exceeded max depth of 10000"],
  ] as const) {
    const started = performance.now();
    assert.throws(
      () => parseYamlBounded(text),
      (e: unknown) => e instanceof YamlDepthError && e.message === message,
    );
    // Linear work: well under a second alone; the bound leaves room for a loaded 2-core machine
    // and still fails a quadratic scan of 100 000 levels by orders of magnitude.
    assert.ok(performance.now() - started < 10_000);
  }
});

test("within go-yaml's limits, a body whose JSON is past 10 000 levels is the JSON decoder's to refuse", () => {
  // Flow levels and block indentations are counted apart; the JSON has both.
  const text = `x:\n${"- ".repeat(6_000)}${"[".repeat(5_000)}1${"]".repeat(5_000)}\n`;
  assert.throws(
    () => parseYamlBounded(text),
    (e: unknown) => e instanceof JsonDepthError && e.bracket === "[",
  );
  // At the limit, composed (deep bodies without the yaml package's recursion).
  const value = parseYamlBounded(`x: ${"[".repeat(9_999)}1${"]".repeat(9_999)}\n`) as { x: unknown };
  let depth = 1;
  for (let v = value.x; Array.isArray(v); v = v[0]) depth++;
  assert.equal(depth, 10_000);
});

test("deep bodies compose as the yaml package composes shallow ones, repeated keys found by line", () => {
  const body =
    "a: &x 1\nb:\n  - [1, {c: d}, e: f]\n  - ? k\n    : v\n  - !!str 5\nc: *x\nd: |\n  text\ne: 'q''s'\ng: 0x1F\nh: 1e3\ni: ~\nj:\nk: true\nl: {x: [1, 2], y: {z: null}}\n" +
    "m: [yes, Off, 017, 0b11, 1_000, 2001-12-14, 1:20, !!binary aGk=, !!int '0x10']\nn: &n {o: 1, p: 2}\nq: {<<: *n, p: 3}\n1.5: float key\n";
  const deep = (d: number) => `${body}deep: ${"[".repeat(d)}1${"]".repeat(d)}\n`;
  const shallow = readYaml(deep(10)).value as Record<string, unknown>;
  const composed = readYaml(deep(600)).value as Record<string, unknown>;
  delete shallow.deep;
  delete composed.deep;
  assert.deepEqual(composed, shallow);
  const repeated = "a: 1\nb:\n  c: 1\n  c: 2\na: 3\n";
  for (const text of [repeated, `${repeated}deep: ${"[".repeat(600)}${"]".repeat(600)}\n`]) {
    const read = readYaml(text);
    assert.deepEqual(read.duplicates, [
      'line 4: key "c" already set in map',
      'line 5: key "a" already set in map',
    ]);
    assert.equal((read.value as { a: number }).a, 3);
  }
});
