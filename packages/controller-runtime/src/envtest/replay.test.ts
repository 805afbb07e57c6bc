// A seed replays a run: a controller with four workers, under conflicts and errors drawn with
// one seed, makes the same writes with the same faults, object by object, in 20 runs (each with
// a fresh manager and namespace); another seed makes another trace. In every mode (through the
// fault proxy on kube-apiserver).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { kinds } from "../api/index.js";
import { controllerManagedBy } from "../builder/index.js";
import { nullLogger } from "../log/index.js";
import { Manager } from "../manager/index.js";
import { newRESTClient, type RESTClient, resourceOf } from "../rest/index.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { configMap, newNamespace } from "../../../../test/support/objects.js";
import { eventually, faultError } from "./index.js";

const env = testEnvironment({ faults: true });
const CM = resourceOf(kinds.ConfigMap);
const OPERATOR = "replay-operator";
const OBJECTS = 16;
let rest: RESTClient;

before(async () => {
  rest = newRESTClient({ ...(await env.start()), userAgent: "replay-test" });
});
after(async () => {
  await rest.close();
  await env.stop();
});

/** One run: a controller stamps each ConfigMap with an annotation; returns its writes per object. */
async function run(seed: number): Promise<string> {
  const ns = await newNamespace(rest, "replay");
  const writes = { verbs: ["update"], userAgent: OPERATOR };
  const rules = [
    env.faults.inject({ match: writes, action: faultError({ code: 409 }), probability: 0.3, seed }),
    env.faults.inject({ match: writes, action: faultError({ code: 500 }), probability: 0.2, seed }),
  ];
  const log = env.faults.recordWrites();
  const mgr = await Manager.create(
    { ...env.config, userAgent: OPERATOR },
    { logger: nullLogger(), metrics: { bindAddress: "0" }, cache: { defaultNamespaces: [ns] } },
  );
  const client = mgr.getClient();
  controllerManagedBy(mgr)
    .for(kinds.ConfigMap)
    .withOptions({ maxConcurrentReconciles: 4 })
    .complete({
      async reconcile(req) {
        const cm = await client.get(kinds.ConfigMap, req);
        if (cm.metadata?.annotations?.stamped) return;
        await client.update({ ...cm, metadata: { ...cm.metadata, annotations: { stamped: "yes" } } });
      },
    });
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  try {
    for (let i = 0; i < OBJECTS; i++) await rest.create(CM, configMap(ns, `cm-${i}`), { namespace: ns });
    await eventually(
      "every ConfigMap stamped",
      async () => {
        const list = await rest.list(CM, { namespace: ns });
        return list.items.filter((c) => c.metadata?.annotations?.stamped).length === OBJECTS;
      },
      { timeoutMs: 30_000 },
    );
    await env.settle({ timeoutMs: 30_000 });
  } finally {
    stop.abort();
    await done;
    log.stop();
    for (const r of rules) r.clear();
  }
  const trace = new Map<string, string[]>();
  for (const w of log.by(OPERATOR).filter((w) => w.namespace === ns)) {
    trace.set(w.name, [...(trace.get(w.name) ?? []), `${w.verb}${w.fault ? ` ${w.fault}` : ""}`]);
  }
  return [...trace]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, t]) => `${name}: ${t.join(", ")}`)
    .join("\n");
}

test("the same seed gives the same request trace in 20 runs; another seed another", async (t) => {
  const first = await run(11);
  assert.match(first, / 409/, "conflicts were injected");
  assert.match(first, / 500/, "errors were injected");
  for (let i = 1; i < 20; i++) assert.equal(await run(11), first, `run ${i + 1} replays run 1`);
  assert.notEqual(await run(12), first, "seed 12 draws otherwise");
  t.diagnostic(`20 runs of seed 11, each trace:\n${first}`);
});
