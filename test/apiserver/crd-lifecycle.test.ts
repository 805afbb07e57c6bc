// CustomResourceDefinitions over their life: names defaulted before they are stored, a name
// another CRD of the group holds is not accepted (and the CRD is not served until it is freed),
// and deleting a CRD deletes its objects and its discovery entry.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { newRESTClient } from "controller-runtime/rest";
import { needs, testEnvironment } from "../support/environment.js";
import { Api, CRDS, customResourceDefinition, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

function crd(group: string, plural: string, kind: string, extra: Record<string, unknown> = {}) {
  return customResourceDefinition(group, { kind, plural, ...extra });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls until `check` returns a value, for up to 30 s: kube-apiserver's controllers (CRD
 * registration, finalizers) take several seconds on a loaded 2-core machine.
 */
async function eventually<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() >= deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: conditions are plain JSON
const condition = (obj: any, type: string) => obj?.status?.conditions?.find((c: any) => c.type === type);

const uniqueGroup = (p: string) =>
  `${p}${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}.example.com`;

describe("CRD names", () => {
  test("singular and listKind are defaulted in what is stored", async () => {
    const group = uniqueGroup("names");
    const r = await api.post(CRDS, crd(group, "sprockets", "Sprocket"));
    assert.equal(r.status, 201);
    assert.equal(r.body.spec.names.singular, "sprocket");
    assert.equal(r.body.spec.names.listKind, "SprocketList");
    // The create answers the status kube's strategy starts with: the storage version only.
    assert.deepEqual(r.body.status, {
      conditions: null,
      acceptedNames: { plural: "", kind: "" },
      storedVersions: [r.body.spec.versions.find((v: { storage: boolean }) => v.storage).name],
    });
    const accepted = await eventually(async () => {
      const got = await api.get(`${CRDS}/sprockets.${group}`);
      return condition(got.body, "Established")?.status === "True" ? got.body : undefined;
    }, "Established");
    assert.deepEqual(accepted.status.acceptedNames, {
      plural: "sprockets",
      singular: "sprocket",
      kind: "Sprocket",
      listKind: "SprocketList",
    });
    await api.delete(`${CRDS}/sprockets.${group}`);
  });

  test("a kind another CRD of the group uses is not accepted until that CRD goes", async () => {
    const group = uniqueGroup("clash");
    assert.equal((await api.post(CRDS, crd(group, "cogs", "Cog"))).status, 201);
    await eventually(async () => {
      const got = await api.get(`${CRDS}/cogs.${group}`);
      return condition(got.body, "Established")?.status === "True" ? true : undefined;
    }, "the first CRD established");

    assert.equal((await api.post(CRDS, crd(group, "gears", "Cog", { singular: "gear" }))).status, 201);
    const refused = await eventually(async () => {
      const got = await api.get(`${CRDS}/gears.${group}`);
      return condition(got.body, "NamesAccepted") ? got.body : undefined;
    }, "NamesAccepted on the second CRD");
    assert.equal(condition(refused, "NamesAccepted").status, "False");
    // Kind and list kind both clash; kube checks every name and reports the last conflict.
    assert.equal(condition(refused, "NamesAccepted").reason, "ListKindConflict");
    assert.equal(condition(refused, "NamesAccepted").message, '"CogList" is already in use');
    assert.equal(condition(refused, "Established").status, "False");
    assert.equal((await api.get(`/apis/${group}/v1/gears`)).status, 404);

    await api.delete(`${CRDS}/cogs.${group}`);
    await eventually(async () => {
      const got = await api.get(`${CRDS}/gears.${group}`);
      return condition(got.body, "Established")?.status === "True" ? true : undefined;
    }, "the second CRD established once the first is gone");
    await eventually(
      async () => ((await api.get(`/apis/${group}/v1/gears`)).status === 200 ? true : undefined),
      "served",
    );
    await api.delete(`${CRDS}/gears.${group}`);
  });
});

describe("CRD deletion", () => {
  test("deleting a CRD deletes its objects and removes it from discovery", async () => {
    const group = uniqueGroup("del");
    assert.equal((await api.post(CRDS, crd(group, "widgets", "Widget"))).status, 201);
    const ns = await api.namespace("crd");
    const path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    await eventually(async () => {
      const r = await api.post(path, { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "w1" } });
      return r.status === 201 ? true : undefined;
    }, "a custom object created");
    await api.post(path, { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "w2" } });
    // kube-apiserver updates its discovery documents apart from serving the resource: wait for them.
    const listed = async () =>
      (await api.get("/apis")).body.groups.some((g: { name: string }) => g.name === group);
    await eventually(async () => ((await listed()) ? true : undefined), "the group in discovery");

    assert.equal((await api.delete(`${CRDS}/widgets.${group}`)).status, 200);
    await eventually(
      async () => ((await api.get(`${CRDS}/widgets.${group}`)).status === 404 ? true : undefined),
      "the CRD gone",
    );
    await eventually(
      async () =>
        (await api.get(`/apis/${group}/v1`)).status === 404 && !(await listed()) ? true : undefined,
      "the group gone from discovery",
    );

    // Created again, the resource starts empty: the old objects went with the CRD.
    assert.equal((await api.post(CRDS, crd(group, "widgets", "Widget"))).status, 201);
    const list = await eventually(async () => {
      const r = await api.get(path);
      return r.status === 200 ? r.body : undefined;
    }, "served again");
    assert.deepEqual(list.items, []);
    await api.delete(`${CRDS}/widgets.${group}`);
  });
});

describe("CRD versions", () => {
  test("a CRD whose only version is not served is accepted, and served once the version is", async () => {
    const group = uniqueGroup("unserved");
    const body = crd(group, "latches", "Latch");
    body.spec.versions[0].served = false;
    const created = await api.post(CRDS, body);
    assert.equal(created.status, 201, created.text);
    await eventually(async () => {
      const got = await api.get(`${CRDS}/latches.${group}`);
      return condition(got.body, "Established")?.status === "True" ? true : undefined;
    }, "Established");
    assert.equal((await api.get(`/apis/${group}/v1/latches`)).status, 404);

    const served = await api.patch(
      `${CRDS}/latches.${group}`,
      [{ op: "replace", path: "/spec/versions/0/served", value: true }],
      "application/json-patch+json",
    );
    assert.equal(served.status, 200, served.text);
    await eventually(
      async () => ((await api.get(`/apis/${group}/v1/latches`)).status === 200 ? true : undefined),
      "the version served",
    );
    await api.delete(`${CRDS}/latches.${group}`);
  });
});

test(
  "crdEstablishDelayMs serves a new CRD a while later, as kube-apiserver does",
  needs("server-options"),
  async () => {
    const env = testEnvironment({ apiServer: { crdEstablishDelayMs: 400 } });
    const client = newRESTClient(await env.start());
    try {
      const group = uniqueGroup("late");
      await client.request({ method: "POST", path: CRDS, body: crd(group, "lanterns", "Lantern") });
      const path = `/apis/${group}/v1/namespaces/default/lanterns`;
      const first = await client.request({ method: "GET", path }).then(
        () => 200,
        (e: unknown) => (e as { statusCode?: number }).statusCode,
      );
      assert.equal(
        first,
        404,
        "served at once: a test that does not wait would pass here and fail on a cluster",
      );
      await eventually(
        async () =>
          (await client.request({ method: "GET", path }).then(
            () => true,
            () => undefined,
          )) ?? undefined,
        "the CRD served",
      );
    } finally {
      await client.close();
      await env.stop();
    }
  },
);

test("a CRD's group version gets a local APIService, gone with the CRD", async () => {
  const group = uniqueGroup("registered");
  assert.equal((await api.post(CRDS, crd(group, "beacons", "Beacon"))).status, 201);
  const path = `/apis/apiregistration.k8s.io/v1/apiservices/v1.${group}`;
  const registered = await eventually(async () => {
    const r = await api.get(path);
    return r.status === 200 ? r.body : undefined;
  }, "the APIService");
  assert.deepEqual(registered.metadata.labels, { "kube-aggregator.kubernetes.io/automanaged": "true" });
  assert.deepEqual(registered.spec, {
    group,
    version: "v1",
    groupPriorityMinimum: 1000,
    versionPriority: 100,
  });
  assert.equal((await api.delete(`${CRDS}/beacons.${group}`)).status, 200);
  await eventually(
    async () => ((await api.get(path)).status === 404 ? true : undefined),
    "the APIService gone",
  );
});

test("objects stored before a schema change are read as the new schema decodes them: defaults added, dropped fields pruned", async () => {
  const group = uniqueGroup("decoded");
  const schema = (props: object) => ({
    type: "object",
    properties: { spec: { type: "object", properties: props } },
  });
  const v1 = crd(group, "dials", "Dial");
  v1.spec.versions[0].schema.openAPIV3Schema = schema({ a: { type: "string" }, b: { type: "string" } });
  assert.equal((await api.post(CRDS, v1)).status, 201);
  const path = `/apis/${group}/v1/namespaces/default/dials`;
  await eventually(async () => ((await api.get(path)).status === 200 ? true : undefined), "the CRD served");
  const created = await api.post(path, {
    apiVersion: `${group}/v1`,
    kind: "Dial",
    metadata: { name: "d1" },
    spec: { a: "x", b: "y" },
  });
  assert.equal(created.status, 201, created.text);

  const current = (await api.get(`${CRDS}/dials.${group}`)).body;
  current.spec.versions[0].schema.openAPIV3Schema = schema({
    a: { type: "string" },
    c: { type: "string", default: "dc" },
  });
  assert.equal((await api.put(`${CRDS}/dials.${group}`, current)).status, 200);
  const read = await eventually(async () => {
    const r = await api.get(`${path}/d1`);
    return r.body?.spec?.c === "dc" ? r.body : undefined;
  }, "the default on the stored object");
  assert.deepEqual(read.spec, { a: "x", c: "dc" });
  assert.equal(read.metadata.resourceVersion, created.body.metadata.resourceVersion, "a read, not a write");
  // kube-apiserver (1.31+) rebuilds the resource's watch cache after a CRD change and, until it is
  // ready, may answer a list 429 "storage is (re)initializing", as clients retry after a while.
  const list = await eventually(async () => {
    const r = await api.get(path);
    return r.status === 200 ? r.body : undefined;
  }, "the list served by the new schema");
  const listed = list.items.find((i: { metadata: { name: string } }) => i.metadata.name === "d1");
  assert.deepEqual(listed.spec, { a: "x", c: "dc" });
  await api.delete(`${CRDS}/dials.${group}`);
});
