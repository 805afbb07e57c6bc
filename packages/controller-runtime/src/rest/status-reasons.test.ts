// Each error helper on a real error response of the embedded API server (and, for the reasons
// it cannot be made to answer, on a synthesized Status built as client-go builds it).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { startAPIServer } from "controller-runtime-apiserver";
import { StatusError, statusErrorFromResponse } from "./errors.js";
import { newRESTClient, type RESTClient } from "./rest-client.js";
import {
  ignoreAlreadyExists,
  ignoreNotFound,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isMethodNotSupported,
  isNotFound,
  isResourceExpired,
  isServerTimeout,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  isUnsupportedMediaType,
  retryAfterSeconds,
} from "./status-reasons.js";
import type { RESTConfig } from "./config.js";
import { needs, testEnvironment } from "../../../../test/support/environment.js";

const cms = { group: "", version: "v1", resource: "configmaps" };
const namespaces = { group: "", version: "v1", resource: "namespaces", namespaced: false };
const ns = "errors";

const env = testEnvironment();
let config: RESTConfig;
let client: RESTClient;
before(async () => {
  config = await env.start();
  client = newRESTClient(config);
  await client.create(namespaces, { metadata: { name: ns } });
});
after(async () => {
  await client?.close();
  await env.stop();
});

const ALL = {
  isNotFound,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isForbidden,
  isUnauthorized,
  isGone,
  isResourceExpired,
  isTooManyRequests,
  isTimeout,
  isServerTimeout,
  isBadRequest,
  isMethodNotSupported,
  isUnsupportedMediaType,
};

/** Awaits the failure and checks that exactly the expected helper recognises it. */
async function failsWith(p: Promise<unknown>, expected: keyof typeof ALL): Promise<StatusError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof StatusError, `expected a StatusError, got ${String(caught)}`);
  const matching = Object.entries(ALL)
    .filter(([, is]) => is(caught))
    .map(([name]) => name);
  assert.deepEqual(matching, [expected], caught.message);
  return caught;
}

test("isNotFound: a missing object, with the server's details", async () => {
  const err = await failsWith(client.get(cms, "missing", { namespace: ns }), "isNotFound");
  assert.equal(err.statusCode, 404);
  assert.deepEqual(err.details, { name: "missing", kind: "configmaps" });
  assert.equal(ignoreNotFound(err), undefined);
  assert.throws(
    () => ignoreAlreadyExists(err),
    (e) => e === err,
  );
});

test("isNotFound: a resource the server does not serve", async () => {
  await failsWith(
    client.list({ group: "", version: "v1", resource: "widgets" }, { namespace: ns }),
    "isNotFound",
  );
});

test("isAlreadyExists: creating a name twice", async () => {
  await client.create<ConfigMap>(cms, { metadata: { name: "twice" } }, { namespace: ns });
  const err = await failsWith(
    client.create<ConfigMap>(cms, { metadata: { name: "twice" } }, { namespace: ns }),
    "isAlreadyExists",
  );
  assert.equal(err.statusCode, 409);
  assert.equal(ignoreAlreadyExists(err), undefined);
  assert.throws(
    () => ignoreNotFound(err),
    (e) => e === err,
  );
});

test("isConflict: an update from a stale resourceVersion", async () => {
  const cm = await client.create<ConfigMap>(
    cms,
    { metadata: { name: "stale" }, data: { a: "1" } },
    { namespace: ns },
  );
  await client.update<ConfigMap>(cms, { ...cm, data: { a: "2" } });
  const err = await failsWith(client.update<ConfigMap>(cms, { ...cm, data: { a: "3" } }), "isConflict");
  assert.equal(err.statusCode, 409);
});

test("isConflict: a delete whose uid precondition fails", async () => {
  await client.create<ConfigMap>(cms, { metadata: { name: "precond" } }, { namespace: ns });
  await failsWith(
    client.delete(cms, "precond", {
      namespace: ns,
      preconditions: { uid: "00000000-0000-0000-0000-000000000000" },
    }),
    "isConflict",
  );
});

test("isInvalid: a name that is not a DNS subdomain, with its causes", async () => {
  const err = await failsWith(
    client.create<ConfigMap>(cms, { metadata: { name: "Bad_Name" } }, { namespace: ns }),
    "isInvalid",
  );
  assert.equal(err.statusCode, 422);
  assert.ok(
    err.causes.some((c) => c.field === "metadata.name"),
    JSON.stringify(err.causes),
  );
});

test("isBadRequest: an unknown field under fieldValidation=Strict", async () => {
  const body = { metadata: { name: "strict" }, junk: 1 } as ConfigMap;
  const err = await failsWith(
    client.create(cms, body, { namespace: ns, fieldValidation: "Strict" }),
    "isBadRequest",
  );
  assert.match(err.message, /unknown field "junk"/);
});

test("isMethodNotSupported: PUT on a collection", async () => {
  await failsWith(
    client.request({ method: "PUT", path: `/api/v1/namespaces/${ns}/configmaps`, body: {} }),
    "isMethodNotSupported",
  );
});

test("isUnsupportedMediaType: a body in a type the server does not read", async () => {
  await failsWith(
    client.request({
      method: "POST",
      path: `/api/v1/namespaces/${ns}/configmaps`,
      body: "hello",
      contentType: "text/plain",
    }),
    "isUnsupportedMediaType",
  );
});

test("isUnauthorized: a token the server does not know", async () => {
  const stranger = newRESTClient({
    ...config,
    tls: { ca: config.tls.ca },
    auth: { bearerToken: "not-a-token" },
  });
  try {
    await failsWith(stranger.list(cms, { namespace: ns }), "isUnauthorized");
  } finally {
    await stranger.close();
  }
});

test("isForbidden: an anonymous request off the public paths", async () => {
  const anonymous = newRESTClient({ ...config, tls: { ca: config.tls.ca }, auth: {} });
  try {
    await failsWith(anonymous.list(cms, { namespace: ns }), "isForbidden");
    assert.equal(await anonymous.request({ path: "/healthz", responseType: "text" }), "ok");
  } finally {
    await anonymous.close();
  }
});

test(
  "isResourceExpired: a watch from a version older than the server's history, as an ERROR event",
  needs("server-options"),
  async () => {
    const small = await startAPIServer({ historySize: 2 });
    const c = newRESTClient(small.restConfig());
    try {
      for (let i = 0; i < 6; i++)
        await c.create<ConfigMap>(cms, { metadata: { name: `h${i}` } }, { namespace: "default" });
      const stream = await c.watch(cms, { namespace: "default", resourceVersion: "1" });
      const first = await stream.next();
      await stream.return();
      assert.equal(first.done, false);
      assert.equal(first.value?.type, "ERROR", JSON.stringify(first.value));
      const err = new StatusError(first.value.object as never);
      await failsWith(Promise.reject(err), "isResourceExpired");
      assert.equal(err.statusCode, 410);
    } finally {
      await c.close();
      await small.stop();
    }
  },
);

test("reasons the server cannot be made to give, on Status bodies as client-go synthesizes them", async () => {
  const ctx = { method: "GET", resource: "configmaps" };
  await failsWith(Promise.reject(statusErrorFromResponse(429, "", "5", ctx)), "isTooManyRequests");
  assert.equal(retryAfterSeconds(statusErrorFromResponse(429, "", "5", ctx)), 5);
  await failsWith(Promise.reject(statusErrorFromResponse(504, "", undefined, ctx)), "isTimeout");
  await failsWith(Promise.reject(statusErrorFromResponse(410, "", undefined, ctx)), "isGone");
  const serverTimeout = statusErrorFromResponse(
    500,
    JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "ServerTimeout",
      code: 500,
      details: { retryAfterSeconds: 1 },
    }),
    undefined,
    ctx,
  );
  await failsWith(Promise.reject(serverTimeout), "isServerTimeout");
  assert.equal(retryAfterSeconds(serverTimeout), 1);
  assert.equal(retryAfterSeconds(new Error("plain")), undefined);
  assert.equal(isNotFound(new Error("configmaps not found")), false, "only StatusErrors are recognised");
  assert.equal(isNotFound({ reason: "NotFound", code: 404 }), false, "shapes are never guessed at");
});
