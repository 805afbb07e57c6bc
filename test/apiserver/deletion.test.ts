// Deletion over HTTP: finalizers and deletionTimestamp, preconditions, deletecollection with
// selectors, namespace deletion; and concurrent writers on one object.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, collect, configMap, startTarget, type Target } from "./harness.js";
import { needs } from "../support/environment.js";
import { eventually } from "controller-runtime/envtest";

let target: Target;
let api: Api;
before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

describe("deletion", () => {
  test("DELETE answers the deleted object for the kinds kube's registries return it, a Status for others", async () => {
    const ns = await api.namespace();
    await api.post(`/api/v1/namespaces/${ns}/services`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "svc1" },
      spec: { ports: [{ port: 80 }] },
    });
    const svc = await api.delete(`/api/v1/namespaces/${ns}/services/svc1`);
    assert.equal(svc.status, 200);
    assert.equal(svc.body.kind, "Service");
    assert.equal(svc.body.metadata.name, "svc1");
    // A Pod never scheduled is removed at once, through graceful deletion with a period of 0.
    await api.post(`/api/v1/namespaces/${ns}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p1" },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    });
    const pod = await api.delete(`/api/v1/namespaces/${ns}/pods/p1`);
    assert.equal(pod.status, 200);
    assert.equal(pod.body.kind, "Pod");
    assert.ok(pod.body.metadata.deletionTimestamp, "the Pod carries its deletionTimestamp");
    assert.equal(pod.body.metadata.deletionGracePeriodSeconds, 0);
    assert.equal((await api.get(`/api/v1/namespaces/${ns}/pods/p1`)).status, 404);
    await api.post(`/api/v1/namespaces/${ns}/serviceaccounts`, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "sa1" },
    });
    assert.equal(
      (await api.delete(`/api/v1/namespaces/${ns}/serviceaccounts/sa1`)).body.kind,
      "ServiceAccount",
    );
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c1"));
    const cm = await api.delete(`/api/v1/namespaces/${ns}/configmaps/c1`);
    assert.equal(cm.status, 200);
    assert.equal(cm.body.kind, "Status");
    assert.equal(cm.body.status, "Success");
    assert.equal(cm.body.details.name, "c1");
  });

  test("a Pod bound to a node is deleted gracefully: marked for its grace period, gone once deleted with 0", async () => {
    const ns = await api.namespace();
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const created = await api.post(pods, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "bound" },
      spec: { nodeName: "node-that-never-runs-it", containers: [{ name: "c", image: "nginx" }] },
    });
    assert.equal(created.status, 201, created.text);
    const before = Date.now();
    const marked = await api.delete(`${pods}/bound`);
    assert.equal(marked.status, 200, marked.text);
    assert.equal(marked.body.kind, "Pod");
    assert.equal(marked.body.metadata.deletionGracePeriodSeconds, 30);
    // deletionTimestamp is when the grace period ends (whole seconds).
    const ends = Date.parse(marked.body.metadata.deletionTimestamp);
    assert.ok(ends >= before + 28_000 && ends <= Date.now() + 31_000, marked.body.metadata.deletionTimestamp);
    const held = await api.get(`${pods}/bound`);
    assert.equal(held.status, 200, "the Pod waits for its kubelet");
    assert.equal(held.body.metadata.deletionGracePeriodSeconds, 30);

    // A longer grace period changes nothing; a shorter one shortens it; 0 deletes it.
    const longer = await api.delete(`${pods}/bound?gracePeriodSeconds=60`);
    assert.equal(longer.status, 200, longer.text);
    assert.equal(longer.body.metadata.deletionGracePeriodSeconds, 30);
    assert.equal(longer.body.metadata.resourceVersion, held.body.metadata.resourceVersion);
    const shorter = await api.delete(`${pods}/bound?gracePeriodSeconds=10`);
    assert.equal(shorter.status, 200, shorter.text);
    assert.equal(shorter.body.metadata.deletionGracePeriodSeconds, 10);
    assert.equal((await api.get(`${pods}/bound`)).status, 200);
    const gone = await api.delete(`${pods}/bound?gracePeriodSeconds=0`);
    assert.equal(gone.status, 200, gone.text);
    assert.equal(gone.body.metadata.deletionGracePeriodSeconds, 0);
    assert.equal((await api.get(`${pods}/bound`)).status, 404);
  });

  test("a finalizer keeps the object with deletionTimestamp until it is removed", async () => {
    const ns = await api.namespace();
    const path = `/api/v1/namespaces/${ns}/configmaps/f1`;
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, {
      ...configMap("f1"),
      metadata: { name: "f1", finalizers: ["example.com/f"] },
    });
    const del = await api.delete(path);
    assert.equal(del.status, 200);
    assert.equal(del.body.kind, "ConfigMap");
    assert.ok(del.body.metadata.deletionTimestamp);
    assert.equal(del.body.metadata.deletionGracePeriodSeconds, 0);
    const still = await api.get(path);
    assert.equal(still.status, 200);
    const added = await api.patch(path, { metadata: { finalizers: ["example.com/f", "example.com/new"] } });
    assert.equal(added.status, 422);
    const ac = new AbortController();
    const events = api.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${still.body.metadata.resourceVersion}`,
      ac.signal,
    );
    const cleared = await api.patch(path, { metadata: { finalizers: null } });
    assert.equal(cleared.status, 200);
    const seen = await collect(events, (s) => s.some((e) => e.type === "DELETED"));
    ac.abort();
    assert.equal(seen[seen.length - 1].type, "DELETED");
    assert.equal((await api.get(path)).status, 404);
  });

  test("a plain delete answers a Success Status with the uid", async () => {
    const ns = await api.namespace();
    const c = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("d1"));
    const del = await api.delete(`/api/v1/namespaces/${ns}/configmaps/d1`, {
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: "Background",
    });
    assert.equal(del.status, 200);
    assert.equal(del.body.kind, "Status");
    assert.equal(del.body.status, "Success");
    assert.deepEqual(del.body.details, { name: "d1", kind: "configmaps", uid: c.body.metadata.uid });
  });

  test("preconditions on uid and resourceVersion", async () => {
    const ns = await api.namespace();
    const c = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("p1"));
    const wrongUid = await api.delete(`/api/v1/namespaces/${ns}/configmaps/p1`, {
      kind: "DeleteOptions",
      apiVersion: "v1",
      preconditions: { uid: "00000000-0000-0000-0000-000000000000" },
    });
    assert.equal(wrongUid.status, 409);
    assert.equal(wrongUid.body.reason, "Conflict");
    assert.match(
      wrongUid.body.message,
      /the UID in the precondition \(00000000-0000-0000-0000-000000000000\) does not match/,
    );
    const wrongRv = await api.delete(`/api/v1/namespaces/${ns}/configmaps/p1`, {
      preconditions: { resourceVersion: "1" },
    });
    assert.equal(wrongRv.status, 409);
    const ok = await api.delete(`/api/v1/namespaces/${ns}/configmaps/p1`, {
      preconditions: { uid: c.body.metadata.uid, resourceVersion: c.body.metadata.resourceVersion },
    });
    assert.equal(ok.status, 200);
  });

  test("deletecollection deletes what the selector selects", async () => {
    const ns = await api.namespace();
    for (const [n, l] of [
      ["a", "x"],
      ["b", "x"],
      ["c", "y"],
    ]) {
      await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap(n, {}, { l }));
    }
    const r = await api.delete(`/api/v1/namespaces/${ns}/configmaps?labelSelector=l%3Dx`);
    assert.equal(r.status, 200);
    const left = await api.get(`/api/v1/namespaces/${ns}/configmaps`);
    assert.deepEqual(
      left.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["c"],
    );
  });

  test(
    "deleting a namespace deletes its objects, then the namespace",
    needs("garbage-collector"),
    async () => {
      const ns = await api.namespace();
      await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("x"));
      await api.post(`/api/v1/namespaces/${ns}/configmaps`, {
        ...configMap("held"),
        metadata: { name: "held", finalizers: ["example.com/hold"] },
      });
      const watchFrom = (await api.get(`/api/v1/namespaces?fieldSelector=metadata.name%3D${ns}`)).body
        .metadata.resourceVersion;
      const del = await api.delete(`/api/v1/namespaces/${ns}`);
      assert.equal(del.status, 200);
      assert.equal(del.body.status.phase, "Terminating");
      const refused = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("late"));
      assert.equal(refused.status, 403);
      assert.equal(refused.body.reason, "Forbidden");
      const ac = new AbortController();
      const events = api.watch(
        `/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3D${ns}&resourceVersion=${watchFrom}`,
        ac.signal,
      );
      // The held object keeps the namespace until its finalizer goes.
      let held = await api.get(`/api/v1/namespaces/${ns}/configmaps/held`);
      for (let i = 0; held.status === 200 && !held.body.metadata.deletionTimestamp && i < 50; i++) {
        held = await api.get(`/api/v1/namespaces/${ns}/configmaps/held`);
      }
      assert.ok(held.body.metadata.deletionTimestamp);
      assert.equal((await api.get(`/api/v1/namespaces/${ns}`)).status, 200);
      await api.patch(`/api/v1/namespaces/${ns}/configmaps/held`, { metadata: { finalizers: null } });
      const seen = await collect(events, (s) => s.some((e) => e.type === "DELETED"));
      ac.abort();
      assert.equal(seen[seen.length - 1].type, "DELETED");
      assert.equal((await api.get(`/api/v1/namespaces/${ns}`)).status, 404);
      assert.equal((await api.get(`/api/v1/namespaces/${ns}/configmaps/x`)).status, 404);
    },
  );
  test(
    "a namespace's Pods go first; its conditions say what remains and which finalizers hold it",
    needs("garbage-collector"),
    async () => {
      const ns = await api.namespace();
      await api.post(`/api/v1/namespaces/${ns}/pods`, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p", finalizers: ["example.com/hold"] },
        spec: { containers: [{ name: "c", image: "pause" }] },
      });
      await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c"));
      assert.equal((await api.delete(`/api/v1/namespaces/${ns}`)).status, 200);
      const conditions = async () =>
        ((await api.get(`/api/v1/namespaces/${ns}`)).body.status?.conditions ?? []) as {
          type: string;
          status: string;
          reason: string;
          message: string;
        }[];
      // While the Pod is held, nothing else is deleted, and the conditions read "ok" (kube stops
      // its pass at the Pods before counting).
      await eventually("the Pod deleted first", async () => {
        const pod = await api.get(`/api/v1/namespaces/${ns}/pods/p`);
        return pod.body.metadata?.deletionTimestamp !== undefined && (await conditions()).length === 5;
      });
      assert.equal(
        (await api.get(`/api/v1/namespaces/${ns}/configmaps/c`)).status,
        200,
        "the ConfigMap waits",
      );
      assert.deepEqual(
        (await conditions()).map((c) => [c.type, c.status, c.reason]),
        [
          ["NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered"],
          ["NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions"],
          ["NamespaceDeletionContentFailure", "False", "ContentDeleted"],
          ["NamespaceContentRemaining", "False", "ContentRemoved"],
          ["NamespaceFinalizersRemaining", "False", "ContentHasNoFinalizers"],
        ],
      );
      // A ConfigMap held by a finalizer of its own is named once the Pods are gone.
      await api.patch(`/api/v1/namespaces/${ns}/configmaps/c`, {
        metadata: { finalizers: ["example.com/keep"] },
      });
      await api.patch(`/api/v1/namespaces/${ns}/pods/p`, { metadata: { finalizers: null } });
      await eventually("the ConfigMap's finalizer named", async () => {
        const byType = new Map((await conditions()).map((c) => [c.type, c]));
        return (
          byType.get("NamespaceContentRemaining")?.message ===
            "Some resources are remaining: configmaps. has 1 resource instances" &&
          byType.get("NamespaceFinalizersRemaining")?.message ===
            "Some content in the namespace has finalizers remaining: example.com/keep in 1 resource instances"
        );
      });
      await api.patch(`/api/v1/namespaces/${ns}/configmaps/c`, { metadata: { finalizers: null } });
      await eventually(
        "the namespace gone",
        async () => (await api.get(`/api/v1/namespaces/${ns}`)).status === 404,
      );
    },
  );
});

describe("concurrency", () => {
  test("many writers on one object never lose an update: every success is visible, every loser got 409", async () => {
    const ns = await api.namespace();
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("counter", {}));
    const writers = 8;
    const rounds = 10;
    const successes: string[] = [];
    let conflicts = 0;
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < rounds; i++) {
          for (;;) {
            const cur = await api.get(`/api/v1/namespaces/${ns}/configmaps/counter`);
            const data = { ...(cur.body.data ?? {}), [`w${w}-${i}`]: "1" };
            const r = await api.put(`/api/v1/namespaces/${ns}/configmaps/counter`, { ...cur.body, data });
            if (r.status === 200) {
              successes.push(`w${w}-${i}`);
              break;
            }
            assert.equal(r.status, 409, r.text);
            assert.equal(r.body.reason, "Conflict");
            conflicts++;
          }
        }
      }),
    );
    const final = await api.get(`/api/v1/namespaces/${ns}/configmaps/counter`);
    assert.equal(successes.length, writers * rounds);
    assert.deepEqual(Object.keys(final.body.data).sort(), [...successes].sort());
    assert.ok(conflicts >= 0);
  });
});
