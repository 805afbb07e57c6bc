import assert from "node:assert/strict";
import { test } from "node:test";
import { preparePolicy } from "./bootstrap-prepared.js";
import { preparedPolicy } from "./bootstrap-prepared.generated.js";

test("the prepared bootstrap policy the server seeds from is what the policy and today's code make", () => {
  // On a difference: npx tsx scripts/gen-bootstrap-prepared.ts
  assert.deepEqual(preparedPolicy, preparePolicy());
});
