// The table of bad objects (validation-cases.ts), each answered as kube-apiserver answered it when
// recorded (validation.recorded.json, by scripts/record-validation.ts): the same code, reason and
// causes. Against the real binaries this re-checks the recording; against the embedded server it
// is the check that every kind refuses what kube refuses. PENDING lists the cases the embedded
// server does not answer as kube yet: the issue that asked for this table stays open until it is
// empty, and a case answered right while still listed fails, so the list only shrinks.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { embedded } from "../support/environment.js";
import { Api, startTarget, type Target } from "./harness.js";
import { type Outcome, outcomeOf, type ValidationCase, validationCases } from "./validation-cases.js";

const recorded = JSON.parse(readFileSync(new URL("./validation.recorded.json", import.meta.url), "utf8")) as {
  kubeVersion: string;
  outcomes: Record<string, Outcome>;
};

/** Cases the embedded server still answers otherwise than kube, by kind. */
const PENDING = new Set<string>(
  JSON.parse(readFileSync(new URL("./validation.pending.json", import.meta.url), "utf8")) as string[],
);

let target: Target;
let api: Api;
let cases: ValidationCase[];

before(async () => {
  target = await startTarget();
  api = new Api(target);
  cases = await validationCases(await api.namespace("validation"));
});
after(() => target.close());

test(`bad objects of every kind are answered as kube-apiserver ${recorded.kubeVersion} answered them`, async () => {
  assert.deepEqual(
    cases.map((c) => c.id).sort(),
    Object.keys(recorded.outcomes).sort(),
    "the recording covers the table: run scripts/record-validation.ts after changing it",
  );
  const wrong: string[] = [];
  const fixed: string[] = [];
  for (const c of cases) {
    const r = await api.post(`${c.path}?dryRun=All`, c.body);
    const got = outcomeOf(r.status, r.body);
    const same = JSON.stringify(got) === JSON.stringify(recorded.outcomes[c.id]);
    const pending = embedded && PENDING.has(c.id);
    if (!same && !pending)
      wrong.push(`${c.id}: ${JSON.stringify(got)}, kube: ${JSON.stringify(recorded.outcomes[c.id])}`);
    if (same && pending) fixed.push(c.id);
  }
  assert.deepEqual(wrong, [], "answered otherwise than kube");
  assert.deepEqual(fixed, [], "answered as kube now: take them out of validation.pending.json");
});
