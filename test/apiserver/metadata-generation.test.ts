// metadata.generation of kinds that do not track it (a ConfigMap): kube keeps what a client sent
// on create (BeforeCreate leaves it), refuses a negative one (ValidateObjectMeta), and an update
// keeps the stored one. Kinds that track it (a Deployment) start at 1 whatever was sent.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("generation");
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const configMap = (name: string, generation: number) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, generation },
});
const deployment = (name: string, generation: number) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, generation },
  spec: {
    selector: { matchLabels: { a: "b" } },
    template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i" }] } },
  },
});
const generationOf = (body: unknown) => (body as { metadata?: { generation?: number } }).metadata?.generation;

describe("metadata.generation", () => {
  test("a ConfigMap keeps the generation it was created with; an update keeps the stored one", async () => {
    const created = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("kept", 5));
    assert.equal(created.status, 201, created.text);
    assert.equal(generationOf(created.body), 5);
    const updated = await api.put(`/api/v1/namespaces/${ns}/configmaps/kept`, configMap("kept", 9));
    assert.equal(updated.status, 200, updated.text);
    assert.equal(generationOf(updated.body), 5);
    assert.equal(generationOf((await api.get(`/api/v1/namespaces/${ns}/configmaps/kept`)).body), 5);
  });

  test("a negative generation is refused where it is kept, reset where the kind tracks it", async () => {
    const refused = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("negative", -1));
    assert.equal(refused.status, 422, refused.text);
    assert.equal(
      (refused.body as { message: string }).message,
      'ConfigMap "negative" is invalid: metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    );
    const reset = await api.post(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment("reset", -1));
    assert.equal(reset.status, 201, reset.text);
    assert.equal(generationOf(reset.body), 1);
  });
});
