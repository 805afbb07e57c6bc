import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { Counter } from "prom-client";
import { newLogger } from "../log/index.js";
import {
  InvalidBindAddressError,
  newHTTPServerRunnable,
  parseBindAddress,
  ServerAlreadyStartedError,
} from "../httpserver/index.js";
import { newMetricsRegistry } from "./registry.js";
import { ExtraHandlerError, newMetricsServer } from "./server.js";

/** One GET over a fresh connection (no keep-alive), so a closed server is seen as closed. */
function get(addr: AddressInfo, path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: addr.address, port: addr.port, path, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Starts `server`, returns its address and a stop function that awaits the stop. */
async function run(server: {
  start(s: AbortSignal): Promise<void>;
  listening(): Promise<AddressInfo | undefined>;
}) {
  const ac = new AbortController();
  const done = server.start(ac.signal);
  const addr = await server.listening();
  return {
    addr: addr!,
    done,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

test("GET /metrics serves the registry in Prometheus text format", async () => {
  const registry = newMetricsRegistry();
  new Counter({ name: "demo_total", help: "demo", registers: [registry] }).inc(5);
  const lines: Record<string, unknown>[] = [];
  const logger = newLogger({ destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
  const server = newMetricsServer({ bindAddress: "127.0.0.1:0", registry, logger });
  assert.equal(server.needLeaderElection(), false);
  assert.equal(server.address(), undefined, "nothing listens before start");
  const { addr, stop } = await run(server);
  try {
    assert.deepEqual(server.address(), addr);
    const res = await get(addr, "/metrics");
    assert.equal(res.status, 200);
    assert.equal(res.type, "text/plain; version=0.0.4; charset=utf-8");
    assert.match(res.body, /^demo_total 5$/m);
    assert.match(res.body, /^process_cpu_seconds_total /m);
    assert.equal((await get(addr, "/metrics?x=1")).status, 200);
    const missing = await get(addr, "/nope");
    assert.equal(missing.status, 404);
    assert.equal(missing.body, "404 page not found\n");
  } finally {
    await stop();
  }
  await assert.rejects(get(addr, "/metrics"), { code: "ECONNREFUSED" });
  assert.equal(server.address(), undefined);
  assert.deepEqual(
    lines.map((l) => [l.logger, l.msg]),
    [
      ["controller-runtime.metrics", "Starting metrics server"],
      ["controller-runtime.metrics", "starting server"],
      ["controller-runtime.metrics", "Serving metrics server"],
      ["controller-runtime.metrics", "shutting down server"],
    ],
  );
  assert.equal(lines[2].bindAddress, "127.0.0.1:0");
});

test("extra handlers: exact and subtree paths, rules on registration", async () => {
  const registry = newMetricsRegistry();
  const server = newMetricsServer({
    bindAddress: "127.0.0.1:0",
    registry,
    extraHandlers: { "/debug/": (req, res) => res.end(`debug ${req.url}`) },
  });
  server.addExtraHandler("/hello", (_req, res) => res.end("hi"));
  server.addExtraHandler("/async-fail", async () => {
    throw new Error("handler bug");
  });
  assert.throws(() => server.addExtraHandler("/hello", () => {}), /duplicate path "\/hello"/);
  assert.throws(() => server.addExtraHandler("/metrics", () => {}), ExtraHandlerError);
  assert.throws(() => server.addExtraHandler("nope", () => {}), /must start with "\/"/);
  const { addr, stop } = await run(server);
  try {
    assert.equal((await get(addr, "/hello")).body, "hi");
    assert.equal((await get(addr, "/hello/x")).status, 404, "an exact path has no subtree");
    assert.equal((await get(addr, "/debug/pprof/heap")).body, "debug /debug/pprof/heap");
    assert.equal((await get(addr, "/async-fail")).status, 500);
    assert.throws(() => server.addExtraHandler("/late", () => {}), /already started/);
  } finally {
    await stop();
  }
});

test('bind address "0" disables the server: no port, start resolves at once', async () => {
  const server = newMetricsServer({ bindAddress: "0", registry: newMetricsRegistry() });
  assert.equal(server.disabled, true);
  await server.start(new AbortController().signal);
  assert.equal(await server.listening(), undefined);
  assert.equal(server.address(), undefined);
});

test("the default bind address is :8080 and is validated without opening anything", () => {
  assert.equal(newMetricsServer({ registry: newMetricsRegistry() }).disabled, false);
  assert.throws(
    () => newMetricsServer({ bindAddress: "8080", registry: newMetricsRegistry() }),
    InvalidBindAddressError,
  );
});

test("parseBindAddress reads Go's host:port forms", () => {
  assert.deepEqual(parseBindAddress("x", ":8080"), { host: undefined, port: 8080 });
  assert.deepEqual(parseBindAddress("x", "127.0.0.1:0"), { host: "127.0.0.1", port: 0 });
  assert.deepEqual(parseBindAddress("x", "[::1]:9443"), { host: "::1", port: 9443 });
  assert.deepEqual(parseBindAddress("x", "localhost:80"), { host: "localhost", port: 80 });
  assert.equal(parseBindAddress("x", "0"), undefined);
  for (const bad of ["", "8080", ":", ":99999", "::1:80", "host:port", "http://x:1"]) {
    assert.throws(() => parseBindAddress("metrics", bad), /invalid metrics bind address/, bad);
  }
});

test("a port in use rejects start and listening with a clear error", async () => {
  const blocker = createServer();
  blocker.listen(0, "127.0.0.1");
  await once(blocker, "listening");
  const { port } = blocker.address() as AddressInfo;
  try {
    const server = newMetricsServer({ bindAddress: `127.0.0.1:${port}`, registry: newMetricsRegistry() });
    await assert.rejects(
      server.start(new AbortController().signal),
      /metrics server could not listen on 127\.0\.0\.1:\d+.*EADDRINUSE/,
    );
    await assert.rejects(server.listening(), /EADDRINUSE/);
  } finally {
    blocker.close();
  }
});

test("start twice is an error; an aborted signal stops before listening", async () => {
  const server = newHTTPServerRunnable({ name: "t", bindAddress: "127.0.0.1:0", handler: () => {} });
  const ac = new AbortController();
  ac.abort();
  await server.start(ac.signal);
  assert.equal(await server.listening(), undefined);
  await assert.rejects(server.start(new AbortController().signal), ServerAlreadyStartedError);
});

test("stop waits for a running request, then destroys it after the shutdown timeout", async () => {
  let entered!: () => void;
  const inHandler = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const server = newHTTPServerRunnable({
    name: "t",
    bindAddress: "127.0.0.1:0",
    shutdownTimeoutMs: 20,
    handler: () => entered(), // never answers
  });
  const { addr, stop } = await run(server);
  const pending = get(addr, "/hang");
  await inHandler;
  await stop();
  await assert.rejects(pending, { code: "ECONNRESET" });
});
