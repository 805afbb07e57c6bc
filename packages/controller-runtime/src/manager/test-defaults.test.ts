// Managers made from an envtest config do not collide on :8080 and keep test output quiet, so
// two test files that each run a manager just work.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Environment } from "../envtest/index.js";
import type { RESTConfig } from "../rest/index.js";
import { Manager } from "./index.js";
import { resolveManagerOptions } from "./options.js";

const env = new Environment();
let config: RESTConfig;
before(async () => {
  config = await env.start();
});
after(() => env.stop());

test("envtest's config marks itself; a manager on it defaults to a free loopback metrics port and errors-only logs", () => {
  assert.equal(config.testEnvironment, true);
  const o = resolveManagerOptions({}, config);
  assert.equal(o.metrics.bindAddress, "127.0.0.1:0");
  assert.equal(o.logger.enabled(), false, "info lines are off; errors are still written");
  const asked = resolveManagerOptions({ metrics: { bindAddress: ":9090" } }, config);
  assert.equal(asked.metrics.bindAddress, ":9090");
  const production = resolveManagerOptions({}, { ...config, testEnvironment: undefined });
  assert.equal(production.metrics.bindAddress, ":8080");
  assert.equal(production.logger.enabled(), true);
});

test("two managers with default options run side by side under envtest", async () => {
  const stop = new AbortController();
  const managers = await Promise.all([Manager.create(config), Manager.create(config)]);
  const running = managers.map((m) => m.start(stop.signal));
  try {
    await Promise.all(managers.map((m) => m.elected()));
    // Both are up; neither failed on a port in use (start() would have rejected).
    const failed = await Promise.race([
      Promise.any(running).then(
        () => "stopped",
        () => "failed",
      ),
      new Promise((r) => setImmediate(() => r("running"))),
    ]);
    assert.equal(failed, "running");
  } finally {
    stop.abort();
    await Promise.all(running);
  }
});
