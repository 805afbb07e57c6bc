// Randomized round trips (seeded, so failures reproduce): apply(original, create(original, modified))
// must deep-equal modified for the three patch formats.
import assert from "node:assert/strict";
import { test } from "node:test";
import { builtinPatchMeta } from "./builtin-meta.js";
import { createJSONPatch } from "./json-patch-diff.js";
import { applyJSONPatch } from "./json-patch.js";
import type { JSONObject, JSONValue } from "./json.js";
import { applyMergePatch, createMergePatch } from "./merge-patch.js";
import { createStrategicMergePatch } from "./strategic-merge-diff.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  // Distinct values from a small pool, in random order: overlaps between two draws are likely.
  subset<T>(pool: readonly T[], max = pool.length): T[] {
    const shuffled = [...pool].sort(() => this.next() - 0.5);
    return shuffled.slice(0, this.int(Math.min(max, pool.length) + 1));
  }
  scalar(): JSONValue {
    return this.pick<JSONValue>(["a", "b", "", 0, 1, 2.5, true, false, "x/y", "~"]);
  }
  // Any JSON without nulls (no patch format can set a member to null).
  json(depth: number): JSONValue {
    const r = this.int(depth > 0 ? 4 : 2);
    if (r < 2) return this.scalar();
    if (r === 2) return Array.from({ length: this.int(4) }, () => this.json(depth - 1));
    const o: JSONObject = {};
    for (const k of this.subset(["a", "b", "c", "d/e", "f~g", "0"], 4)) o[k] = this.json(depth - 1);
    return o;
  }
  maybe(o: JSONObject, key: string, make: () => JSONValue): void {
    if (this.chance(0.8)) o[key] = make();
  }
  container(name: string): JSONObject {
    const c: JSONObject = { name };
    this.maybe(c, "image", () => this.pick(["nginx:1", "nginx:2", "busybox"]));
    this.maybe(c, "env", () =>
      this.subset(["A", "B", "C", "D"]).map((n) => {
        const e: JSONObject = { name: n };
        this.maybe(e, "value", () => this.pick(["1", "2", "3"]));
        return e;
      }),
    );
    this.maybe(c, "ports", () =>
      this.subset([80, 443, 8080]).map((p) => {
        const port: JSONObject = { containerPort: p };
        this.maybe(port, "protocol", () => this.pick(["TCP", "UDP"]));
        return port;
      }),
    );
    this.maybe(c, "args", () => this.subset(["-v", "-q", "--x"]));
    this.maybe(c, "resources", () => this.json(2));
    return c;
  }
  pod(): JSONObject {
    const metadata: JSONObject = { name: "p" };
    this.maybe(metadata, "labels", () =>
      Object.fromEntries(this.subset(["app", "tier", "x"]).map((k) => [k, this.pick(["1", "2"])])),
    );
    this.maybe(metadata, "finalizers", () => this.subset(["f/a", "f/b", "f/c", "f/d"]));
    this.maybe(metadata, "ownerReferences", () =>
      this.subset(["u1", "u2", "u3"]).map((uid) => ({ uid, name: this.pick(["o1", "o2"]) })),
    );
    const spec: JSONObject = {};
    this.maybe(spec, "containers", () =>
      this.subset(["main", "side", "init", "log"]).map((n) => this.container(n)),
    );
    this.maybe(spec, "initContainers", () => this.subset(["i1", "i2"]).map((n) => this.container(n)));
    this.maybe(spec, "tolerations", () => this.subset(["a", "b", "c"]).map((key) => ({ key })));
    this.maybe(spec, "nodeSelector", () => this.json(1));
    this.maybe(spec, "extra", () => this.json(3));
    const pod: JSONObject = { apiVersion: "v1", kind: "Pod", metadata, spec };
    this.maybe(pod, "status", () => ({
      conditions: this.subset(["Ready", "Initialized", "Scheduled"]).map((type) => ({
        type,
        status: this.pick(["True", "False"]),
      })),
    }));
    return pod;
  }
}

const RUNS = 400;

test("strategic merge patch round-trips random pods", () => {
  const meta = builtinPatchMeta("", "v1", "Pod")!;
  const g = new Gen(mulberry32(20240611));
  for (let i = 0; i < RUNS; i++) {
    const original = g.pod();
    const modified = g.chance(0.2) ? structuredClone(original) : g.pod();
    const before = JSON.stringify([original, modified]);
    const patch = createStrategicMergePatch(original, modified, meta);
    const wire = JSON.parse(JSON.stringify(patch));
    const result = applyStrategicMergePatch(original, wire, meta);
    assert.deepEqual(result, modified, `run ${i}: patch ${JSON.stringify(patch)}`);
    assert.equal(JSON.stringify([original, modified]), before, "inputs unchanged");
    if (JSON.stringify(original) === JSON.stringify(modified)) assert.deepEqual(patch, {});
  }
});

test("strategic merge patch round-trips without metadata (merge-patch semantics)", () => {
  const g = new Gen(mulberry32(7));
  for (let i = 0; i < RUNS; i++) {
    const original = g.pod();
    const modified = g.pod();
    const patch = createStrategicMergePatch(original, modified, undefined);
    assert.deepEqual(applyStrategicMergePatch(original, patch, undefined), modified, `run ${i}`);
  }
});

test("JSON merge patch round-trips random documents", () => {
  const g = new Gen(mulberry32(42));
  for (let i = 0; i < RUNS; i++) {
    const original = g.chance(0.5) ? g.pod() : g.json(4);
    const modified = g.chance(0.5) ? g.pod() : g.json(4);
    const patch = createMergePatch(original, modified);
    assert.deepEqual(applyMergePatch(original, patch), modified, `run ${i}: ${JSON.stringify(patch)}`);
  }
});

const container = (v: unknown) => (typeof v === "object" && v !== null ? v : { v });

test("JSON patch round-trips random documents", () => {
  const g = new Gen(mulberry32(1234));
  for (let i = 0; i < RUNS; i++) {
    // A JSON patch applies to an object or an array (kube's json-patch cannot hold a scalar).
    const original = g.chance(0.5) ? g.pod() : container(g.json(4));
    const modified = g.chance(0.5) ? g.pod() : container(g.json(4));
    const ops = createJSONPatch(original, modified);
    assert.deepEqual(applyJSONPatch(original, ops), modified, `run ${i}: ${JSON.stringify(ops)}`);
  }
});
