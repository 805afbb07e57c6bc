// What kube-apiserver says of 7 700 generated CRD rules (rule-corpus.ts), recorded from a run
// against it: taken, refused as over the cost budget, or refused as not compiling. Each rule is
// written alone in a CRD (dryRun=All). The embedded server must say the same of every rule; the
// run against kube checks the record still holds. To record again (after changing the corpus or
// the referee's release): RECORD_RULE_VERDICTS=1 with KUBEBUILDER_ASSETS, this file only.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { Api, CRDS, customResourceDefinition, startTarget, type Target } from "./harness.js";
import { generatedRules, spec } from "./rule-corpus.js";

const RECORD = new URL("./crd-rule-verdicts.txt", import.meta.url);
const LETTERS: Record<string, string> = { ok: "o", cost: "c", compile: "x" };

let target: Target;
let api: Api;
const group = `verdicts${Date.now().toString(36)}.example.com`;

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

/** What the server says of a CRD carrying `rule` on its spec: ok, cost or compile. */
async function verdict(rule: string): Promise<string> {
  const schema = {
    type: "object",
    properties: { spec: { ...spec, "x-kubernetes-validations": [{ rule }] } },
  };
  const r = await api.post(
    `${CRDS}?dryRun=All`,
    customResourceDefinition(group, { plural: "vs", kind: "V" }, schema),
  );
  if (r.status === 201) return "ok";
  const causes = (r.body?.details?.causes ?? []) as { message: string }[];
  if (causes.some((c) => / cost exceeds budget/.test(c.message))) return "cost";
  if (causes.some((c) => /compilation failed/.test(c.message))) return "compile";
  throw new Error(`${rule}: refused for another reason: ${r.status} ${r.text}`);
}

/** `f` over `items`, `width` at a time, results in order. */
async function mapLimit<T, R>(items: readonly T[], width: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

test("every generated rule gets the verdict kube-apiserver gave it: taken, over budget, not compiling", async () => {
  const rules = generatedRules();
  const checksum = createHash("sha256").update(JSON.stringify({ rules, spec })).digest("hex").slice(0, 16);
  const letters = (await mapLimit(rules, 8, verdict)).map((v) => LETTERS[v]).join("");
  if (process.env.RECORD_RULE_VERDICTS && !target.embedded) {
    const version = (await api.get("/version")).body.gitVersion;
    writeFileSync(
      RECORD,
      `# kube-apiserver ${version}: ${rules.length} rules, corpus ${checksum}\n${letters}\n`,
    );
  }
  const [header = "", recorded = ""] = readFileSync(RECORD, "utf8").split("\n");
  assert.ok(
    header.endsWith(`corpus ${checksum}`),
    `rule-corpus.ts changed since the verdicts were recorded (${header}): record them again against kube-apiserver with RECORD_RULE_VERDICTS=1`,
  );
  const words = Object.fromEntries(Object.entries(LETTERS).map(([w, l]) => [l, w]));
  const differing = rules
    .map((rule, i) => ({ rule, recorded: words[recorded[i]!], here: words[letters[i]!] }))
    .filter((d) => d.recorded !== d.here);
  assert.deepEqual(
    differing.slice(0, 20),
    [],
    `${differing.length} of ${rules.length} rules differ (${header})`,
  );
});
