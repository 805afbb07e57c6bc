import assert from "node:assert/strict";
import { test } from "node:test";
import { managerFlags, parseDuration, parseFlags } from "./flags.js";

test("kubebuilder's flags, with Go's spellings of booleans", () => {
  const f = parseFlags(managerFlags, [
    "--leader-elect=true",
    "--metrics-bind-address",
    ":9090",
    "--zap-devel=false",
  ]);
  assert.equal(f["leader-elect"], true);
  assert.equal(f["metrics-bind-address"], ":9090");
  assert.equal(f["health-probe-bind-address"], ":8081");
  assert.equal(f["zap-devel"], undefined);
  assert.equal(parseFlags(managerFlags, ["--leader-elect=false"])["leader-elect"], false);
  assert.throws(() => parseFlags(managerFlags, ["--unknown"]), /unknown/i);
});

test("durations as Go writes them", () => {
  assert.equal(parseDuration("x", "500ms"), 500);
  assert.equal(parseDuration("x", "10s"), 10_000);
  assert.equal(parseDuration("x", "1.5m"), 90_000);
  assert.throws(() => parseDuration("probe-interval", "10"), /--probe-interval/);
});
