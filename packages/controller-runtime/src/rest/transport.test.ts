import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import { createSecureServer } from "node:http2";
import { type AddressInfo, connect, type Socket } from "node:net";
import { before, test } from "node:test";
import type { TLSSocket } from "node:tls";
import { type CertificateAuthority, newCertificateAuthority } from "../certs/index.js";
import type { CredentialSource } from "./credentials.js";
import { NetworkError } from "./errors.js";
import { json, type LocalServer, startLocalServer } from "../../../../test/support/local-server.js";
import { isUnauthorized } from "./status-reasons.js";
import { newTransport, DEFAULT_USER_AGENT, type Transport } from "./transport.js";
import { newRESTClient } from "./rest-client.js";

let ca: CertificateAuthority;
before(async () => {
  ca = await newCertificateAuthority("transport-test-ca");
});

async function withServer(
  server: LocalServer,
  transports: Transport[],
  fn: () => Promise<void>,
): Promise<void> {
  try {
    await fn();
  } finally {
    for (const t of transports) await t.destroy();
    await server.close();
  }
}

async function get(t: Transport, path: string, headers?: Record<string, string>) {
  const res = await t.send({ method: "GET", path, headers });
  return { status: res.statusCode, body: await res.body.text() };
}

// undici resolves a body's end a tick before it frees the connection, so a request sent in that
// same tick opens a second one; after that the two alternate. Never one handshake per request.
test("sequential requests reuse keep-alive TLS connections", async () => {
  const server = await startLocalServer((_req, res) => json(res, 200, { ok: true }), { ca });
  const t = newTransport(server.config());
  await withServer(server, [t], async () => {
    for (let i = 0; i < 25; i++) assert.equal((await get(t, "/version")).status, 200);
    assert.ok(server.connections() <= 2, `opened ${server.connections()} TLS connections for 25 requests`);
  });
});

test("concurrent requests open at most one connection each, then reuse them", async () => {
  const server = await startLocalServer((_req, res) => json(res, 200, {}), { ca });
  const t = newTransport(server.config());
  await withServer(server, [t], async () => {
    for (let round = 0; round < 4; round++) {
      await Promise.all(Array.from({ length: 5 }, () => get(t, "/x")));
    }
    assert.ok(server.connections() <= 10, `opened ${server.connections()} connections for 4 rounds of 5`);
  });
});

test("a RESTClient shares its transport's pool", async () => {
  const server = await startLocalServer((_req, res) => json(res, 200, { items: [] }), { ca });
  const t = newTransport(server.config());
  const a = newRESTClient(server.config(), { transport: t });
  const b = newRESTClient(server.config(), { transport: t });
  await withServer(server, [t], async () => {
    const cms = { group: "", version: "v1", resource: "configmaps" };
    for (let i = 0; i < 5; i++) {
      await a.list(cms);
      await b.list(cms);
    }
    assert.ok(server.connections() <= 2, `opened ${server.connections()} TLS connections for 10 requests`);
  });
});

test("sends the user agent, the bearer token and the client certificate", async () => {
  const seen: { ua?: string; auth?: string; cn?: string }[] = [];
  const server = await startLocalServer(
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({
        ua: req.headers["user-agent"],
        auth: req.headers.authorization,
        cn: peer.subject?.CN as string | undefined,
      });
      json(res, 200, {});
    },
    { ca, requestCert: true },
  );
  const client = await ca.issueClient({ user: "alice", groups: ["devs"] });
  const withCert = newTransport(
    server.config({ tls: { ca: ca.certPem, cert: client.certPem, key: client.keyPem } }),
  );
  const withToken = newTransport(
    server.config({ auth: { bearerToken: "t0ken" }, userAgent: "my-operator/1.2" }),
  );
  await withServer(server, [withCert, withToken], async () => {
    await get(withCert, "/a");
    await get(withToken, "/b");
    assert.deepEqual(seen, [
      { ua: DEFAULT_USER_AGENT, auth: undefined, cn: "alice" },
      { ua: "my-operator/1.2", auth: "Bearer t0ken", cn: undefined },
    ]);
  });
});

test("a server certificate from an unknown CA is refused with a NetworkError; insecureSkipVerify accepts it", async () => {
  const server = await startLocalServer((_req, res) => json(res, 200, {}), { ca });
  const other = await newCertificateAuthority("other-ca");
  const strict = newTransport(server.config({ tls: { ca: other.certPem } }));
  const insecure = newTransport(server.config({ tls: { insecureSkipVerify: true } }));
  await withServer(server, [strict, insecure], async () => {
    await assert.rejects(get(strict, "/"), (err: unknown) => {
      assert.ok(err instanceof NetworkError);
      assert.equal(err.code, "ERR_K8S_NETWORK");
      assert.ok(err.cause instanceof Error);
      assert.equal(err.timedOut, false);
      assert.match(err.message, /certificate was refused: check the config's certificate-authority/);
      return true;
    });
    assert.equal((await get(insecure, "/")).status, 200);
  });
});

test("serverName verifies the certificate against a name other than the host", async () => {
  const server = await startLocalServer((_req, res) => json(res, 200, {}), {
    ca,
    serving: { dnsNames: ["kubernetes.default.svc"], ipAddresses: [] },
  });
  const named = newTransport(
    server.config({ tls: { ca: ca.certPem, serverName: "kubernetes.default.svc" } }),
  );
  const unnamed = newTransport(server.config());
  await withServer(server, [named, unnamed], async () => {
    assert.equal((await get(named, "/")).status, 200);
    await assert.rejects(get(unnamed, "/"), NetworkError);
  });
});

test("a 401 invalidates the credentials and retries once with fresh ones", async () => {
  const auths: (string | undefined)[] = [];
  const server = await startLocalServer((req, res) => {
    auths.push(req.headers.authorization);
    if (req.headers.authorization === "Bearer new") json(res, 200, { ok: 1 });
    else
      json(res, 401, {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "Unauthorized",
        code: 401,
      });
  });
  let token = "old";
  let invalidations = 0;
  const credentials: CredentialSource = {
    authorization: async () => `Bearer ${token}`,
    clientCertificate: async () => undefined,
    invalidate: () => {
      invalidations++;
      token = "new";
    },
  };
  const t = newTransport(server.config(), { credentials });
  await withServer(server, [t], async () => {
    assert.deepEqual(await get(t, "/"), { status: 200, body: '{"ok":1}' });
    assert.deepEqual(auths, ["Bearer old", "Bearer new"]);
    assert.equal(invalidations, 1);
  });
});

test("a second 401 is the caller's Unauthorized error, after exactly one retry", async () => {
  let requests = 0;
  const server = await startLocalServer((_req, res) => {
    requests++;
    res.writeHead(401, { "content-type": "text/plain" }).end("Unauthorized");
  });
  const client = newRESTClient(server.config({ auth: { bearerToken: "bad" } }));
  await withServer(server, [client.transport], async () => {
    await assert.rejects(client.request({ path: "/api" }), (err) => isUnauthorized(err));
    assert.equal(requests, 2);
  });
});

test("proxyUrl tunnels requests through an HTTP CONNECT proxy", async () => {
  const target = await startLocalServer((_req, res) => json(res, 200, { via: "proxy" }), { ca });
  const tunnels: string[] = [];
  const proxy = createServer();
  proxy.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? "");
    const [host, port] = (req.url ?? "").split(":");
    const upstream = connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  proxy.listen(0, "127.0.0.1");
  await once(proxy, "listening");
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const t = newTransport(target.config({ proxyUrl }));
  try {
    for (let i = 0; i < 6; i++) {
      assert.deepEqual(await get(t, "/version"), { status: 200, body: '{"via":"proxy"}' });
    }
    // Tunnels are kept alive and reused (undici 7 happens to open a second one early on).
    assert.ok(tunnels.length > 0 && tunnels.length < 6, `opened ${tunnels.length} tunnels for 6 requests`);
    assert.ok(tunnels.every((host) => host === new URL(target.url).host));
  } finally {
    await t.destroy();
    proxy.closeAllConnections();
    await new Promise<void>((r) => proxy.close(() => r()));
    await target.close();
  }
});

test("a refused connection is a NetworkError carrying the cause", async () => {
  const server = await startLocalServer((_req, res) => json(res, 200, {}));
  const config = server.config();
  await server.close();
  const t = newTransport(config);
  try {
    await assert.rejects(get(t, "/"), (err: unknown) => {
      assert.ok(err instanceof NetworkError);
      assert.match(err.message, /ECONNREFUSED|connect/);
      assert.match(err.message, /nothing answers at that address/);
      assert.doesNotMatch(err.message, /certificate/);
      assert.ok(err.cause);
      return true;
    });
  } finally {
    await t.destroy();
  }
});

test("a connection cut before the answer says so, and speaks of no certificate", async () => {
  // A server restarting: the request arrives, the socket is destroyed without an answer.
  const server = await startLocalServer((req) => {
    req.socket.destroy();
  });
  const t = newTransport(server.config());
  await withServer(server, [t], async () => {
    await assert.rejects(get(t, "/"), (err: unknown) => {
      assert.ok(err instanceof NetworkError);
      assert.match(err.message, /closed before the answer \(the server restarting/);
      assert.doesNotMatch(err.message, /certificate/);
      return true;
    });
  });
});

test("an aborted request rejects with the signal's reason, not a NetworkError", async () => {
  let arrived!: () => void;
  const arrival = new Promise<void>((r) => {
    arrived = r;
  });
  const server = await startLocalServer(() => arrived()); // never answers
  const t = newTransport(server.config());
  await withServer(server, [t], async () => {
    const ac = new AbortController();
    const pending = t.send({ method: "GET", path: "/slow", signal: ac.signal });
    await arrival;
    const reason = new Error("shutting down");
    ac.abort(reason);
    await assert.rejects(pending, (err) => err === reason);
  });
});

test("close() waits for requests in flight, then refuses new ones", async () => {
  let answer!: () => void;
  let arrived!: () => void;
  const arrival = new Promise<void>((r) => {
    arrived = r;
  });
  const server = await startLocalServer((_req, res) => {
    answer = () => json(res, 200, { late: true });
    arrived();
  });
  const t = newTransport(server.config());
  await withServer(server, [t], async () => {
    const pending = get(t, "/");
    await arrival;
    const closing = t.close();
    answer();
    assert.deepEqual(await pending, { status: 200, body: '{"late":true}' });
    await closing;
    await assert.rejects(get(t, "/"), /closed/);
  });
});

test("destroy() fails requests in flight", async () => {
  let arrived!: () => void;
  const arrival = new Promise<void>((r) => {
    arrived = r;
  });
  const server = await startLocalServer(() => arrived());
  const t = newTransport(server.config());
  await withServer(server, [t], async () => {
    const pending = get(t, "/");
    await arrival;
    await t.destroy();
    await assert.rejects(pending, NetworkError);
  });
});

test("a host that is not a URL is rejected with a hint", () => {
  assert.throws(() => newTransport({ host: "localhost:6443", tls: {}, auth: {} }), /https:\/\//);
});

test("http2: true takes HTTP/2 where the server offers it; the default is HTTP/1.1", async () => {
  const serving = await ca.issueServing();
  const versions: string[] = [];
  const server = createSecureServer(
    { key: serving.keyPem, cert: serving.certPem, allowHTTP1: true },
    (req, res) => {
      versions.push(req.httpVersion);
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    },
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const host = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const h2 = newTransport({ host, tls: { ca: ca.certPem }, auth: {} }, { http2: true });
  const h1 = newTransport({ host, tls: { ca: ca.certPem }, auth: {} });
  try {
    await Promise.all(Array.from({ length: 8 }, () => get(h2, "/version")));
    assert.deepEqual([...new Set(versions)], ["2.0"]);
    await get(h1, "/version");
    assert.equal(versions.at(-1), "1.1");
  } finally {
    await h2.destroy();
    await h1.destroy();
    server.close();
  }
});
