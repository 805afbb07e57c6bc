// Secure metrics as controller-runtime's e2e tests them, on the run's API server: a ServiceAccount
// bound to a ClusterRole on nonResourceURLs /metrics scrapes with a TokenRequest token (200); no
// token is 401; another account's token is 403. Then the caches: repeated scrapes ask the API
// server once, concurrent ones share one review.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Agent, request } from "undici";
import { testEnvironment } from "../../../../test/support/environment.js";
import { eventually } from "../envtest/index.js";
import { nullLogger } from "../log/index.js";
import { Manager } from "../manager/index.js";
import { newRESTClient, type RESTClient, type RESTConfig } from "../rest/index.js";
import { withAuthenticationAndAuthorization } from "./auth-filter.js";

const env = testEnvironment();
let config: RESTConfig;
let admin: RESTClient;
const ns = `metrics-auth-${process.pid}`;
before(async () => {
  config = await env.start();
  admin = newRESTClient(config);
  await admin.request({
    method: "POST",
    path: "/api/v1/namespaces",
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
  });
  for (const name of ["scraper", "stranger"]) {
    await admin.request({
      method: "POST",
      path: `/api/v1/namespaces/${ns}/serviceaccounts`,
      body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name } },
    });
  }
  const rbac = "/apis/rbac.authorization.k8s.io/v1";
  await admin.request({
    method: "POST",
    path: `${rbac}/clusterroles`,
    body: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: `${ns}-metrics-reader` },
      rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
    },
  });
  await admin.request({
    method: "POST",
    path: `${rbac}/clusterrolebindings`,
    body: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: `${ns}-metrics-reader` },
      subjects: [{ kind: "ServiceAccount", name: "scraper", namespace: ns }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `${ns}-metrics-reader` },
    },
  });
});
after(() => env.stop());

async function tokenOf(name: string): Promise<string> {
  const r = await admin.request<{ status: { token: string } }>({
    method: "POST",
    path: `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`,
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
  });
  return r.status.token;
}

/** A manager serving metrics over HTTPS behind the filter, and a scrape function. */
async function secureManager(reviewCounter?: { tokenReviews: number; accessReviews: number }) {
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: {
      bindAddress: "127.0.0.1:0",
      secureServing: true,
      filterProvider: (rest, log) => {
        if (!reviewCounter) return withAuthenticationAndAuthorization()(rest, log);
        // Count what reaches the API server: the filter's caches sit in front of this.
        const counting = {
          ...rest,
          request: (opts: Parameters<RESTClient["request"]>[0]) => {
            if (opts.path.endsWith("/tokenreviews")) reviewCounter.tokenReviews++;
            if (opts.path.endsWith("/subjectaccessreviews")) reviewCounter.accessReviews++;
            return rest.request(opts);
          },
        } as RESTClient;
        return withAuthenticationAndAuthorization()(counting, log);
      },
    },
  });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  const addr = await mgr.getMetricsServer().listening();
  assert.ok(addr);
  const agent = new Agent({ connect: { rejectUnauthorized: false } });
  const scrape = async (token?: string) => {
    const res = await request(`https://127.0.0.1:${addr.port}/metrics`, {
      dispatcher: agent,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: res.statusCode, body: await res.body.text() };
  };
  return {
    scrape,
    async close() {
      stop.abort();
      await running;
      await agent.close();
    },
  };
}

test("only callers RBAC lets get /metrics may scrape: 200, 401 without a token, 403 for others", async () => {
  const m = await secureManager();
  try {
    const scraper = await tokenOf("scraper");
    const ok = await eventually("the binding to take effect", async () => {
      const r = await m.scrape(scraper);
      return r.status === 200 ? r : undefined;
    });
    assert.match(ok.body, /# TYPE /);
    assert.deepEqual(await m.scrape(), { status: 401, body: "Unauthorized\n" });
    assert.deepEqual(await m.scrape("not-a-token"), { status: 401, body: "Unauthorized\n" });
    assert.deepEqual(await m.scrape(await tokenOf("stranger")), {
      status: 403,
      body: `Authorization denied for user system:serviceaccount:${ns}:stranger\n`,
    });
  } finally {
    await m.close();
  }
});

test("answers are cached and concurrent scrapes share one review", async () => {
  const counts = { tokenReviews: 0, accessReviews: 0 };
  const m = await secureManager(counts);
  try {
    const scraper = await tokenOf("scraper");
    await eventually("the binding to take effect", async () => (await m.scrape(scraper)).status === 200);
    const before = { ...counts };
    const results = await Promise.all(Array.from({ length: 20 }, () => m.scrape(scraper)));
    assert.ok(results.every((r) => r.status === 200));
    assert.deepEqual(counts, before, "cached answers: no further reviews");

    const stranger = await tokenOf("stranger");
    const denied = await Promise.all(Array.from({ length: 10 }, () => m.scrape(stranger)));
    assert.ok(denied.every((r) => r.status === 403));
    assert.equal(counts.tokenReviews, before.tokenReviews + 1, "ten concurrent scrapes, one TokenReview");
    assert.equal(counts.accessReviews, before.accessReviews + 1, "and one SubjectAccessReview");
  } finally {
    await m.close();
  }
});
