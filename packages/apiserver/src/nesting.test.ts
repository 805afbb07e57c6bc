import assert from "node:assert/strict";
import { before, test } from "node:test";
import { stringify } from "yaml";
import { jsonDepthExceeded, parseYamlBounded, yamlDepthExceeded, yamlLib } from "./nesting.js";

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

test("a YAML body of compact sequences or flow brackets 100 000 deep is refused before parsing", () => {
  for (const text of [
    `x:\n${"- ".repeat(100_000)}1\n`,
    `x: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`,
  ]) {
    const started = performance.now();
    assert.throws(() => parseYamlBounded(text), /exceeded max depth of 500/);
    assert.ok(performance.now() - started < 1_000);
  }
});
