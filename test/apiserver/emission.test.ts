// What a built-in object keeps after kube's Go structs decoded and encoded it: empty optional maps
// (tagged omitempty) and ObjectMeta's empty lists are gone when the object is read back.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { newRESTClient, type RESTClient } from "controller-runtime/rest";
import { testEnvironment } from "../support/environment.js";

const env = testEnvironment();
let rest: RESTClient;
before(async () => {
  rest = newRESTClient(await env.start(), { onWarning: null });
});
after(async () => {
  await rest.close();
  await env.stop();
});

const configMaps = { group: "", version: "v1", resource: "configmaps", namespaced: true };

test("empty maps and ObjectMeta lists of a built-in object are not stored", async () => {
  const created = await rest.create<Record<string, unknown> & { apiVersion: string; kind: string }>(
    configMaps,
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "empties", namespace: "default", labels: {}, annotations: {}, finalizers: [] },
      data: {},
      binaryData: {},
    },
    { namespace: "default" },
  );
  try {
    const read = (await rest.get(configMaps, "empties", { namespace: "default" })) as Record<string, unknown>;
    for (const obj of [created, read]) {
      const { metadata, ...rest } = obj as { metadata: Record<string, unknown> };
      assert.deepEqual(Object.keys(rest).sort(), ["apiVersion", "kind"]);
      for (const key of ["labels", "annotations", "finalizers", "managedFields"]) {
        assert.equal(metadata[key], undefined, `metadata.${key}`);
      }
    }
  } finally {
    await rest.delete(configMaps, "empties", { namespace: "default" });
  }
});
