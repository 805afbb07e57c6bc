// Request parameters kube-apiserver reads outside the handlers, and their edges: `timeout` (a Go
// duration, checked before authentication), a watch's negative timeoutSeconds, a list not older
// than a resourceVersion the server has not reached (kube's watch cache waits ~3 s, then 504),
// and health checks of no such name.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, configMap, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("params");
  assert.equal((await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("one"))).status, 201);
});
after(() => target.close());

test("?timeout that is no Go duration is a 400, even before authentication", async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  for (const [value, why] of [
    ["invalid", 'time: invalid duration "invalid"'],
    ["10", 'time: missing unit in duration "10"'],
    ["10x", 'time: unknown unit "x" in duration "10x"'],
  ]) {
    const r = await api.get(`${base}?timeout=${value}`);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.reason, "BadRequest");
    assert.equal(r.body.message, `invalid timeout specified in the request URL - ${why}`);
  }
  const anonymous = await api.get(`${base}?timeout=invalid`, { token: null });
  assert.equal(anonymous.status, 400, anonymous.text);
  assert.equal((await api.get(`${base}?timeout=5s`)).status, 200);
  // A watch is long-running: kube gives it no deadline and reads no `timeout`.
  const watch = await api.get(`${base}?watch=1&timeout=invalid&timeoutSeconds=1`);
  assert.equal(watch.status, 200, watch.text);
});

test("a watch with timeoutSeconds=-1 ends at once, with no events", async () => {
  const started = Date.now();
  const r = await api.get(`/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=-1`);
  assert.equal(r.status, 200, r.text);
  // kube's watch races its own expired deadline: it ends with nothing, or with one ERROR event
  // "context deadline exceeded". No object event either way.
  const deadline =
    '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"context deadline exceeded","reason":"InternalError","code":500}}\n';
  assert.ok(r.text === "" || r.text === deadline, r.text);
  assert.ok(Date.now() - started < 2_000);
});

test("a list not older than a future resourceVersion waits, then answers 504", async () => {
  const list = await api.get(`/api/v1/namespaces/${ns}/configmaps`);
  const future = Number(list.body.metadata.resourceVersion) + 1000;
  const started = Date.now();
  const r = await api.get(
    `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${future}&resourceVersionMatch=NotOlderThan`,
  );
  const waited = Date.now() - started;
  assert.equal(r.status, 504, r.text);
  assert.equal(r.body.reason, "Timeout");
  assert.match(r.body.message, new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
  assert.deepEqual(r.body.details, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    retryAfterSeconds: 1,
  });
  assert.ok(waited >= 2_500, `answered after ${waited} ms`);
});

test("a list not older than a version reached while it waits is served", async () => {
  const list = await api.get(`/api/v1/namespaces/${ns}/configmaps`);
  const next = Number(list.body.metadata.resourceVersion) + 1;
  const waiting = api.get(
    `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${next}&resourceVersionMatch=NotOlderThan`,
  );
  await new Promise((done) => setTimeout(done, 300));
  assert.equal((await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("two"))).status, 201);
  const r = await waiting;
  assert.equal(r.status, 200, r.text);
  assert.ok(r.body.items.some((i: { metadata: { name: string } }) => i.metadata.name === "two"));
});

test("a GET and an Exact list of a future resourceVersion wait as well", async () => {
  const list = await api.get(`/api/v1/namespaces/${ns}/configmaps`);
  const future = Number(list.body.metadata.resourceVersion) + 1000;
  for (const path of [
    `/api/v1/namespaces/${ns}/configmaps/one?resourceVersion=${future}`,
    `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${future}&resourceVersionMatch=Exact`,
  ]) {
    const started = Date.now();
    const r = await api.get(path);
    assert.equal(r.status, 504, `${path}: ${r.text}`);
    assert.match(r.body.message, /^Timeout: Too large resource version: /);
    assert.ok(Date.now() - started >= 2_500, path);
  }
});

test("paths no handler serves are Go's plain 404; unknown resources of a served version a Status", async () => {
  for (const path of [
    "/healthz/nosuch",
    "/livez/nosuch",
    "/readyz/nosuch",
    "/foo",
    "/apis/nosuch.example.com",
    "/openapi/nosuch",
    "/.well-known/nosuch",
  ]) {
    const r = await api.get(path);
    assert.equal(r.status, 404, `${path}: ${r.text}`);
    assert.equal(r.text, "404 page not found\n", path);
    assert.equal(r.headers.get("content-type"), "text/plain; charset=utf-8");
  }
  assert.equal((await api.get("/healthz/ping")).text, "ok");
  for (const path of ["/api/v2", "/apis/apps/v9", "/api/v1/nosuch", "/version/x"]) {
    const r = await api.get(path);
    assert.equal(r.status, 404, `${path}: ${r.text}`);
    assert.equal(r.body.message, "the server could not find the requested resource", path);
  }
});
