// Records what a real kube-apiserver answers to the writes of test/apiserver/managed-fields-cases.ts
// (managedFields and the stored object after each create, update, patch, apply and status update
// of every built-in kind's fixture): the referee the embedded server is held to by
// test/apiserver/managed-fields-writes.test.ts.
// Run: KUBEBUILDER_ASSETS=<kube-apiserver and etcd> npx tsx scripts/record-managed-fields.ts
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Api, startTarget } from "../test/apiserver/harness.js";
import { runCases, writeCases } from "../test/apiserver/managed-fields-cases.js";

if (!process.env.KUBEBUILDER_ASSETS) {
  console.error("KUBEBUILDER_ASSETS must name a real kube-apiserver and etcd: the recording is the referee");
  process.exit(2);
}
const target = await startTarget();
try {
  const api = new Api(target);
  const version = (await api.get("/version")).body.gitVersion as string;
  const cases = await writeCases();
  const prefix = `mfields-${randomBytes(4).toString("hex")}`;
  const { outcomes, created } = await runCases(api, cases, prefix, new Map());
  for (const path of created) await api.delete(path);
  // One line per case and step: reviewable in a diff.
  const bodies = cases.map((c) => `  ${JSON.stringify(c.id)}: ${JSON.stringify(c.body)}`);
  const lines: string[] = [];
  for (const c of cases) {
    const steps = Object.entries(outcomes[c.id] ?? {}).map(
      ([step, o]) => `   ${JSON.stringify(step)}: ${JSON.stringify(o)}`,
    );
    lines.push(`  ${JSON.stringify(c.id)}: {\n${steps.join(",\n")}\n  }`);
  }
  writeFileSync(
    new URL("../test/apiserver/managed-fields.recorded.json", import.meta.url),
    `{\n "kubeVersion": ${JSON.stringify(version)},\n "bodies": {\n${bodies.join(",\n")}\n },\n "outcomes": {\n${lines.join(",\n")}\n }\n}\n`,
  );
  console.log(`${cases.length} cases from kube-apiserver ${version}`);
} finally {
  await target.close();
}
