// Records what a real kube-apiserver answers to the table of bad objects
// (test/apiserver/validation-cases.ts), to its scenarios, and to the table of updates
// (test/apiserver/validation-updates.ts) and of status writes (test/apiserver/validation-status.ts): the referee the embedded server is held to.
// Run: KUBEBUILDER_ASSETS=<kube-apiserver and etcd> npx tsx scripts/record-validation.ts
// With `status`, records the status half only and keeps the rest of the recording.
import { readFileSync, writeFileSync } from "node:fs";
import { Api, startTarget } from "../test/apiserver/harness.js";
import {
  type Outcome,
  outcomeOf,
  runScenario,
  scenarioCases,
  validationCases,
} from "../test/apiserver/validation-cases.js";
import {
  createUpdated,
  deleteUpdated,
  runUpdates,
  updateTable,
} from "../test/apiserver/validation-updates.js";
import {
  createStatused,
  deleteStatused,
  runStatus,
  statusTable,
} from "../test/apiserver/validation-status.js";

if (!process.env.KUBEBUILDER_ASSETS) {
  console.error("KUBEBUILDER_ASSETS must name a real kube-apiserver and etcd: the recording is the referee");
  process.exit(2);
}
const statusOnly = process.argv.includes("status");
const file = new URL("../test/apiserver/validation.recorded.json", import.meta.url);
const target = await startTarget();
try {
  const api = new Api(target);
  const version = (await api.get("/version")).body.gitVersion as string;
  const ns = await api.namespace("validation");
  const outcomes: Record<string, Outcome> = {};
  if (statusOnly) {
    const kept = JSON.parse(readFileSync(file, "utf8")).outcomes as Record<string, Outcome>;
    for (const [id, o] of Object.entries(kept)) if (!id.includes("/status:")) outcomes[id] = o;
  }
  for (const c of statusOnly ? [] : await validationCases(ns)) {
    const r = await api.post(`${c.path}?dryRun=All`, c.body);
    outcomes[c.id] = outcomeOf(r.status, r.body);
  }
  for (const c of statusOnly ? [] : scenarioCases(ns)) outcomes[c.id] = await runScenario(api, c);
  const table = await updateTable(await api.namespace("validation-updates"));
  if (statusOnly) table.objects = table.cases = [];
  await createUpdated(api, table);
  try {
    const answered = await runUpdates(api, table.cases);
    for (const c of table.cases) outcomes[c.id] = answered.get(c.id) as Outcome;
  } finally {
    await deleteUpdated(api, table);
  }
  const statuses = await statusTable(await api.namespace("validation-status"));
  await createStatused(api, statuses);
  try {
    const answered = await runStatus(api, statuses.cases);
    for (const c of statuses.cases) outcomes[c.id] = answered.get(c.id) as Outcome;
  } finally {
    await deleteStatused(api, statuses);
  }
  // One line per outcome: reviewable in a diff.
  const lines = Object.entries(outcomes).map(([id, o]) => `  ${JSON.stringify(id)}: ${JSON.stringify(o)}`);
  writeFileSync(
    file,
    `{\n "kubeVersion": ${JSON.stringify(version)},\n "outcomes": {\n${lines.join(",\n")}\n }\n}\n`,
  );
  console.log(`${Object.keys(outcomes).length} outcomes from kube-apiserver ${version}`);
} finally {
  await target.close();
}
