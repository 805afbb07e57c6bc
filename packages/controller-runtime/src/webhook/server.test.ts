// The webhook server: registration, readiness, certificate rotation while serving, client
// certificates, TLS options, request signals, metrics and graceful shutdown.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { join } from "node:path";
import { connect } from "node:tls";
import { describe, test } from "node:test";
import type { IncomingMessage } from "node:http";
import { newCertificateAuthority } from "../certs/index.js";
import { CertificateLoadError, DuplicateWebhookPathError, InvalidWebhookPathError } from "./errors.js";
import { makeCertDir, metricValue, post, startServer } from "../../../../test/support/webhook-server.js";
import type { Webhook } from "./handler.js";
import { newWebhookServer } from "./server.js";

const fakeReq = {} as IncomingMessage;
const noSignal = () => new AbortController().signal;

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting until ${what}`);
}

describe("registration", () => {
  test("paths must be absolute and unique", () => {
    const server = newWebhookServer();
    const h = () => {};
    server.register("/a", h);
    assert.throws(() => server.register("/a", h), DuplicateWebhookPathError);
    assert.throws(() => server.register("/a", h), /can't register duplicate path: \/a/);
    assert.throws(() => server.register("a", h), InvalidWebhookPathError);
    assert.throws(() => server.register("/a?x=1", h), InvalidWebhookPathError);
    assert.equal(server.registered("/a"), h);
    assert.equal(server.needLeaderElection(), false);
    assert.equal(server.address(), undefined);
    assert.equal(server.options().port, 9443);
    assert.equal(server.options().host, "");
    assert.match(server.options().certDir, /k8s-webhook-server[/\\]serving-certs$/);
    assert.equal(server.options().certName, "tls.crt");
    assert.equal(server.options().keyName, "tls.key");
  });

  test("options are checked without I/O", () => {
    assert.throws(() => newWebhookServer({ port: 70000 }), RangeError);
  });
});

describe("serving", () => {
  test("handlers registered after start are served; unknown paths are 404; the query is ignored", async () => {
    const run = await startServer();
    try {
      run.server.register("/late", (_req, res) => res.end("late"));
      const res = await post(run, "/late?timeout=10s", {});
      assert.equal(res.status, 200);
      assert.equal(res.text, "late");
      assert.equal((await post(run, "/nope", {})).status, 404);
      assert.equal(run.server.address()?.port, run.addr.port);
    } finally {
      await run.stop();
    }
  });

  test("targets new URL() cannot read are 404s, not a crash; dot-segments reach no other handler", async () => {
    const run = await startServer((s) => s.register("/ok", (_req, res) => res.end("ok")));
    try {
      for (const path of ["//%2f", "//", "//x/ok", "/x/../ok"]) {
        assert.equal((await post(run, path, {})).status, 404, path);
      }
      assert.equal((await post(run, "/ok", {})).text, "ok");
    } finally {
      await run.stop();
    }
  });

  test("a plain handler that throws gets a 500 and the server keeps serving", async () => {
    const run = await startServer((s) => {
      s.register("/sync", () => {
        throw new Error("sync");
      });
      s.register("/async", async () => {
        throw new Error("async");
      });
      // A webhook object's method keeps its `this`.
      s.register("/ok", {
        body: "ok",
        serveHTTP(_req, res) {
          res.end(this.body);
        },
      } as Webhook & { body: string });
    });
    try {
      assert.equal((await post(run, "/sync", {})).status, 500);
      assert.equal((await post(run, "/async", {})).status, 500);
      assert.equal((await post(run, "/ok", {})).text, "ok");
    } finally {
      await run.stop();
    }
  });

  test("start fails clearly when the certificate files are missing", async () => {
    const server = newWebhookServer({ host: "127.0.0.1", port: 0, certDir: "/nonexistent/webhook-certs" });
    await assert.rejects(server.start(noSignal()), (err: unknown) => {
      assert.ok(err instanceof CertificateLoadError);
      assert.match(err.message, /could not read its certificate \/nonexistent\/webhook-certs\/tls.crt/);
      return true;
    });
    await assert.rejects(server.listening(), CertificateLoadError);
    await assert.rejects(server.start(noSignal()), /already started/);
  });

  test("start fails when the key does not belong to the certificate", async () => {
    const certs = await makeCertDir();
    try {
      const other = await certs.ca.issueServing();
      await writeFile(join(certs.dir, "tls.key"), other.keyPem);
      const server = newWebhookServer({ host: "127.0.0.1", port: 0, certDir: certs.dir });
      await assert.rejects(server.start(noSignal()), /are not a valid pair/);
    } finally {
      await certs.cleanup();
    }
  });
});

describe("startedChecker", () => {
  test("fails before start, passes while serving, fails after stop", async () => {
    let server!: ReturnType<typeof newWebhookServer>;
    const run = await startServer((s) => {
      server = s;
    });
    const check = server.startedChecker();
    const fresh = newWebhookServer().startedChecker();
    assert.throws(() => fresh(fakeReq, noSignal()), /webhook server has not been started yet/);
    await check(fakeReq, noSignal());
    await run.stop();
    await assert.rejects(async () => check(fakeReq, noSignal()), /has not been started yet/);
  });

  test("passes with client certificates required", async () => {
    const certs = await makeCertDir();
    const clientCA = await newCertificateAuthority("clients");
    await writeFile(join(certs.dir, "ca.crt"), clientCA.certPem);
    const run = await startServer(() => {}, { clientCAName: "ca.crt" }, certs);
    try {
      await run.server.startedChecker()(fakeReq, noSignal());
    } finally {
      await run.stop();
      await certs.cleanup();
    }
  });
});

describe("certificates", () => {
  test("rotated files are served to the next TLS connection without a restart", async () => {
    const run = await startServer((s) => s.register("/ok", (_req, res) => res.end("ok")));
    try {
      const first = (await post(run, "/ok", {})).serial;
      assert.ok(first);
      const next = await run.certs.ca.issueServing({ ipAddresses: ["127.0.0.1"] });
      await run.certs.write(next);
      await eventually(
        "the new certificate is served",
        async () => (await post(run, "/ok", {})).serial !== first,
      );
      const again = await post(run, "/ok", {});
      assert.equal(again.text, "ok");
      assert.notEqual(again.serial, first);
      // And once more, from a new CA: clients trusting it connect, the old CA no longer verifies.
      const ca2 = await newCertificateAuthority("second");
      await run.certs.write(await ca2.issueServing({ ipAddresses: ["127.0.0.1"] }));
      await eventually("the second CA's certificate is served", async () =>
        post(run, "/ok", {}, { ca: ca2.certPem }).then(
          () => true,
          () => false,
        ),
      );
      await assert.rejects(post(run, "/ok", {}), /certificate/);
    } finally {
      await run.stop();
    }
  });

  test("rotation is found by polling too", async () => {
    const run = await startServer((s) => s.register("/ok", (_req, res) => res.end("ok")), {
      certPollIntervalMs: 50,
    });
    try {
      const first = (await post(run, "/ok", {})).serial;
      await run.certs.write(await run.certs.ca.issueServing({ ipAddresses: ["127.0.0.1"] }));
      await eventually(
        "the new certificate is served",
        async () => (await post(run, "/ok", {})).serial !== first,
      );
    } finally {
      await run.stop();
    }
  });

  test("client certificates are required and verified when clientCAName is set", async () => {
    const certs = await makeCertDir();
    const clientCA = await newCertificateAuthority("clients");
    await writeFile(join(certs.dir, "ca.crt"), clientCA.certPem);
    const run = await startServer(
      (s) => s.register("/ok", (_req, res) => res.end("ok")),
      { clientCAName: "ca.crt" },
      certs,
    );
    try {
      const good = await clientCA.issueClient({ user: "kube-apiserver" });
      assert.equal((await post(run, "/ok", {}, { clientCert: good })).text, "ok");
      await assert.rejects(post(run, "/ok", {}));
      const stranger = await (await newCertificateAuthority("strangers")).issueClient({ user: "mallory" });
      await assert.rejects(post(run, "/ok", {}, { clientCert: stranger }));
    } finally {
      await run.stop();
      await certs.cleanup();
    }
  });

  test("tlsOpts apply: a TLS 1.3 minimum refuses TLS 1.2 clients", async () => {
    const run = await startServer(() => {}, { tlsOpts: { minVersion: "TLSv1.3" } });
    try {
      await assert.rejects(
        new Promise<void>((resolve, reject) => {
          const s = connect({
            host: "127.0.0.1",
            port: run.addr.port,
            ca: run.certs.ca.certPem,
            maxVersion: "TLSv1.2",
          });
          s.once("secureConnect", () => {
            s.end();
            resolve();
          });
          s.once("error", reject);
        }),
      );
    } finally {
      await run.stop();
    }
  });
});

describe("requests", () => {
  test("the handler's signal aborts when the request's timeout passes", async () => {
    const aborted = deferred<string>();
    const run = await startServer((s) =>
      s.register("/slow", (_req, res, ctx) => {
        ctx.signal.addEventListener("abort", () => {
          aborted.resolve(String((ctx.signal.reason as Error).message));
          res.end("gave up");
        });
      }),
    );
    try {
      const res = await post(run, "/slow?timeout=50ms", {});
      assert.equal(res.text, "gave up");
      assert.match(await aborted.promise, /timeout of 50ms passed/);
    } finally {
      await run.stop();
    }
  });

  test("the handler's signal aborts when the client goes away", async () => {
    const entered = deferred();
    const aborted = deferred();
    const run = await startServer((s) =>
      s.register("/hang", (_req, _res, ctx) => {
        ctx.signal.addEventListener("abort", () => aborted.resolve());
        entered.resolve();
      }),
    );
    try {
      const req = request({
        host: "127.0.0.1",
        port: run.addr.port,
        path: "/hang",
        method: "POST",
        agent: false,
        ca: run.certs.ca.certPem,
      });
      req.on("error", () => {});
      req.end("{}");
      await entered.promise;
      req.destroy();
      await aborted.promise;
    } finally {
      await run.stop();
    }
  });

  test("in-flight gauge, request counter and latency histogram per path", async () => {
    const entered = deferred();
    const release = deferred();
    const run = await startServer((s) =>
      s.register("/wait", async (_req, res) => {
        entered.resolve();
        await release.promise;
        res.end("done");
      }),
    );
    try {
      const labels = { webhook: "/wait" };
      assert.equal(
        await metricValue(run.registry, "controller_runtime_webhook_requests_in_flight", labels),
        0,
      );
      const pending = post(run, "/wait", {});
      await entered.promise;
      assert.equal(
        await metricValue(run.registry, "controller_runtime_webhook_requests_in_flight", labels),
        1,
      );
      release.resolve();
      assert.equal((await pending).text, "done");
      await eventually(
        "the request is counted",
        async () =>
          (await metricValue(run.registry, "controller_runtime_webhook_requests_total", {
            ...labels,
            code: "200",
          })) === 1,
      );
      assert.equal(
        await metricValue(run.registry, "controller_runtime_webhook_requests_in_flight", labels),
        0,
      );
      assert.equal(
        await metricValue(run.registry, "controller_runtime_webhook_latency_seconds_count", labels),
        1,
      );
      assert.equal((await post(run, "/missing", {})).status, 404);
      assert.equal(
        await metricValue(run.registry, "controller_runtime_webhook_requests_total", {
          webhook: "/missing",
          code: "404",
        }),
        undefined,
      );
    } finally {
      await run.stop();
    }
  });

  test("shutdown waits for requests in flight, closes their keep-alive connections, then stops listening", async () => {
    const entered = deferred();
    const release = deferred();
    const ac = new AbortController();
    const certs = await makeCertDir();
    const server = newWebhookServer({ host: "127.0.0.1", port: 0, certDir: certs.dir });
    server.register("/wait", async (_req, res) => {
      entered.resolve();
      await release.promise;
      res.end("finished");
    });
    const done = server.start(ac.signal);
    const addr = await server.listening();
    const run = { addr, certs };
    const agent = new Agent({ keepAlive: true });
    try {
      const pending = post(run, "/wait", {}, { agent });
      await entered.promise;
      ac.abort();
      let stopped = false;
      const finished = done.then(() => {
        stopped = true;
      });
      await new Promise((r) => setImmediate(r));
      assert.equal(stopped, false, "start() settled while a request was running");
      release.resolve();
      const res = await pending;
      assert.equal(res.text, "finished");
      assert.equal(res.headers.connection, "close");
      await finished;
      assert.equal(server.address(), undefined);
      await assert.rejects(post(run, "/wait", {}), /ECONNREFUSED/);
    } finally {
      release.resolve();
      ac.abort();
      await done;
      agent.destroy();
      await certs.cleanup();
    }
  });
});
