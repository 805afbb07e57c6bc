// The REST client on the wire, against a local server that records what it receives: paths,
// query parameters, content types and bodies, and the error bodies the API server cannot be
// made to send (proxies' HTML pages, Retry-After, empty bodies).
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { test } from "node:test";
import { NetworkError, StatusError } from "./errors.js";
import { json, type LocalServer, startLocalServer } from "../../../../test/support/local-server.js";
import { newRESTClient, type RESTClient, type RESTClientOptions } from "./rest-client.js";
import { ACCEPT_PARTIAL_METADATA_LIST } from "./rest-options.js";
import {
  isAlreadyExists,
  isConflict,
  isInternalError,
  isNotFound,
  isServiceUnavailable,
  isTooManyRequests,
  retryAfterSeconds,
} from "./status-reasons.js";
import type { Warning } from "./warnings.js";

interface Seen {
  method?: string;
  url?: string;
  contentType?: string;
  accept?: string;
  body: string;
}

async function recording(
  options: RESTClientOptions = {},
): Promise<{ server: LocalServer; client: RESTClient; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = await startLocalServer((req: IncomingMessage, res, body) => {
    const entry: Seen = { method: req.method, url: req.url, accept: req.headers.accept, body };
    if (req.headers["content-type"]) entry.contentType = req.headers["content-type"];
    seen.push(entry);
    json(res, 200, { kind: "Echo", metadata: { name: "x" } });
  });
  return { server, client: newRESTClient(server.config(), options), seen };
}

const cms = { group: "", version: "v1", resource: "configmaps" };
const deploys = { group: "apps", version: "v1", resource: "deployments" };
const nodes = { group: "", version: "v1", resource: "nodes", namespaced: false };

test("each verb sends the method, path, query, content type and body client-go sends (in JSON)", async () => {
  const { server, client, seen } = await recording({ contentType: "application/json" });
  try {
    await client.get(cms, "a", { namespace: "ns", resourceVersion: "0" });
    await client.get(deploys, "d", { namespace: "ns", subresource: "scale" });
    await client.list(deploys, {
      labelSelector: "app in (x,y)",
      fieldSelector: "metadata.name=d",
      limit: 500,
    });
    await client.list(cms, {
      namespace: "ns",
      continue: "tok",
      resourceVersion: "7",
      resourceVersionMatch: "Exact",
    });
    await client.create(
      cms,
      { metadata: { name: "c", namespace: "ns" } },
      { dryRun: true, fieldManager: "me" },
    );
    await client.update(deploys, { metadata: { name: "d", namespace: "ns" } }, { subresource: "status" });
    await client.patch(cms, "c", [{ op: "add", path: "/data/a", value: "1" }], {
      namespace: "ns",
      patchType: "json",
    });
    await client.patch(cms, "c", { data: { a: "1" } }, { namespace: "ns", patchType: "merge" });
    await client.patch(deploys, "d", { spec: {} }, { namespace: "ns", patchType: "strategic" });
    await client.patch(
      deploys,
      "d",
      { apiVersion: "apps/v1", kind: "Deployment" },
      { namespace: "ns", patchType: "apply", fieldManager: "ctrl", force: true, fieldValidation: "Strict" },
    );
    await client.delete(deploys, "d", {
      namespace: "ns",
      propagationPolicy: "Foreground",
      gracePeriodSeconds: 0,
      preconditions: { uid: "u1", resourceVersion: "5" },
    });
    await client.deleteCollection(cms, { namespace: "ns", labelSelector: "a=b", dryRun: true });
    await client.get(nodes, "n1", { namespace: "ignored-for-cluster-scoped" });
    await client.list(cms, { accept: ACCEPT_PARTIAL_METADATA_LIST });
    await client.request({ path: "/version", query: { timeout: "32s" } });

    const j = "application/json";
    assert.deepEqual(seen, [
      { method: "GET", url: "/api/v1/namespaces/ns/configmaps/a?resourceVersion=0", accept: j, body: "" },
      { method: "GET", url: "/apis/apps/v1/namespaces/ns/deployments/d/scale", accept: j, body: "" },
      {
        method: "GET",
        url: "/apis/apps/v1/deployments?labelSelector=app%20in%20(x%2Cy)&fieldSelector=metadata.name%3Dd&limit=500",
        accept: j,
        body: "",
      },
      {
        method: "GET",
        url: "/api/v1/namespaces/ns/configmaps?continue=tok&resourceVersion=7&resourceVersionMatch=Exact",
        accept: j,
        body: "",
      },
      {
        method: "POST",
        url: "/api/v1/namespaces/ns/configmaps?dryRun=All&fieldManager=me",
        contentType: j,
        accept: j,
        body: '{"metadata":{"name":"c","namespace":"ns"}}',
      },
      {
        method: "PUT",
        url: "/apis/apps/v1/namespaces/ns/deployments/d/status",
        contentType: j,
        accept: j,
        body: '{"metadata":{"name":"d","namespace":"ns"}}',
      },
      {
        method: "PATCH",
        url: "/api/v1/namespaces/ns/configmaps/c",
        contentType: "application/json-patch+json",
        accept: j,
        body: '[{"op":"add","path":"/data/a","value":"1"}]',
      },
      {
        method: "PATCH",
        url: "/api/v1/namespaces/ns/configmaps/c",
        contentType: "application/merge-patch+json",
        accept: j,
        body: '{"data":{"a":"1"}}',
      },
      {
        method: "PATCH",
        url: "/apis/apps/v1/namespaces/ns/deployments/d",
        contentType: "application/strategic-merge-patch+json",
        accept: j,
        body: '{"spec":{}}',
      },
      {
        method: "PATCH",
        url: "/apis/apps/v1/namespaces/ns/deployments/d?fieldManager=ctrl&fieldValidation=Strict&force=true",
        contentType: "application/apply-patch+yaml",
        accept: j,
        body: '{"apiVersion":"apps/v1","kind":"Deployment"}',
      },
      {
        method: "DELETE",
        url: "/apis/apps/v1/namespaces/ns/deployments/d",
        contentType: j,
        accept: j,
        body: '{"kind":"DeleteOptions","apiVersion":"apps/v1","gracePeriodSeconds":0,"preconditions":{"uid":"u1","resourceVersion":"5"},"propagationPolicy":"Foreground"}',
      },
      {
        method: "DELETE",
        url: "/api/v1/namespaces/ns/configmaps?labelSelector=a%3Db",
        contentType: j,
        accept: j,
        body: '{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}',
      },
      { method: "GET", url: "/api/v1/nodes/n1", accept: j, body: "" },
      { method: "GET", url: "/api/v1/configmaps", accept: ACCEPT_PARTIAL_METADATA_LIST, body: "" },
      { method: "GET", url: "/version?timeout=32s", accept: j, body: "" },
    ]);
  } finally {
    await client.close();
    await server.close();
  }
});

test("by default built-in kinds travel in protobuf, as controller-runtime's client sends them; custom resources, patches and raw requests in JSON", async () => {
  const { server, client, seen } = await recording();
  const widgets = { group: "apps.example.com", version: "v1", resource: "widgets" };
  try {
    await client.get(cms, "a", { namespace: "ns" });
    await client.create(cms, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c" },
      data: { a: "1" },
    });
    // A field kube's ConfigMap does not have: JSON, so that the server warns about it or refuses it.
    await client.create(cms, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "u" },
      datta: {},
    } as never);
    await client.patch(cms, "c", { data: { a: "2" } }, { namespace: "ns", patchType: "merge" });
    await client.delete(deploys, "d", { namespace: "ns" });
    // A custom group that starts like a built-in one is not built-in.
    await client.get(widgets, "w", { namespace: "ns" });
    await client.create(widgets, {
      apiVersion: "apps.example.com/v1",
      kind: "Deployment",
      metadata: { name: "w" },
    });
    await client.list(widgets, { accept: ACCEPT_PARTIAL_METADATA_LIST });
    await client.request({ path: "/version" });

    const pb = "application/vnd.kubernetes.protobuf";
    const k8s = Buffer.from([0x6b, 0x38, 0x73, 0]).toString("latin1");
    const pick = (s: Seen) => ({
      method: s.method,
      accept: s.accept,
      contentType: s.contentType,
      k8s: s.body.startsWith(k8s),
    });
    assert.deepEqual(seen.map(pick), [
      { method: "GET", accept: `${pb}, */*`, contentType: undefined, k8s: false },
      { method: "POST", accept: `${pb}, */*`, contentType: pb, k8s: true },
      { method: "POST", accept: `${pb}, */*`, contentType: "application/json", k8s: false },
      { method: "PATCH", accept: `${pb}, */*`, contentType: "application/merge-patch+json", k8s: false },
      { method: "DELETE", accept: `${pb}, */*`, contentType: pb, k8s: true },
      { method: "GET", accept: "application/json", contentType: undefined, k8s: false },
      { method: "POST", accept: "application/json", contentType: "application/json", k8s: false },
      {
        method: "GET",
        accept: `${pb};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,${ACCEPT_PARTIAL_METADATA_LIST},application/json`,
        contentType: undefined,
        k8s: false,
      },
      { method: "GET", accept: "application/json", contentType: undefined, k8s: false },
    ]);
  } finally {
    await client.close();
    await server.close();
  }
});

test("names that would escape their path segment are refused before sending", async () => {
  const { server, client, seen } = await recording();
  try {
    for (const name of ["", "..", "a/b", "a%2Fb"]) {
      await assert.rejects(async () => client.get(cms, name, { namespace: "ns" }), TypeError);
    }
    assert.throws(() => client.update(cms, { metadata: {} }), /metadata.name/);
    assert.equal(seen.length, 0);
  } finally {
    await client.close();
    await server.close();
  }
});

test("a Status body becomes a StatusError carrying it unchanged", async () => {
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: 'configmaps "c" already exists',
    reason: "AlreadyExists",
    details: { name: "c", kind: "configmaps" },
    code: 409,
  };
  const server = await startLocalServer((_req, res) => json(res, 409, status));
  const client = newRESTClient(server.config());
  try {
    await assert.rejects(
      client.create(cms, { metadata: { name: "c" } }, { namespace: "n" }),
      (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.deepEqual(err.status, status);
        assert.equal(err.reason, "AlreadyExists");
        assert.equal(err.statusCode, 409);
        assert.equal(err.message, 'configmaps "c" already exists');
        assert.equal(err.code, "ERR_K8S_STATUS");
        assert.equal(err.name, "StatusError");
        assert.ok(isAlreadyExists(err));
        assert.ok(!isConflict(err), "a known reason wins over the 409 code");
        return true;
      },
    );
  } finally {
    await client.close();
    await server.close();
  }
});

test("non-Status error bodies get a synthesized Status whose reason follows the HTTP code", async () => {
  const server = await startLocalServer((req, res) => {
    const reply = (code: number, type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(code, { "content-type": type, ...headers }).end(body);
    };
    switch (req.url) {
      case "/html-502":
        return reply(502, "text/html", "<html><body>Bad Gateway</body></html>");
      case "/text-404":
        return reply(404, "text/plain", "404 page not found");
      case "/busy":
        return reply(429, "text/plain", "slow down", { "retry-after": "7" });
      case "/empty-503":
        return reply(503, "text/plain", "", { "retry-after": "2" });
      case "/api/v1/namespaces/n/configmaps?":
      case "/api/v1/namespaces/n/configmaps":
        return reply(409, "text/plain", "exists");
      default:
        return reply(418, "text/plain", "teapot");
    }
  });
  // The answers with Retry-After would be sent again (the next test); here they are the caller's.
  const client = newRESTClient(server.config(), { maxRetries: 0 });
  const fail = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      assert.ok(err instanceof StatusError, String(err));
      return err;
    }
    assert.fail("expected a StatusError");
  };
  try {
    const bad = await fail(client.request({ path: "/html-502" }));
    assert.ok(isInternalError(bad));
    assert.equal(bad.statusCode, 502);
    assert.match(bad.message, /an error on the server \("<html><body>Bad Gateway<\/body><\/html>"\)/);
    assert.deepEqual(bad.causes, [
      { reason: "UnexpectedServerResponse", message: "<html><body>Bad Gateway</body></html>" },
    ]);

    const missing = await fail(client.request({ path: "/text-404" }));
    assert.ok(isNotFound(missing));
    assert.equal(missing.message, "the server could not find the requested resource (get)");

    const busy = await fail(client.request({ path: "/busy" }));
    assert.ok(isTooManyRequests(busy));
    assert.equal(retryAfterSeconds(busy), 7);
    assert.equal(busy.retryAfterSeconds, 7);

    const down = await fail(client.request({ path: "/empty-503" }));
    assert.ok(isServiceUnavailable(down));
    assert.equal(retryAfterSeconds(down), 2);

    const exists = await fail(client.create(cms, { metadata: { name: "c" } }, { namespace: "n" }));
    assert.ok(isAlreadyExists(exists), "a bare 409 on POST is AlreadyExists, as client-go");
    assert.match(exists.message, /\(post configmaps c\)$/);
    assert.deepEqual(exists.details?.name, "c");

    const odd = await fail(client.request({ path: "/other" }));
    assert.equal(odd.statusCode, 418);
    assert.equal(odd.reason, "");
    assert.equal(odd.message, "teapot (get)");
  } finally {
    await client.close();
    await server.close();
  }
});

test("Retry-After fills a Status body that gives no retryAfterSeconds", async () => {
  const server = await startLocalServer((_req, res) =>
    json(
      res,
      429,
      {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "TooManyRequests",
        code: 429,
        message: "wait",
      },
      { "retry-after": "3" },
    ),
  );
  const client = newRESTClient(server.config(), { maxRetries: 0 });
  try {
    await assert.rejects(client.list(cms), (err) => isTooManyRequests(err) && retryAfterSeconds(err) === 3);
  } finally {
    await client.close();
    await server.close();
  }
});

test("429 and 5xx with Retry-After are sent again after the wait, as client-go does; others are not", async () => {
  const seen: { url?: string; body: string; at: number }[] = [];
  const server = await startLocalServer((req, res, body) => {
    seen.push({ url: req.url, body, at: performance.now() });
    const count = seen.filter((s) => s.url === req.url).length;
    if (req.url?.startsWith("/throttled") && count <= 2) {
      return json(res, 429, { kind: "Status", status: "Failure", code: 429 }, { "retry-after": "0" });
    }
    if (req.url?.startsWith("/restarting") && count === 1) {
      return json(res, 503, { kind: "Status", status: "Failure", code: 503 }, { "retry-after": "1" });
    }
    if (req.url?.startsWith("/broken"))
      return json(res, 500, { kind: "Status", status: "Failure", code: 500 });
    if (req.url?.startsWith("/forever")) {
      return json(res, 429, { kind: "Status", status: "Failure", code: 429 }, { "retry-after": "0" });
    }
    if (req.url?.startsWith("/slow")) {
      return json(res, 429, { kind: "Status", status: "Failure", code: 429 }, { "retry-after": "30" });
    }
    json(res, 201, { kind: "Echo", metadata: { name: "x" } });
  });
  const client = newRESTClient(server.config());
  try {
    await client.request({ method: "POST", path: "/throttled", body: { a: 1 } });
    const throttled = seen.filter((s) => s.url === "/throttled");
    assert.equal(throttled.length, 3, "two 429s, then the answer");
    assert.deepEqual(
      throttled.map((s) => s.body),
      Array(3).fill('{"a":1}'),
      "the body is sent again each time",
    );

    await client.request({ path: "/restarting" });
    const restarting = seen.filter((s) => s.url === "/restarting");
    assert.equal(restarting.length, 2);
    assert.ok(restarting[1]!.at - restarting[0]!.at >= 990, "waited the Retry-After second");

    await assert.rejects(client.request({ path: "/broken" }), (err) => isInternalError(err));
    assert.equal(
      seen.filter((s) => s.url === "/broken").length,
      1,
      "a 500 without Retry-After is not retried",
    );

    await assert.rejects(client.request({ path: "/forever" }), (err) => isTooManyRequests(err));
    assert.equal(
      seen.filter((s) => s.url === "/forever").length,
      11,
      "client-go's 10 retries, then the error",
    );

    const abort = new AbortController();
    const t0 = performance.now();
    const slow = client.request({ path: "/slow", signal: abort.signal });
    setTimeout(() => abort.abort(new Error("given up")), 100);
    await assert.rejects(slow, /given up/);
    assert.ok(performance.now() - t0 < 5_000, "an abort ends the wait");
  } finally {
    await client.close();
    await server.close();
  }
});

test("Warning headers reach the per-call handler, else the client's", async () => {
  const server = await startLocalServer((_req, res) =>
    json(res, 201, {}, { warning: '299 - "unknown field \\"junk\\"", 299 - "second, with comma"' }),
  );
  const fromClient: Warning[] = [];
  const fromCall: Warning[] = [];
  const client = newRESTClient(server.config(), { onWarning: (w) => fromClient.push(w) });
  try {
    await client.create(cms, { metadata: { name: "s" } }, { namespace: "n" });
    await client.create(
      cms,
      { metadata: { name: "s" } },
      { namespace: "n", onWarning: (w) => fromCall.push(w) },
    );
    const expected = [
      { code: 299, agent: "-", text: 'unknown field "junk"' },
      { code: 299, agent: "-", text: "second, with comma" },
    ];
    assert.deepEqual(fromClient, expected);
    assert.deepEqual(fromCall, expected);
  } finally {
    await client.close();
    await server.close();
  }
});

test("a call with timeoutMs that gets no answer fails with a timed-out NetworkError", async () => {
  const server = await startLocalServer(() => {}); // never answers
  const client = newRESTClient(server.config());
  try {
    await assert.rejects(client.get(cms, "x", { namespace: "n", timeoutMs: 50 }), (err: unknown) => {
      assert.ok(err instanceof NetworkError);
      assert.equal(err.timedOut, true);
      assert.match(err.message, /within 50 ms/);
      return true;
    });
  } finally {
    await client.close();
    await server.close();
  }
});

test("a 200 whose body is not JSON is a NetworkError naming the content type", async () => {
  const server = await startLocalServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" }).end("<html>");
  });
  const client = newRESTClient(server.config());
  try {
    await assert.rejects(
      client.list(cms),
      (err: unknown) => err instanceof NetworkError && /text\/html/.test(err.message),
    );
    assert.equal(await client.request({ path: "/healthz", responseType: "text" }), "<html>");
  } finally {
    await client.close();
    await server.close();
  }
});
