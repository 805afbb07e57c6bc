// Generates src/apiserver/authz/bootstrap-prepared.generated.ts: the bootstrap policy
// (bootstrap-policy.generated.ts) as the embedded server stores it (aggregated, defaulted, in
// kube's field order), so that a start does not prepare it again. Run after the policy or the
// code that prepares it changes; bootstrap.test.ts fails until then.
//
//   npx tsx scripts/gen-bootstrap-prepared.ts
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { preparedPolicyModule } from "../src/apiserver/authz/bootstrap-prepared.js";

const OUTPUT = join(
  dirname(fileURLToPath(import.meta.url)),
  "../src/apiserver/authz/bootstrap-prepared.generated.ts",
);
writeFileSync(OUTPUT, preparedPolicyModule());
console.log(`wrote ${OUTPUT}`);
