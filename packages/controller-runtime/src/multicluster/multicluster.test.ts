// One Manager reconciling objects of two clusters, as multicluster-runtime shapes it, against two
// API servers (two envtest environments: in KUBEBUILDER_ASSETS mode two kube-apiservers): the
// provider engages clusters by name, before or after the Manager starts; the controller's
// requests carry the cluster's name; a removed cluster is disengaged; field indexes reach every
// cluster, present and future.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { newCluster } from "../cluster/index.js";
import { eventually } from "../envtest/index.js";
import { nullLogger } from "../log/index.js";
import { newPredicateFuncs } from "../predicate/index.js";
import { newRESTClient, type RESTClient, type RESTConfig, resourceOf } from "../rest/index.js";
import {
  ClusterNotFoundError,
  type ClusterRequest,
  clusterRequestCodec,
  multiclusterControllerManagedBy,
  newClustersProvider,
  newMulticlusterManager,
} from "./index.js";
import { configMap, newNamespace } from "../../../../test/support/objects.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const CM = resourceOf(kinds.ConfigMap);
const east = testEnvironment();
const west = testEnvironment();
let eastConfig: RESTConfig;
let westConfig: RESTConfig;
let eastRest: RESTClient;
let westRest: RESTClient;

before(async () => {
  [eastConfig, westConfig] = await Promise.all([east.start(), west.start()]);
  eastRest = newRESTClient(eastConfig);
  westRest = newRESTClient(westConfig);
});
after(async () => {
  await Promise.all([eastRest.close(), westRest.close()]);
  await Promise.all([east.stop(), west.stop()]);
});

const quiet = { logger: nullLogger(), metrics: { bindAddress: "0" } };

test("cluster requests round-trip through work queue keys", () => {
  for (const req of [
    { clusterName: "east", namespace: "ns", name: "a" },
    { clusterName: "kind/west:1", namespace: "", name: "node-1" },
    { clusterName: "", namespace: "ns", name: "local" },
  ]) {
    assert.deepEqual(clusterRequestCodec.fromKey(clusterRequestCodec.toKey(req)), req);
  }
  assert.equal(
    clusterRequestCodec.toKey({ clusterName: "east", namespace: "ns", name: "a" }),
    "cluster://east/ns/a",
  );
});

test("a multi-cluster controller reconciles each cluster's objects, engaged before and after start, until removed", async () => {
  // The same namespace on both servers, so that one request shape fits either.
  const ns = await newNamespace(eastRest, "mc");
  await westRest.create(resourceOf(kinds.Namespace), { metadata: { name: ns } });
  const provider = newClustersProvider();
  const mgr = await newMulticlusterManager(eastConfig, provider, quiet);
  const seen: ClusterRequest[] = [];
  const controller = multiclusterControllerManagedBy(mgr)
    .for(kinds.ConfigMap, { predicates: [newPredicateFuncs((o) => o.metadata?.namespace === ns)] })
    .build({
      async reconcile(req) {
        seen.push(req);
        const cluster = await mgr.getCluster(req.clusterName).catch((err: unknown) => {
          if (err instanceof ClusterNotFoundError) return undefined; // it left meanwhile
          throw err;
        });
        if (!cluster || req.name.startsWith("seen-")) return {};
        const cm = await cluster
          .getClient()
          .get<ConfigMap>(kinds.ConfigMap, req)
          .catch(() => undefined);
        if (!cm) return {};
        await cluster
          .getClient()
          .create(configMap(ns, `seen-${req.name}`, { cluster: req.clusterName }))
          .catch((err: { code?: number }) => {
            if (err.code !== 409) throw err;
          });
        return {};
      },
    });
  void provider.add("east", newCluster(eastConfig));
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  try {
    await mgr.elected();
    await eastRest.create(CM, configMap(ns, "one"), { namespace: ns });
    const seenIn = async (rest: RESTClient, name: string) =>
      (await rest.get<ConfigMap>(CM, name, { namespace: ns }).catch(() => undefined))?.data?.cluster;
    await eventually(
      "east's ConfigMap reconciled in east",
      async () => (await seenIn(eastRest, "seen-one")) === "east",
    );
    // A cluster added while the Manager runs is engaged at once.
    await provider.add("west", newCluster(westConfig));
    assert.deepEqual(mgr.engagedClusters(), ["east", "west"]);
    await westRest.create(CM, configMap(ns, "two"), { namespace: ns });
    await eventually(
      "west's ConfigMap reconciled in west",
      async () => (await seenIn(westRest, "seen-two")) === "west",
    );
    assert.equal(await seenIn(eastRest, "seen-two"), undefined, "west's object is not east's");
    assert.ok(seen.some((r) => r.clusterName === "east" && r.name === "one"));
    assert.ok(seen.some((r) => r.clusterName === "west" && r.name === "two"));
    // The local cluster is the Manager's own; unknown names say so.
    assert.equal(await mgr.getCluster(""), mgr.getLocalManager());
    await assert.rejects(mgr.getCluster("north"), {
      name: "ClusterNotFoundError",
      message: /"north".*"east", "west"/,
    });
    // Removing a cluster disengages it: its later objects are not reconciled, the others' still are.
    assert.equal(provider.remove("west"), true);
    await eventually("west disengaged", () => !controller.engagedClusters().includes("west"));
    assert.deepEqual(mgr.engagedClusters(), ["east"]);
    await westRest.create(CM, configMap(ns, "late"), { namespace: ns });
    await eastRest.create(CM, configMap(ns, "after"), { namespace: ns });
    await eventually("east still reconciled", async () => (await seenIn(eastRest, "seen-after")) === "east");
    assert.ok(!seen.some((r) => r.name === "late"), "west's object after its removal was not reconciled");
  } finally {
    stop.abort();
    await running;
  }
});

test("field indexes reach every cluster of the provider, those engaged later too", async () => {
  const ns = await newNamespace(eastRest, "mc-index");
  await westRest.create(resourceOf(kinds.Namespace), { metadata: { name: ns } });
  await eastRest.create(CM, configMap(ns, "e", { team: "blue" }), { namespace: ns });
  await westRest.create(CM, configMap(ns, "w", { team: "blue" }), { namespace: ns });
  const provider = newClustersProvider();
  const mgr = await newMulticlusterManager(eastConfig, provider, quiet);
  void provider.add("east", newCluster(eastConfig, { cache: { defaultNamespaces: [ns] } }));
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  try {
    await eventually("east engaged", () => mgr.engagedClusters().includes("east"));
    await mgr
      .getFieldIndexer()
      .indexField(kinds.ConfigMap, "data.team", (o) => (o.data?.team ? [o.data.team] : []));
    await provider.add("west", newCluster(westConfig, { cache: { defaultNamespaces: [ns] } }));
    for (const [name, expected] of [
      ["east", "e"],
      ["west", "w"],
    ]) {
      const cluster = await mgr.getCluster(name);
      const list = await cluster
        .getCache()
        .list(kinds.ConfigMap, { matchingFields: { "data.team": "blue" } });
      assert.deepEqual(
        list.items.map((o) => o.metadata?.name),
        [expected],
        `${name}'s cache answers the index`,
      );
    }
  } finally {
    stop.abort();
    await running;
  }
});
