// retryOnConflict against a real API server: writers racing on one object over stale reads lose
// with 409s; each retried from its read lands its change, and none is lost. Runs in every mode.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { deepCopy } from "../api/deep-copy.js";
import type { RESTConfig } from "../rest/config.js";
import { isConflict, newRESTClient, type RESTClient } from "../rest/index.js";
import { newNamespace } from "../../../../test/support/objects.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { type Client, newClient, retryOnConflict, retryOnError } from "./index.js";
import type { DeepReadonly } from "../api/index.js";

const env = testEnvironment();
let config: RESTConfig;
let rest: RESTClient;
let client: Client;

before(async () => {
  config = await env.start();
  rest = newRESTClient(config);
  client = newClient(config);
});

after(async () => {
  await client.close();
  await rest.close();
  await env.stop();
});

async function counter(prefix: string): Promise<{ namespace: string; name: string }> {
  const namespace = await newNamespace(rest, prefix);
  await client.create<ConfigMap>({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace, name: "counter" },
    data: {},
  });
  return { namespace, name: "counter" };
}

test("ten writers racing on one object each land their change with retryOnConflict", async () => {
  const key = await counter("retry-race");
  let conflicts = 0;
  const writers = Array.from({ length: 10 }, (_, i) =>
    retryOnConflict(
      async () => {
        const current = deepCopy(await client.get(kinds.ConfigMap, key));
        current.data = { ...current.data, [`writer-${i}`]: "done" };
        try {
          return await client.update(current);
        } catch (err) {
          if (isConflict(err)) conflicts++;
          throw err;
        }
      },
      { steps: 50, durationMs: 5 },
    ),
  );
  await Promise.all(writers);
  const final = await client.get(kinds.ConfigMap, key);
  assert.equal(Object.keys(final.data ?? {}).length, 10, "every writer's key is there");
  assert.ok(conflicts > 0, "the writers did race (some lost with 409 and retried)");
});

test("the last conflict goes to the caller once the steps run out; other errors at once", async () => {
  const key = await counter("retry-give-up");
  const stale = deepCopy(await client.get(kinds.ConfigMap, key));
  await client.update({ ...stale, data: { moved: "on" } });
  let attempts = 0;
  await assert.rejects(
    retryOnConflict(
      () => {
        attempts++;
        return client.update(stale); // always the stale resourceVersion
      },
      { steps: 3, durationMs: 1 },
    ),
    (err) => isConflict(err),
  );
  assert.equal(attempts, 3);

  attempts = 0;
  await assert.rejects(
    retryOnConflict(() => {
      attempts++;
      return client.get(kinds.ConfigMap, { namespace: key.namespace, name: "absent" });
    }),
    /not found/,
  );
  assert.equal(attempts, 1, "a NotFound is not retried");

  attempts = 0;
  const value = await retryOnError(
    (err) => err instanceof RangeError,
    async () => {
      if (++attempts < 3) throw new RangeError("not yet");
      return "third time";
    },
    { durationMs: 1 },
  );
  assert.equal(value, "third time");
});

test("deepCopy gives a mutable copy of a frozen cache object, leaving the original alone", () => {
  const frozen: DeepReadonly<ConfigMap> = Object.freeze({
    metadata: Object.freeze({ name: "a", labels: Object.freeze({ x: "1" }) }),
    data: Object.freeze({ k: "v" }),
  });
  const copy = deepCopy(frozen);
  copy.data = { k: "changed" };
  copy.metadata!.labels!.x = "2";
  assert.equal(frozen.data?.k, "v");
  assert.equal(frozen.metadata?.labels?.x, "1");
  assert.equal(copy.metadata?.labels?.x, "2");
});
