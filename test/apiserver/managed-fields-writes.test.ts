// managedFields of every built-in kind as kube-apiserver computes them, for every kind of write:
// the cases of managed-fields-cases.ts (each kind's smallest valid object and richer objects of
// the kinds operators write; create, update, merge and strategic-merge patches, apply, a /status
// update whose conditions set none of their optional times, an apply that creates) answered as
// kube-apiserver answered them when recorded (managed-fields.recorded.json, by
// scripts/record-managed-fields.ts): the same codes, the same managedFields but for their times,
// the same objects. Against the real binaries this re-checks the recording.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";
import {
  type CaseOutcome,
  runCases,
  substitutionsFor,
  type WriteCase,
  writeCases,
} from "./managed-fields-cases.js";

const recorded = JSON.parse(
  readFileSync(new URL("./managed-fields.recorded.json", import.meta.url), "utf8"),
) as {
  kubeVersion: string;
  bodies: Record<string, Record<string, unknown>>;
  outcomes: Record<string, CaseOutcome>;
};

let target: Target;
let api: Api;
let cases: WriteCase[];
const created: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
  cases = await writeCases();
});
after(async () => {
  for (const path of created) await api.delete(path);
  await target.close();
});

/** One place two answers differ: its path and what each holds there. */
interface Difference {
  path: string;
  text: string;
}

/** Where two JSON values differ, leaf by leaf (at most `max`). */
function differences(got: unknown, want: unknown, path = "", out: Difference[] = [], max = 12): Difference[] {
  if (out.length >= max || JSON.stringify(got) === JSON.stringify(want)) return out;
  const objects = got !== null && want !== null && typeof got === "object" && typeof want === "object";
  if (objects && Array.isArray(got) === Array.isArray(want)) {
    const before = out.length;
    const keys = new Set([...Object.keys(got as object), ...Object.keys(want as object)]);
    for (const k of keys)
      differences(
        (got as Record<string, unknown>)[k],
        (want as Record<string, unknown>)[k],
        `${path}/${k}`,
        out,
        max,
      );
    // Same members in another order.
    if (out.length === before)
      out.push({ path, text: `order ${Object.keys(got as object)} ≠ kube ${Object.keys(want as object)}` });
    return out;
  }
  out.push({ path, text: `${JSON.stringify(got)} ≠ kube ${JSON.stringify(want)}` });
  return out;
}

/**
 * Differences that are not the field manager's: what the embedded server's defaulting,
 * validation or authentication does otherwise than kube (packages/apiserver/src/kinds and
 * envtest's users), seen here because each changes the object whose fields are owned. Each is
 * left out by case, step and path; every other difference fails the test.
 */
const ELSEWHERE: { cases: RegExp; steps?: RegExp; path: RegExp; why: string }[] = [
  {
    cases: /^rich\/DaemonSet$/,
    path: /\/fieldsV1\/f:metadata\/f:annotations(\/\.|\/f:deprecated\.daemonset\.template\.generation)?$/,
    why: "the template generation a DaemonSet's update bumps stays its creator's in kube (bumped after the field manager ran); the embedded server bumps it in the kind's defaults, before",
  },
  {
    cases: /^FlowSchema$/,
    path: /\/status\/conditions$|\/f:status\/f:conditions\/\.$/,
    why: "kube-apiserver's priority-and-fairness config controller writes a FlowSchema's Dangling condition; the embedded server runs no such controller",
  },
  {
    cases: /^CertificateSigningRequest$/,
    path: /^\/object\/spec\/(username|extra)$/,
    why: "envtest's admin is another user on each server",
  },
];

const elsewhere = (id: string, step: string, path: string) =>
  ELSEWHERE.some((e) => e.cases.test(id) && (e.steps?.test(step) ?? true) && e.path.test(path));

test(`managedFields of every built-in kind's writes are kube-apiserver ${recorded.kubeVersion}'s`, async () => {
  assert.deepEqual(
    cases.map((c) => c.id).sort(),
    Object.keys(recorded.outcomes).sort(),
    "the recording covers the cases: run scripts/record-managed-fields.ts after changing them",
  );
  const prefix = `mfields-${randomBytes(4).toString("hex")}`;
  const run = await runCases(api, cases, prefix, substitutionsFor(cases, recorded.bodies));
  created.push(...run.created);
  const wrong: string[] = [];
  for (const c of cases) {
    const want = recorded.outcomes[c.id];
    const got = run.outcomes[c.id] ?? {};
    for (const step of new Set([...Object.keys(want), ...Object.keys(got)])) {
      const diffs = differences(got[step], want[step], "", [], 64).filter(
        (d) => !elsewhere(c.id, step, d.path),
      );
      if (diffs.length > 0)
        wrong.push(`${c.id} ${step}:\n    ${diffs.map((d) => `${d.path}: ${d.text}`).join("\n    ")}`);
    }
  }
  assert.deepEqual(wrong, [], "written otherwise than kube");
});
