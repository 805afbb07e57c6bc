// A CRD whose schema holds an enum of 100 000 values (a 2 MB body): creating it and validating
// objects against it must leave the server free to answer others. Each pass over the CRD (type
// check, pruning, copying its schema, the enum lookup) was linear in the values with a cost per
// value; together they held every other request for about two seconds.
import assert from "node:assert/strict";
import { availableParallelism, loadavg } from "node:os";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
const run = Date.now().toString(36);
const group = `enum${run}.example.com`;
const plural = "choices";
const VALUES = 100_000;
/**
 * How long /version may wait: 1 s on a machine with a core to spare, more as the run queue grows
 * (as the fuzzer's stall bound does): the real kube-apiserver shares two cores with etcd and the
 * test, and a parallel run loads them further.
 */
const boundMs = () => 1_000 * Math.max(1, loadavg()[0] / availableParallelism());

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(async () => {
  await api.delete(`${CRDS}/${plural}.${group}`);
  await target.close();
});

const largeEnumCRD = () => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    scope: "Namespaced",
    names: { plural, singular: "choice", kind: "Choice", listKind: "ChoiceList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  pick: { type: "string", enum: Array.from({ length: VALUES }, (_, i) => `value-${i}`) },
                },
              },
            },
          },
        },
      },
    ],
  },
});

/** Runs `work` while asking for /version every few milliseconds; the slowest answer. */
async function slowestVersionDuring(work: () => Promise<void>): Promise<number> {
  let slowest = 0;
  let done = false;
  const probe = (async () => {
    while (!done) {
      const start = performance.now();
      assert.equal((await api.get("/version")).status, 200);
      slowest = Math.max(slowest, performance.now() - start);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await probe;
  }
  return slowest;
}

describe("a CRD with an enum of 100 000 values", () => {
  test("is created, served and enforced while the server keeps answering others", async () => {
    const collection = `/apis/${group}/v1/namespaces/default/${plural}`;
    const choice = (name: string, pick: string) => ({
      apiVersion: `${group}/v1`,
      kind: "Choice",
      metadata: { name },
      spec: { pick },
    });
    const slowest = await slowestVersionDuring(async () => {
      const created = await api.post(CRDS, largeEnumCRD());
      assert.equal(created.status, 201, created.text.slice(0, 500));
      await eventually("the CRD served", async () => (await api.get(collection)).status === 200, {
        timeoutMs: 30_000,
      });
      const last = await api.post(collection, choice("last", `value-${VALUES - 1}`));
      assert.equal(last.status, 201, last.text.slice(0, 500));
      const other = await api.post(collection, choice("other", "value-x"));
      assert.equal(other.status, 422);
      const [cause] = (
        other.body as { details: { causes: { reason: string; field: string; message: string }[] } }
      ).details.causes;
      assert.equal(cause?.reason, "FieldValueNotSupported");
      assert.equal(cause?.field, "spec.pick");
      assert.ok(
        cause?.message.startsWith('Unsupported value: "value-x": supported values: "value-0", "value-1", '),
        cause?.message.slice(0, 200),
      );
      assert.ok(cause?.message.endsWith(`"value-${VALUES - 1}"`), cause?.message.slice(-200));
    });
    // The same probe again with nothing else asked of the server: what the machine's load alone
    // makes of it. A server that blocks on the enum answers in seconds during the work and in
    // milliseconds after; a machine busy with other tests slows both windows alike.
    const quiet = await slowestVersionDuring(() => new Promise((r) => setTimeout(r, 3_000)));
    const bound = Math.max(boundMs(), 5 * quiet);
    console.log(
      `# slowest GET /version: ${slowest.toFixed(0)} ms (bound ${bound.toFixed(0)} ms; ${quiet.toFixed(0)} ms with nothing else to do)`,
    );
    assert.ok(slowest < bound, `GET /version waited ${slowest.toFixed(0)} ms (bound ${bound.toFixed(0)} ms)`);
  });
});
