import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { request } from "undici";
import { kinds } from "../api/index.js";
import { eventually } from "../envtest/index.js";
import { nullLogger } from "../log/index.js";
import type { RESTConfig } from "../rest/config.js";
import { ManagerOptionsError, ShutdownTimeoutError } from "./index.js";
import { Manager, type ManagerOptions } from "./index.js";
import { aborted, runnableFunc } from "./runnable.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const env = testEnvironment();
let config: RESTConfig;
before(async () => {
  config = await env.start();
});
after(() => env.stop());

const quiet: ManagerOptions = { logger: nullLogger(), metrics: { bindAddress: "0" } };

function recorder() {
  const events: string[] = [];
  const runnable = (name: string, needLeaderElection: boolean) =>
    runnableFunc(
      async (signal) => {
        events.push(`start ${name}`);
        await aborted(signal);
        events.push(`stop ${name}`);
      },
      { needLeaderElection },
    );
  return { events, runnable };
}

test("runnables start in controller-runtime's group order and stop in reverse", async () => {
  const mgr = await Manager.create(config, { ...quiet, healthProbeBindAddress: "127.0.0.1:0" });
  const { events, runnable } = recorder();
  let cacheSyncedWhenOthersStarted = false;
  let probesListeningWhenOthersStarted = false;
  mgr.add(runnable("leader", true));
  mgr.add(
    runnableFunc(
      async (signal) => {
        cacheSyncedWhenOthersStarted = mgr.getCache().hasSynced();
        probesListeningWhenOthersStarted = mgr.getHealthProbeServer().address() !== undefined;
        events.push("start other");
        await aborted(signal);
        events.push("stop other");
      },
      { needLeaderElection: false },
    ),
  );
  // The first read of a kind makes the cache start an informer; it must be synced before others run.
  await mgr.getCache().getInformer(kinds.ConfigMap, { blockUntilSynced: false });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  await eventually("the leader runnable", () => events.includes("start leader"));
  assert.deepEqual(events, ["start other", "start leader"]);
  assert.ok(cacheSyncedWhenOthersStarted, "caches sync before runnables that need no leader start");
  assert.ok(probesListeningWhenOthersStarted, "HTTP servers listen before the other groups start");
  stop.abort();
  await running;
  assert.deepEqual(events, ["start other", "start leader", "stop leader", "stop other"]);
});

test("a runnable added after start starts at once in its group", async () => {
  const mgr = await Manager.create(config, quiet);
  const { events, runnable } = recorder();
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  mgr.add(runnable("late-leader", true));
  mgr.add(runnable("late-other", false));
  await eventually("late runnables", () => events.length === 2);
  stop.abort();
  await running;
  assert.ok(events.includes("stop late-leader") && events.includes("stop late-other"));
});

test("a failing runnable stops the manager and start() rejects with its error", async () => {
  const mgr = await Manager.create(config, quiet);
  const { events, runnable } = recorder();
  mgr.add(runnable("bystander", false));
  const boom = new Error("boom");
  mgr.add(runnableFunc(async () => Promise.reject(boom), { needLeaderElection: false }));
  await assert.rejects(mgr.start(new AbortController().signal), (err) => err === boom);
  assert.deepEqual(events, ["start bystander", "stop bystander"]);
  await assert.rejects(mgr.start(new AbortController().signal), /already called/);
});

test("shutdown is bounded by gracefulShutdownTimeoutMs", async () => {
  const mgr = await Manager.create(config, { ...quiet, gracefulShutdownTimeoutMs: 100 });
  let release!: () => void;
  const stuck = new Promise<void>((r) => {
    release = r;
  });
  mgr.add(runnableFunc(() => stuck, { needLeaderElection: false }));
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  stop.abort();
  await assert.rejects(running, ShutdownTimeoutError);
  release();
});

test("leader election without an ID is refused with a message that says what to set", async () => {
  await assert.rejects(Manager.create(config, { ...quiet, leaderElection: true }), ManagerOptionsError);
});

test("probes and metrics answer over HTTP while the manager runs", async () => {
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "127.0.0.1:0" },
    healthProbeBindAddress: "127.0.0.1:0",
  });
  mgr.addHealthzCheck("ping", () => {});
  let ready = false;
  mgr.addReadyzCheck("ready-flag", () => {
    if (!ready) throw new Error("not yet");
  });
  mgr.addMetricsServerExtraHandler("/debug/hello", (_req, res) => res.end("hello"));
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  const probes = `http://127.0.0.1:${mgr.getHealthProbeServer().address()?.port}`;
  const metrics = `http://127.0.0.1:${mgr.getMetricsServer().address()?.port}`;
  const get = async (url: string) => {
    const res = await request(url);
    return { status: res.statusCode, body: await res.body.text() };
  };
  assert.deepEqual(await get(`${probes}/healthz`), { status: 200, body: "ok" });
  const notReady = await get(`${probes}/readyz`);
  assert.equal(notReady.status, 500);
  assert.match(notReady.body, /\[-\]ready-flag failed/);
  ready = true;
  assert.equal((await get(`${probes}/readyz/ready-flag`)).status, 200);
  await mgr.getRESTClient().request({ path: "/version" });
  const text = (await get(`${metrics}/metrics`)).body;
  assert.match(text, /process_cpu_user_seconds_total/);
  assert.match(text, /rest_client_requests_total\{code="200",method="GET",host="127\.0\.0\.1:\d+"\} [1-9]/);
  assert.equal((await get(`${metrics}/debug/hello`)).body, "hello");
  stop.abort();
  await running;
});

test("getClient reads through the cache and writes to the server; getAPIReader reads the server", async () => {
  const mgr = await Manager.create(config, quiet);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  try {
    const client = mgr.getClient();
    await client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "via-client", namespace: "default" },
    });
    const fromServer = await mgr
      .getAPIReader()
      .get(kinds.ConfigMap, { namespace: "default", name: "via-client" });
    assert.equal(fromServer.metadata?.name, "via-client");
    // The first cached read of a kind starts its informer and waits for it to sync.
    const cached = await client.get(kinds.ConfigMap, { namespace: "default", name: "via-client" });
    assert.ok(Object.isFrozen(cached), "cached objects are frozen");
    const mapping = await mgr.getRESTMapper().restMapping({ group: "apps", kind: "Deployment" });
    assert.equal(mapping.resource.resource, "deployments");
  } finally {
    stop.abort();
    await running;
  }
});
