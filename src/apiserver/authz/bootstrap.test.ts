import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { preparedPolicyModule } from "./bootstrap-prepared.js";

test("the prepared bootstrap policy the server seeds from is what the policy and today's code make", () => {
  const committed = readFileSync(new URL("./bootstrap-prepared.generated.ts", import.meta.url), "utf8");
  // On a difference: npx tsx scripts/gen-bootstrap-prepared.ts
  assert.ok(
    committed === preparedPolicyModule(),
    "bootstrap-prepared.generated.ts is stale: run `npx tsx scripts/gen-bootstrap-prepared.ts`",
  );
});
