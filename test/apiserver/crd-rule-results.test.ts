// What kube-apiserver's rules answer, recorded from a run against it: the generated rules it takes
// (rule-corpus.ts, crd-rule-verdicts.txt), 40 to a CRD, evaluated on three sample objects. For
// each rule and object: passed, failed, or the error it evaluated to, in kube's words. The
// embedded server must answer the same; the run against kube checks the record still holds. Rules
// whose answer hangs on Go's random map order (a list made from a map, then indexed or compared)
// are left out. To record again: RECORD_RULE_RESULTS=1 with KUBEBUILDER_ASSETS, this file only.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { Api, CRDS, customResourceDefinition, startTarget, type Target } from "./harness.js";
import { generatedRules, spec } from "./rule-corpus.js";

const RECORD = new URL("./crd-rule-results.json", import.meta.url);
const VERDICTS = new URL("./crd-rule-verdicts.txt", import.meta.url);
const CHUNK = 40;
const ORDERED_FROM_A_MAP = /self\.m\.(map|filter|transformList)\(/;

const bounded = (n: number) => "x".repeat(n);
/** Three objects: most fields set, most empty, and the odd values (timestamps unordered, a CIDR for an IP). */
const SAMPLES = [
  {
    s: "abc,def",
    b: "a1",
    n: 3,
    l: ["a", "b"],
    u: ["x"],
    ll: [["a"]],
    ns: [1, 2, 3],
    m: { k: "v", a: "ab" },
    e: "a",
    d: "2024-01-02T03:04:05Z",
    o: { x: "xy" },
    io: 5,
    du: "1h",
    ds: ["2024-01-01T00:00:00Z"],
    ip: "10.0.0.1",
    bb: "aGVsbG8=",
    objs: [{ name: "n1" }],
  },
  { s: "", b: "", n: 0, l: [], u: [], ll: [], ns: [], m: {}, e: "bb", d: "1970-01-01T00:00:00Z", o: {} },
  {
    s: "a",
    b: "aaa",
    n: -1,
    l: ["b", "a"],
    u: ["a", "a"],
    ll: [[], ["b"]],
    ns: [3, 1],
    m: { k: "" },
    e: "a",
    d: "2000-02-29T12:00:00.5Z",
    o: { x: bounded(10) },
    io: "1.2.3",
    du: "-1m30s",
    ds: ["2024-01-01T00:00:00Z", "2023-01-01T00:00:00Z"],
    ip: "1.2.3.4/24",
    bb: "AA==",
    objs: [{ name: "" }, { name: "z" }],
  },
];

let target: Target;
let api: Api;
const group = `results${Date.now().toString(36)}.example.com`;

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

/** The answers of `rules` on each sample: per sample, per rule, "p", "f" or the error's text. */
async function answers(rules: string[], chunk: number): Promise<string[][] | string> {
  const plural = `r${chunk}s`;
  const kind = `R${chunk}`;
  const schema = {
    type: "object",
    properties: { spec: { ...spec, "x-kubernetes-validations": rules.map((rule) => ({ rule })) } },
  };
  const created = await api.post(CRDS, customResourceDefinition(group, { plural, kind }, schema));
  // Rules each within budget may be over it together: the CRD is refused, on both servers alike.
  if (created.status !== 201) return `CRD ${created.status}`;
  try {
    const path = `/apis/${group}/v1/namespaces/default/${plural}`;
    const deadline = Date.now() + 60_000;
    while ((await api.get(path)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`${plural} was not served in 60 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const out: string[][] = [];
    for (const [i, sample] of SAMPLES.entries()) {
      const r = await api.post(`${path}?dryRun=All`, {
        apiVersion: `${group}/v1`,
        kind,
        metadata: { name: `o${i}` },
        spec: sample,
      });
      const causes = r.status === 201 ? [] : ((r.body?.details?.causes ?? []) as { message: string }[]);
      out.push(
        rules.map((rule) =>
          answerOf(
            rule,
            causes.map((c) => c.message),
          ),
        ),
      );
    }
    return out;
  } finally {
    await api.delete(`${CRDS}/${plural}.${group}`);
  }
}

/** What the causes say of `rule`: "p" (none), "f" (failed) or its error's text. */
function answerOf(rule: string, messages: string[]): string {
  for (const m of messages) {
    if (m === `Invalid value: failed rule: ${rule}`) return "f";
    for (const tail of [` evaluating rule: ${rule}`, ` for rule: ${rule}`]) {
      if (m.endsWith(tail)) return m.slice(0, -tail.length);
    }
  }
  return "p";
}

interface Record {
  recorded: string;
  checksum: string;
  results: (string[][] | string)[];
}

/** The record as JSON: each sample's answers a line of codes, "p", "f" or an error's number. */
function encode(recorded: string, checksum: string, results: (string[][] | string)[]): string {
  const errors: string[] = [];
  const code = (a: string) => {
    if (a === "p" || a === "f") return a;
    let i = errors.indexOf(a);
    if (i < 0) i = errors.push(a) - 1;
    return String(i);
  };
  const lines = results.map((r) =>
    typeof r === "string" ? r : r.map((sample) => sample.map(code).join(",")),
  );
  return `${JSON.stringify({ recorded, checksum, errors, results: lines }, null, 1)}\n`;
}

function decode(text: string): Record {
  const { recorded, checksum, errors, results } = JSON.parse(text) as {
    recorded: string;
    checksum: string;
    errors: string[];
    results: (string[] | string)[];
  };
  const answer = (c: string) => (c === "p" || c === "f" ? c : errors[Number(c)]!);
  return {
    recorded,
    checksum,
    results: results.map((r) => (typeof r === "string" ? r : r.map((line) => line.split(",").map(answer)))),
  };
}

/** `f` over `items`, `width` at a time, results in order. */
async function mapLimit<T, R>(
  items: readonly T[],
  width: number,
  f: (x: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

test("every rule kube takes answers on three objects as it answers there: passed, failed, its error", async () => {
  const verdicts = readFileSync(VERDICTS, "utf8").split("\n")[1]!;
  const rules = generatedRules().filter((r, i) => verdicts[i] === "o" && !ORDERED_FROM_A_MAP.test(r));
  const chunks = Array.from({ length: Math.ceil(rules.length / CHUNK) }, (_, i) =>
    rules.slice(i * CHUNK, (i + 1) * CHUNK),
  );
  const checksum = createHash("sha256")
    .update(JSON.stringify({ rules, spec, SAMPLES, CHUNK }))
    .digest("hex")
    .slice(0, 16);
  const results = await mapLimit(chunks, 4, answers);
  if (process.env.RECORD_RULE_RESULTS && !target.embedded) {
    const version = (await api.get("/version")).body.gitVersion;
    writeFileSync(RECORD, encode(`kube-apiserver ${version}`, checksum, results));
  }
  const record = decode(readFileSync(RECORD, "utf8"));
  assert.equal(
    record.checksum,
    checksum,
    "the rules, schema or samples changed since the results were recorded: record them again against kube-apiserver with RECORD_RULE_RESULTS=1",
  );
  const differing: { rule: string; sample?: number; recorded: unknown; here: unknown }[] = [];
  chunks.forEach((chunk, c) => {
    const want = record.results[c]!;
    const got = results[c];
    if (typeof want === "string" || typeof got === "string") {
      if (want !== got) differing.push({ rule: `chunk ${c}`, recorded: want, here: got });
      return;
    }
    chunk.forEach((rule, r) => {
      for (let s = 0; s < SAMPLES.length; s++) {
        const [a, b] = [(want as string[][])[s]![r], got[s]![r]];
        if (a !== b) differing.push({ rule, sample: s, recorded: a, here: b });
      }
    });
  });
  assert.deepEqual(differing.slice(0, 20), [], `${differing.length} answers differ (${record.recorded})`);
});
