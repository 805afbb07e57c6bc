// settle(): a test asserts right after it, with no eventually() and no sleep, in every mode; it
// waits for slow reconciles and for what they write to come back through the informers, holds
// under injected latency, and names what never settled.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { ConfigMap, Secret } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { controllerManagedBy } from "../builder/index.js";
import { nullLogger } from "../log/index.js";
import { Manager } from "../manager/index.js";
import { isNotFound, newRESTClient, type RESTClient, resourceOf } from "../rest/index.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { configMap, newNamespace } from "../../../../test/support/objects.js";
import {
  delayEvents,
  dropWatch,
  duplicateEvents,
  expireWatch,
  faultError,
  faultMatrix,
  latency,
  SettleTimeoutError,
} from "./index.js";

const env = testEnvironment({ faults: true });
let rest: RESTClient;
before(async () => {
  rest = newRESTClient(await env.start());
});
after(async () => {
  await rest.close();
  await env.stop();
});

/** A manager whose controller copies each ConfigMap of `ns` into a Secret, slowly. */
async function copier(ns: string, reconcileMs: number, hang?: () => boolean) {
  const mgr = await Manager.create(env.config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    cache: { defaultNamespaces: [ns] },
  });
  const client = mgr.getClient();
  controllerManagedBy(mgr)
    .for(kinds.ConfigMap)
    .owns(kinds.Secret)
    .complete({
      async reconcile(req, ctx) {
        if (hang?.()) await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
        await sleep(reconcileMs);
        const cm = await client
          .get(kinds.ConfigMap, req)
          .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
        if (!cm) return {};
        const secret = await client
          .get(kinds.Secret, req)
          .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
        const want = { v: Buffer.from(cm.data?.v ?? "").toString("base64") };
        if (!secret) {
          await client.create<Secret>({
            apiVersion: "v1",
            kind: "Secret",
            metadata: {
              name: req.name,
              namespace: req.namespace,
              ownerReferences: [
                {
                  apiVersion: "v1",
                  kind: "ConfigMap",
                  name: req.name,
                  uid: cm.metadata!.uid!,
                  controller: true,
                },
              ],
            },
            data: want,
          });
        } else if (secret.data?.v !== want.v) {
          await client.update({ ...secret, data: want });
        }
        return {};
      },
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  return {
    async stop() {
      stop.abort();
      await running;
    },
  };
}

async function secretsOf(ns: string): Promise<Record<string, string>> {
  const list = await rest.list<Secret>(resourceOf(kinds.Secret), { namespace: ns });
  return Object.fromEntries(
    list.items.map((s) => [s.metadata?.name ?? "", Buffer.from(s.data?.v ?? "", "base64").toString()]),
  );
}

test("after settle() every reconcile's writes are done, with no sleep and no polling", async () => {
  const ns = await newNamespace(rest, "settle");
  const c = await copier(ns, 30);
  try {
    for (let i = 0; i < 10; i++) {
      await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, `c${i}`, { v: String(i) }), {
        namespace: ns,
      });
    }
    await env.settle();
    const secrets = await secretsOf(ns);
    assert.equal(Object.keys(secrets).length, 10);
    for (let i = 0; i < 10; i++) assert.equal(secrets[`c${i}`], String(i));
    // A change, then settle again: the copy follows.
    await rest.patch<ConfigMap>(
      resourceOf(kinds.ConfigMap),
      "c3",
      { data: { v: "changed" } },
      { namespace: ns, patchType: "merge" },
    );
    await env.settle();
    assert.equal((await secretsOf(ns)).c3, "changed");
  } finally {
    await c.stop();
  }
});

test("settle() holds under injected latency on every write", async () => {
  const ns = await newNamespace(rest, "settle");
  const slow = env.faults.inject({
    match: { namespace: ns, verbs: ["create", "update"] },
    action: latency(100),
  });
  const c = await copier(ns, 0);
  try {
    for (let i = 0; i < 5; i++) {
      await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, `s${i}`, { v: `x${i}` }), {
        namespace: ns,
      });
    }
    await env.settle();
    assert.equal(Object.keys(await secretsOf(ns)).length, 5);
    assert.ok(slow.hits >= 10, `the writes were slowed (${slow.hits})`);
  } finally {
    slow.clear();
    await c.stop();
  }
});

test("settle() waits for keys retrying after errors, not only for ready ones", async () => {
  const ns = await newNamespace(rest, "settle");
  const c = await copier(ns, 0);
  // Seven failures in a row: the last backoff (320 ms) outlasts settle()'s quiet moment.
  const rule = env.faults.inject({
    match: { resource: "secrets", verbs: ["create"], namespace: ns },
    action: faultError({ code: 500 }),
    times: 7,
  });
  try {
    await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, "retried", { v: "ok" }), { namespace: ns });
    await env.settle({ timeoutMs: 20_000 });
    assert.equal(rule.hits, 7);
    assert.equal((await secretsOf(ns)).retried, "ok");
  } finally {
    rule.clear();
    await c.stop();
  }
});

test("settle() names what never settles", async () => {
  const ns = await newNamespace(rest, "settle");
  let hang = true;
  const c = await copier(ns, 0, () => hang);
  try {
    await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, "stuck"), { namespace: ns });
    await assert.rejects(env.settle({ timeoutMs: 500 }), (err: unknown) => {
      assert.ok(err instanceof SettleTimeoutError);
      assert.match(err.message, /controller configmap is busy/);
      return true;
    });
    hang = false;
  } finally {
    await c.stop();
  }
});

test("the copying controller converges under each fault of a matrix", async (t) => {
  const writes = { resource: "secrets", verbs: ["create", "update"] };
  const results = await faultMatrix(
    env,
    async () => {
      const ns = await newNamespace(rest, "matrix");
      const c = await copier(ns, 0);
      try {
        for (let i = 0; i < 6; i++) {
          await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, `m${i}`, { v: `v${i}` }), {
            namespace: ns,
          });
        }
        await env.settle({ timeoutMs: 20_000 });
        const secrets = await secretsOf(ns);
        for (let i = 0; i < 6; i++) assert.equal(secrets[`m${i}`], `v${i}`, `m${i} copied`);
      } finally {
        await c.stop();
      }
    },
    {
      "409 on half the writes": [{ match: writes, action: faultError({ code: 409 }), probability: 0.5 }],
      "500 on a third of the writes": [
        { match: writes, action: faultError({ code: 500 }), probability: 0.3 },
      ],
      "50 ms on every request": [{ action: latency(50) }],
      "watches cut after 3 events": [
        { match: { watch: true }, action: dropWatch({ afterEvents: 3 }), times: 4 },
      ],
      "watches expired after 2 events": [
        { match: { watch: true }, action: expireWatch({ afterEvents: 2 }), times: 4 },
      ],
      "events twice": [{ match: { watch: true }, action: duplicateEvents() }],
      "events 100 ms late": [{ match: { watch: true }, action: delayEvents(100) }],
    },
    { seed: 42, print: (table) => (process.env.FAULT_MATRIX_PRINT ? t.diagnostic(`\n${table}`) : undefined) },
  );
  const failed = results.filter((r) => !r.converged);
  assert.deepEqual(
    failed.map((r) => `${r.fault}: ${String((r.error as Error)?.message)}`),
    [],
  );
  for (const r of results.slice(1)) assert.ok(r.hits > 0, `${r.fault} fired`);
});
