// A Cluster against two API servers (two envtest environments: in KUBEBUILDER_ASSETS mode two
// kube-apiservers): standalone, its cache, clients and Event recorder read and write its own
// server; added to a Manager of the other, it starts with the Manager's caches, and a controller
// of the Manager watches it through `source.kind(cluster.getCache(), ...)`.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap, Event } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { controllerManagedBy } from "../builder/index.js";
import { eventually } from "../envtest/index.js";
import { enqueueRequestForObject } from "../handler/index.js";
import { newCache } from "../cache/index.js";
import { newClient } from "../client/index.js";
import { newRESTMapper } from "../mapper/index.js";
import { nullLogger } from "../log/index.js";
import { Manager } from "../manager/index.js";
import { isNotFound, newRESTClient, type RESTClient, type RESTConfig } from "../rest/index.js";
import { kind } from "../source/index.js";
import { newCluster } from "./index.js";
import { configMap, newNamespace } from "../../../../test/support/objects.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const home = testEnvironment();
const away = testEnvironment();
let homeConfig: RESTConfig;
let awayConfig: RESTConfig;
let homeRest: RESTClient;
let awayRest: RESTClient;

before(async () => {
  [homeConfig, awayConfig] = await Promise.all([home.start(), away.start()]);
  homeRest = newRESTClient(homeConfig);
  awayRest = newRESTClient(awayConfig);
});
after(async () => {
  await Promise.all([homeRest.close(), awayRest.close()]);
  await Promise.all([home.stop(), away.stop()]);
});

test("a cluster started on its own reads through its cache and writes to its server", async () => {
  const ns = await newNamespace(awayRest, "cluster");
  await awayRest.create(
    { group: "", version: "v1", resource: "configmaps" },
    configMap(ns, "there", { k: "v" }),
    {
      namespace: ns,
    },
  );
  const cluster = newCluster(awayConfig);
  const stop = new AbortController();
  const running = cluster.start(stop.signal);
  try {
    assert.equal(cluster.getConfig(), awayConfig);
    assert.equal(cluster.needLeaderElection(), false);
    const cm = await cluster.getClient().get(kinds.ConfigMap, { namespace: ns, name: "there" });
    assert.deepEqual(cm.data, { k: "v" });
    assert.equal(await cluster.getCache().waitForCacheSync(AbortSignal.timeout(30_000)), true);
    await cluster.getClient().create(configMap(ns, "written"));
    const read = await cluster.getAPIReader().get(kinds.ConfigMap, { namespace: ns, name: "written" });
    assert.equal(read.metadata?.name, "written");
    const mapping = await cluster.getRESTMapper().restMapping({ group: "apps", kind: "Deployment" });
    assert.equal(mapping.resource.resource, "deployments");
    cluster
      .getEventRecorder("cluster-test")
      .eventf(read, undefined, "Normal", "Seen", "Check", "seen %s", "it");
    await eventually("the Event on the cluster's server", async () => {
      const events = await awayRest.list(
        { group: "events.k8s.io", version: "v1", resource: "events" },
        { namespace: ns },
      );
      return events.items.some((e) => (e as { reason?: string }).reason === "Seen");
    });
    // The other server has none of it.
    const elsewhere = await homeRest
      .get({ group: "", version: "v1", resource: "configmaps" }, "written", { namespace: ns })
      .catch((e: unknown) => e);
    assert.ok(isNotFound(elsewhere));
    assert.match(
      await cluster.getMetricsRegistry().metrics(),
      /rest_client_requests_total\{code="201",method="POST"/,
      "its requests are counted in its registry",
    );
  } finally {
    stop.abort();
    await running;
  }
  await assert.rejects(cluster.start(new AbortController().signal), /already called/);
});

test("a cluster added to a Manager starts with its caches; a controller reconciles the other cluster's objects", async () => {
  const ns = await newNamespace(awayRest, "away");
  await homeRest.create({ group: "", version: "v1", resource: "namespaces" }, { metadata: { name: ns } });
  const mgr = await Manager.create(homeConfig, { logger: nullLogger(), metrics: { bindAddress: "0" } });
  const cluster = newCluster(awayConfig, {
    cache: { defaultNamespaces: [ns] },
    metricsRegistry: mgr.getMetricsRegistry(),
  });
  mgr.add(cluster);
  await cluster.getCache().getInformer(kinds.ConfigMap, { blockUntilSynced: false });
  let syncedWhenElected = false;
  // Copies each ConfigMap of the away cluster into the home cluster.
  controllerManagedBy(mgr)
    .named("mirror")
    .watches(kind(cluster.getCache(), kinds.ConfigMap, enqueueRequestForObject()))
    .complete({
      async reconcile(req) {
        const src = await cluster
          .getClient()
          .get<ConfigMap>(kinds.ConfigMap, req)
          .catch(() => undefined);
        if (!src) return {};
        await mgr
          .getClient()
          .create(configMap(req.namespace, req.name, { ...src.data, from: "away" }))
          .catch((err: { code?: number }) => {
            if (err.code !== 409) throw err;
          });
        return {};
      },
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  try {
    await mgr.elected();
    syncedWhenElected = cluster.getCache().hasSynced();
    await awayRest.create(
      { group: "", version: "v1", resource: "configmaps" },
      configMap(ns, "copied", { a: "1" }),
      {
        namespace: ns,
      },
    );
    await eventually("the ConfigMap copied to the home cluster", async () => {
      const got = await homeRest
        .get<ConfigMap>({ group: "", version: "v1", resource: "configmaps" }, "copied", { namespace: ns })
        .catch(() => undefined);
      return got?.data?.from === "away" && got.data.a === "1";
    });
    assert.equal(syncedWhenElected, true, "the cluster's cache synced before the controllers started");
    const metrics = await mgr.getMetricsRegistry().metrics();
    assert.ok(
      metrics.includes(`host="${new URL(awayConfig.host).host}"`),
      "the away cluster's requests are on the Manager's /metrics",
    );
  } finally {
    stop.abort();
    await running;
  }
});

test("newCache, newClient and mapperProvider replace a part, given the cluster's others", async () => {
  const made: string[] = [];
  const mgr = await Manager.create(homeConfig, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    mapperProvider: (_config, rest) => {
      made.push("mapper");
      return newRESTMapper(rest);
    },
    newCache: (config, opts) => {
      made.push(`cache with ${opts.restClient ? "the REST client" : "none"}`);
      return newCache(config, opts);
    },
    newClient: (config, opts) => {
      made.push(`client reading ${opts.cache ? "the cache" : "the server"}`);
      return newClient(config, opts);
    },
  });
  assert.deepEqual(made, ["mapper", "cache with the REST client", "client reading the cache"]);
  assert.equal(mgr.getRESTMapper(), mgr.getRESTMapper());
});

test("eventBroadcaster sends the Manager's Events where it says", async () => {
  const sent: Event[] = [];
  const mgr = await Manager.create(homeConfig, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    eventBroadcaster: {
      host: "node-7",
      sink: {
        create: async (e) => {
          sent.push(e);
          return e;
        },
        patch: async (e) => e,
      },
    },
  });
  const cm = configMap("default", "evented");
  mgr.getEventRecorderFor("broadcaster-test").event(cm, "Normal", "Seen", "by the sink");
  await eventually("the Event in the sink", () => sent.length === 1);
  assert.equal(sent[0].reason, "Seen");
  assert.equal(sent[0].source?.host, "node-7");
});
