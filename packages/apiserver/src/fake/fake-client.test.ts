// The fake client answers as the API server answers: the same requests through the fake client and
// through a Client over HTTPS to the run's API server (embedded, or kube-apiserver with
// KUBEBUILDER_ASSETS) give the same transcript: objects (uid, timestamps and resourceVersion
// values replaced by what they stand for), errors with their codes, reasons, messages and causes.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { type KubeObject, kinds } from "controller-runtime/api";
import {
  type Client,
  applyConfiguration,
  jsonPatch,
  mergeFrom,
  newClient,
  strategicMergeFrom,
} from "controller-runtime/client";
import { defineCRD, Type } from "controller-runtime/crd";
import type { RESTConfig } from "controller-runtime/rest";
import { testEnvironment } from "../../../../test/support/environment.js";
import { type FakeClient, fakeClientBuilder } from "./index.js";

const Widget = defineCRD({
  group: "fake-parity.example.com",
  kind: "Widget",
  versions: {
    v1: {
      spec: Type.Object({
        size: Type.Integer({ minimum: 1, maximum: 10 }),
        color: Type.Optional(Type.String({ default: "blue" })),
      }),
      status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
    },
  },
});

const env = testEnvironment({ crds: [Widget.crd] });
let config: RESTConfig;
let real: Client;
let fake: FakeClient;

before(async () => {
  config = await env.start();
  real = newClient(config);
  fake = await fakeClientBuilder().withCRDs(Widget.crd).build();
});

after(async () => {
  await fake?.close();
  await real?.close();
  await env.stop();
});

/** What a step gave: the object (normalized), or the error's Status. */
type Outcome = unknown;

/**
 * Replaces what differs between two servers by nature, keeping what it means: uids and times by
 * placeholders, resourceVersions by the order in which the transcript first met them.
 */
function normalizer() {
  const versions = new Map<string, string>();
  const rv = (v: string) => {
    if (!versions.has(v)) versions.set(v, `rv#${versions.size + 1}`);
    return versions.get(v);
  };
  const walk = (v: unknown, key = ""): unknown => {
    // kube orders managedFields by operation, then the second of each entry's time, then manager,
    // apiVersion and subresource: with times replaced, entries written in different seconds on
    // one server and in the same second on the other must not compare by order.
    if (key === "managedFields" && Array.isArray(v))
      return v.map((x) => walk(x)).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, k);
      return out;
    }
    if (typeof v !== "string") return v;
    if (key === "uid") return "<uid>";
    if (key === "creationTimestamp" || key === "time" || key === "deletionTimestamp") return "<time>";
    if (key === "resourceVersion") return rv(v);
    return v;
  };
  return walk;
}

/** Runs `steps` on `client` and records each outcome. */
async function transcript(
  steps: (run: (what: string, step: () => Promise<unknown>) => Promise<unknown>) => Promise<void>,
): Promise<[string, Outcome][]> {
  const out: [string, Outcome][] = [];
  const normalize = normalizer();
  await steps(async (what, step) => {
    try {
      const value = await step();
      out.push([what, normalize(value ?? "ok")]);
      return value;
    } catch (err) {
      const status = (err as { status?: KubeObject }).status;
      if (!status) throw err;
      out.push([what, normalize({ error: status })]);
      return undefined;
    }
  });
  return out;
}

/** The same steps on both clients, in a namespace of the same name; the transcripts must match. */
async function sameAnswers(
  name: string,
  steps: (
    c: Client,
    ns: string,
    run: (what: string, step: () => Promise<unknown>) => Promise<unknown>,
  ) => Promise<void>,
): Promise<void> {
  const ns = `${name}-${randomUUID().slice(0, 8)}`;
  const run = async (c: Client) => {
    await c.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    return transcript((r) => steps(c, ns, r));
  };
  const viaServer = await run(real);
  const viaFake = await run(fake);
  assert.deepEqual(viaFake, viaServer);
  // The steps went as their names say: those named "(409)" failed with 409, the others passed.
  for (const [what, outcome] of viaServer) {
    const code = (outcome as { error?: { code?: number } }).error?.code;
    assert.equal(
      code,
      Number(/\((\d{3})\)$/.exec(what)?.[1]) || undefined,
      `${what}: ${JSON.stringify(outcome)}`,
    );
  }
}

const cm = (namespace: string, name: string, data: Record<string, string>, labels?: Record<string, string>) =>
  ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels }, data }) as ConfigMap;

function deployment(namespace: string, name: string, replicas: number): Deployment {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "app", image: "nginx:1.27" }] } },
    },
  };
}

describe("the fake client answers as the API server", () => {
  test("create, get, update, a stale update (409), patches of every type, apply, delete", async () => {
    await sameAnswers("verbs", async (c, ns, run) => {
      const created = (await run("create", () => c.create(cm(ns, "a", { k: "v" })))) as ConfigMap;
      const read = (await run("get", () =>
        c.get(kinds.ConfigMap, { namespace: ns, name: "a" }),
      )) as ConfigMap;
      await run("update", () => c.update({ ...read, data: { k: "v2" } }));
      await run("update with a stale resourceVersion (409)", () =>
        c.update({ ...created, data: { k: "v3" } }),
      );
      const current = (await c.get(kinds.ConfigMap, { namespace: ns, name: "a" })) as ConfigMap;
      await run("merge patch", () =>
        c.patch({ ...current, data: { ...current.data, m: "1" } }, mergeFrom(current)),
      );
      await run("json patch", () =>
        c.patch(current, jsonPatch([{ op: "add", path: "/data/j", value: "2" }])),
      );
      const before = (await c.get(kinds.ConfigMap, { namespace: ns, name: "a" })) as ConfigMap;
      await run("strategic merge patch", () =>
        c.patch(
          { ...before, metadata: { ...before.metadata, labels: { tier: "web" } } },
          strategicMergeFrom(before),
        ),
      );
      const applied = applyConfiguration(kinds.ConfigMap, {
        metadata: { name: "b", namespace: ns },
        data: { owned: "by-one" },
      });
      await run("apply (create)", () => c.apply(applied, { fieldOwner: "one" }));
      await run("apply of a field another manager owns (409)", () =>
        c.apply({ ...applied, data: { owned: "by-two" } }, { fieldOwner: "two" }),
      );
      await run("apply, forced", () =>
        c.apply({ ...applied, data: { owned: "by-two" } }, { fieldOwner: "two", force: true }),
      );
      await run("create of a taken name (409)", () => c.create(cm(ns, "b", {})));
      await run("delete", () => c.delete(current));
      await run("get of the deleted (404)", () => c.get(kinds.ConfigMap, { namespace: ns, name: "a" }));
      await run("delete of the deleted (404)", () => c.delete(current));
    });
  });

  test("defaulting and validation (422) of a Deployment and a ConfigMap", async () => {
    await sameAnswers("validation", async (c, ns, run) => {
      await run("a Deployment, defaulted", () => c.create(deployment(ns, "web", 2)));
      const bad = deployment(ns, "bad", -1);
      bad.spec!.selector = { matchLabels: { other: "x" } };
      await run("an invalid Deployment (422)", () => c.create(bad));
      await run("an invalid name (422)", () => c.create(cm(ns, "Not_A_Name", {})));
      await run("a ConfigMap in a namespace that does not exist (404)", () =>
        c.create(cm(`${ns}-missing`, "x", {})),
      );
    });
  });

  test("the status subresource: update ignores status, status().update and patch write only it", async () => {
    await sameAnswers("status", async (c, ns, run) => {
      const d = (await run("create", () => c.create(deployment(ns, "web", 1)))) as Deployment;
      await run("update carrying a status: ignored, generation unchanged", () =>
        c.update({ ...d, status: { replicas: 5, observedGeneration: 7 } }),
      );
      const now = (await c.get(kinds.Deployment, { namespace: ns, name: "web" })) as Deployment;
      await run("status().update", () =>
        c.status().update({ ...now, status: { replicas: 1, readyReplicas: 1 } }),
      );
      const after = (await c.get(kinds.Deployment, { namespace: ns, name: "web" })) as Deployment;
      await run("status().patch (merge)", () =>
        c.status().patch({ ...after, status: { ...after.status, availableReplicas: 1 } }, mergeFrom(after)),
      );
      const latest = (await c.get(kinds.Deployment, { namespace: ns, name: "web" })) as Deployment;
      await run("update of the spec: generation bumped", () =>
        c.update({ ...latest, spec: { ...latest.spec!, replicas: 3 } }),
      );
      await run("update from before the status writes (409)", () =>
        c.update({ ...after, spec: { ...after.spec!, replicas: 4 } }),
      );
    });
  });

  test("a custom resource of a CRD: defaults, schema validation, its status subresource", async () => {
    await sameAnswers("crd", async (c, ns, run) => {
      const w = (await run("create, defaulted, status dropped", () =>
        c.create({
          apiVersion: Widget.apiVersion,
          kind: Widget.kind,
          metadata: { name: "w", namespace: ns },
          spec: { size: 3 },
          status: { ready: true },
        }),
      )) as KubeObject;
      await run("an invalid spec (422)", () =>
        c.create({
          apiVersion: Widget.apiVersion,
          kind: Widget.kind,
          metadata: { name: "too-big", namespace: ns },
          spec: { size: 11 },
        }),
      );
      await run("status().update", () => c.status().update({ ...w, status: { ready: true } }));
      await run("get", () => c.get(Widget, { namespace: ns, name: "w" }));
      await run("list", async () => (await c.list(Widget, { inNamespace: ns })).items);
    });
  });

  test("lists by labels and fields, and a field selector the server does not know (400)", async () => {
    await sameAnswers("selectors", async (c, ns, run) => {
      await c.create(cm(ns, "a", {}, { app: "web", tier: "front" }));
      await c.create(cm(ns, "b", {}, { app: "web", tier: "back" }));
      await c.create(cm(ns, "c", {}, { app: "db" }));
      const names = async (p: Promise<{ items: readonly KubeObject[] }>) =>
        (await p).items.map((i) => i.metadata?.name);
      await run("matchingLabels", () =>
        names(c.list(kinds.ConfigMap, { inNamespace: ns, matchingLabels: { app: "web" } })),
      );
      await run("labelSelector", () =>
        names(c.list(kinds.ConfigMap, { inNamespace: ns, labelSelector: "app in (web,db),tier!=back" })),
      );
      await run("matchingFields on metadata.name", () =>
        names(c.list(kinds.ConfigMap, { inNamespace: ns, matchingFields: { "metadata.name": "b" } })),
      );
      await run("fieldSelector !=", () =>
        names(c.list(kinds.ConfigMap, { inNamespace: ns, fieldSelector: "metadata.name!=a" })),
      );
      await run("a field the server cannot select on (400)", () =>
        names(c.list(kinds.ConfigMap, { inNamespace: ns, fieldSelector: "data.x=1" })),
      );
      await run(
        "items of a whole list",
        async () => (await c.list(kinds.ConfigMap, { inNamespace: ns })).items,
      );
      await run("deleteAllOf by label", () =>
        c.deleteAllOf(kinds.ConfigMap, { inNamespace: ns, matchingLabels: { app: "web" } }),
      );
      await run("what is left", () => names(c.list(kinds.ConfigMap, { inNamespace: ns })));
    });
  });
});

describe("the fake client's own", () => {
  test("withObjects: created through the server (defaulted), their namespaces made, their status written", async () => {
    const ns = `seeded-${randomUUID().slice(0, 8)}`;
    const d = deployment(ns, "web", 2);
    d.status = { replicas: 2, readyReplicas: 2 };
    const c = await fakeClientBuilder()
      .withObjects(d, {
        ...cm(ns, "c", { k: "v" }),
        metadata: { name: "c", namespace: ns, resourceVersion: "999" },
      })
      .build();
    try {
      const got = await c.get(kinds.Deployment, { namespace: ns, name: "web" });
      assert.equal(got.spec?.strategy?.type, "RollingUpdate", "defaulted by the server");
      assert.deepEqual(got.status, { replicas: 2, readyReplicas: 2 });
      assert.equal((await c.get(kinds.Namespace, { name: ns })).status?.phase, "Active");
      assert.deepEqual((await c.get(kinds.ConfigMap, { namespace: ns, name: "c" })).data, { k: "v" });
    } finally {
      await c.close();
    }
  });

  test("withObjects: an invalid object fails build() naming it and the server's answer", async () => {
    await assert.rejects(
      fakeClientBuilder()
        .withObjects(deployment("default", "bad", -1))
        .build(),
      (err: Error) => {
        assert.match(err.message, /the object Deployment default\/bad could not be created/);
        assert.match(err.message, /spec\.replicas: Invalid value: -1/);
        return true;
      },
    );
  });

  test("withIndex: matchingFields on an indexed field lists as the Manager's cache does", async () => {
    const c = await fakeClientBuilder()
      .withObjects(
        cm("default", "a", { owner: "x" }),
        cm("default", "b", { owner: "y" }),
        cm("default", "c", { owner: "x" }),
      )
      .withIndex(kinds.ConfigMap, "data.owner", (o) => (o.data?.owner ? [o.data.owner] : []))
      .build();
    try {
      const names = async (opts: Parameters<Client["list"]>[1]) =>
        (await c.list(kinds.ConfigMap, opts)).items.map((i) => i.metadata?.name);
      assert.deepEqual(await names({ inNamespace: "default", matchingFields: { "data.owner": "x" } }), [
        "a",
        "c",
      ]);
      assert.deepEqual(
        await names({ inNamespace: "default", matchingFields: { "data.owner": "x", "metadata.name": "c" } }),
        ["c"],
        "the indexed term here, the other at the server",
      );
      assert.deepEqual(await names({ fieldSelector: "data.owner=y" }), ["b"]);
      await assert.rejects(c.list(kinds.ConfigMap, { fieldSelector: "data.owner!=y" }), /exact matches only/);
      assert.throws(
        () =>
          fakeClientBuilder()
            .withIndex(kinds.ConfigMap, "f", () => [])
            .withIndex(kinds.ConfigMap, "f", () => []),
        /already indexed by "f"/,
      );
    } finally {
      await c.close();
    }
  });

  test("watch: events of the fake's writes, and return() ends it", async () => {
    const c = await fakeClientBuilder().build();
    try {
      const w = await c.watch(kinds.ConfigMap, { inNamespace: "default" });
      await c.create(cm("default", "w", {}));
      const first = await w.next();
      assert.equal(first.value?.type, "ADDED");
      assert.equal(first.value?.object.metadata?.name, "w");
      await c.delete(cm("default", "w", {}));
      assert.equal((await w.next()).value?.type, "DELETED");
      await w.return();
      assert.equal((await w.next()).done, true);
    } finally {
      await c.close();
    }
  });

  test("a watch aborted by its signal ends with the signal's reason", async () => {
    const c = await fakeClientBuilder().build();
    try {
      const ctl = new AbortController();
      const w = await c.watch(kinds.ConfigMap, { inNamespace: "default", signal: ctl.signal });
      const next = w.next();
      ctl.abort(new Error("enough"));
      await assert.rejects(next, /enough/);
    } finally {
      await c.close();
    }
  });
});

test("a Service gets its ClusterIP from the default ServiceCIDR, as on a serving server", async () => {
  const fake = await fakeClientBuilder().build();
  try {
    const svc = (await fake.create({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default" },
      spec: { ports: [{ port: 80 }] },
    } as KubeObject)) as KubeObject & { spec: { clusterIP: string } };
    assert.match(svc.spec.clusterIP, /^10\.0\.0\.\d+$/);
  } finally {
    await fake.close();
  }
});
