// The table of bad objects (validation-cases.ts), of updates (validation-updates.ts) and of status
// writes (validation-status.ts), each answered as kube-apiserver answered it when recorded
// (validation.recorded.json, by scripts/record-validation.ts): the same code, reason and causes,
// and for a status write taken, what of it the answer does not hold. Against the real binaries this re-checks the recording; against the embedded server it
// is the check that every kind refuses what kube refuses. Causes are compared as sets: kube
// sometimes reports one twice (two checks of the same field), which says nothing more.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";
import {
  type Outcome,
  outcomeOf,
  refusedByGoDecoding,
  runScenario,
  type ScenarioCase,
  scenarioCases,
  scenarioNamespaces,
  type ValidationCase,
  validationCases,
} from "./validation-cases.js";
import {
  createUpdated,
  deleteUpdated,
  runUpdates,
  type UpdateTable,
  updateTable,
} from "./validation-updates.js";
import {
  createStatused,
  deleteStatused,
  runStatus,
  type StatusTable,
  statusTable,
} from "./validation-status.js";

const recorded = JSON.parse(readFileSync(new URL("./validation.recorded.json", import.meta.url), "utf8")) as {
  kubeVersion: string;
  outcomes: Record<string, Outcome>;
};

let target: Target;
let api: Api;
let cases: ValidationCase[];
let scenarios: ScenarioCase[];
let updates: UpdateTable;
let statuses: StatusTable;
let ns: string;
let updatesNs: string;
let statusNs: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("validation");
  cases = await validationCases(ns);
  scenarios = scenarioCases(ns);
  // The updated objects are real: in a namespace (and with names) of their own, so that the dry-run
  // creates of the same names find nothing in the way.
  updatesNs = await api.namespace("validation-updates");
  updates = await updateTable(updatesNs);
  statusNs = await api.namespace("validation-status");
  statuses = await statusTable(statusNs);
});
after(async () => {
  await deleteUpdated(api, updates);
  await deleteStatused(api, statuses);
  for (const space of [ns, updatesNs, statusNs, ...scenarioNamespaces(ns)])
    await api.delete(`/api/v1/namespaces/${space}`);
  await target.close();
});

test(`bad objects of every kind are answered as kube-apiserver ${recorded.kubeVersion} answered them`, async () => {
  assert.deepEqual(
    [...cases, ...scenarios, ...updates.cases, ...statuses.cases].map((c) => c.id).sort(),
    Object.keys(recorded.outcomes).sort(),
    "the recording covers the table: run scripts/record-validation.ts after changing it",
  );
  const wrong: string[] = [];
  for (const c of cases.filter((c) => !refusedByGoDecoding(c.id))) {
    const r = await api.post(`${c.path}?dryRun=All`, c.body);
    const got = outcomeOf(r.status, r.body);
    if (JSON.stringify(got) !== JSON.stringify(recorded.outcomes[c.id])) {
      wrong.push(`${c.id}: ${JSON.stringify(got)}, kube: ${JSON.stringify(recorded.outcomes[c.id])}`);
    }
  }
  assert.deepEqual(wrong, [], "answered otherwise than kube");
});

test(`requests refused for what is stored are answered as kube-apiserver ${recorded.kubeVersion} answered them`, async () => {
  const wrong: string[] = [];
  for (const c of scenarios) {
    const got = await runScenario(api, c);
    if (JSON.stringify(got) !== JSON.stringify(recorded.outcomes[c.id])) {
      wrong.push(`${c.id}: ${JSON.stringify(got)}, kube: ${JSON.stringify(recorded.outcomes[c.id])}`);
    }
  }
  assert.deepEqual(wrong, [], "answered otherwise than kube");
});

test(`values Go's decoder refuses (numbers past int32, bad times) are refused as kube-apiserver ${recorded.kubeVersion} refuses them`, async () => {
  const wrong: string[] = [];
  for (const c of cases.filter((c) => refusedByGoDecoding(c.id))) {
    const r = await api.post(`${c.path}?dryRun=All`, c.body);
    const got = outcomeOf(r.status, r.body);
    if (JSON.stringify(got) !== JSON.stringify(recorded.outcomes[c.id])) {
      wrong.push(`${c.id}: ${JSON.stringify(got)}, kube: ${JSON.stringify(recorded.outcomes[c.id])}`);
    }
  }
  assert.deepEqual(wrong, [], "answered otherwise than kube");
});

test(`updates of every kind are answered as kube-apiserver ${recorded.kubeVersion} answered them`, async () => {
  await createUpdated(api, updates);
  const answered = await runUpdates(api, updates.cases);
  const wrong: string[] = [];
  for (const c of updates.cases) {
    const got = answered.get(c.id);
    if (JSON.stringify(got) !== JSON.stringify(recorded.outcomes[c.id])) {
      wrong.push(`${c.id}: ${JSON.stringify(got)}, kube: ${JSON.stringify(recorded.outcomes[c.id])}`);
    }
  }
  assert.deepEqual(wrong, [], "answered otherwise than kube");
});

test(`status writes of every kind are answered as kube-apiserver ${recorded.kubeVersion} answered them`, async () => {
  await createStatused(api, statuses);
  const answered = await runStatus(api, statuses.cases);
  const wrong: string[] = [];
  for (const c of statuses.cases) {
    const got = answered.get(c.id);
    if (JSON.stringify(got) !== JSON.stringify(recorded.outcomes[c.id])) {
      wrong.push(`${c.id}: ${JSON.stringify(got)}, kube: ${JSON.stringify(recorded.outcomes[c.id])}`);
    }
  }
  assert.deepEqual(wrong, [], "answered otherwise than kube");
});
