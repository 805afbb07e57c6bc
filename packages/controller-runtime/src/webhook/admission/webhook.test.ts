// The admission webhook over real HTTPS: responses, warnings, review versions, malformed reviews,
// throwing handlers and the metrics they leave.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { KubeObject } from "../../api/index.js";
import { applyJSONPatch } from "../../patch/index.js";
import { maxRequestSize } from "../internal/read-body.js";
import {
  metricValue,
  post,
  type RunningServer,
  startServer,
} from "../../../../../test/support/webhook-server.js";
import {
  allowed,
  denied,
  errored,
  newAdmissionWebhook,
  patched,
  patchOperations,
  patchResponseFromRaw,
  withWarnings,
} from "./index.js";
import type { AdmissionRequest, AdmissionReview } from "./types.js";

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns" },
  spec: { containers: [] },
};

function request(overrides: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
    kind: { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    name: "p",
    namespace: "ns",
    operation: "CREATE",
    userInfo: { username: "admin" },
    object: pod,
    ...overrides,
  };
}

function reviewOf(req: AdmissionRequest, apiVersion = "admission.k8s.io/v1"): AdmissionReview {
  return { apiVersion, kind: "AdmissionReview", request: req };
}

describe("admission webhook over HTTPS", () => {
  let run: RunningServer;
  before(async () => {
    run = await startServer((s) => {
      s.register("/allow", newAdmissionWebhook({ handle: () => withWarnings(allowed("fine"), "w1", "w2") }));
      s.register(
        "/deny",
        newAdmissionWebhook({ handle: () => withWarnings(denied("no pods today"), "careful") }),
      );
      s.register("/error", newAdmissionWebhook({ handle: () => errored(422, new Error("bad spec")) }));
      s.register(
        "/label",
        newAdmissionWebhook({
          handle: (req) => {
            const obj = structuredClone(req.object) as KubeObject;
            obj.metadata = { ...obj.metadata, labels: { "app.kubernetes.io/name": "x" } };
            return patched(req.object, obj);
          },
        }),
      );
      s.register(
        "/raw",
        newAdmissionWebhook({
          handle: (req) =>
            patchResponseFromRaw(JSON.stringify(req.object), { ...req.object, metadata: { name: "q" } }),
        }),
      );
      s.register(
        "/throw",
        newAdmissionWebhook({
          handle: () => {
            throw new Error("boom");
          },
        }),
      );
      s.register(
        "/reject",
        newAdmissionWebhook({ handle: () => Promise.reject(new TypeError("async boom")) }),
      );
      s.register(
        "/echo-signal",
        newAdmissionWebhook({ handle: (_req, signal) => allowed(String(signal.aborted)) }),
      );
    });
  });
  after(() => run.stop());

  test("an allowed response echoes the uid and the review version, with warnings", async () => {
    const res = await post(run, "/allow", reviewOf(request()));
    assert.equal(res.status, 200);
    assert.match(String(res.headers["content-type"]), /application\/json/);
    assert.deepEqual(res.json(), {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: {
        uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
        allowed: true,
        status: { code: 200, message: "fine" },
        warnings: ["w1", "w2"],
      },
    });
  });

  test("a v1beta1 review is answered as v1beta1", async () => {
    const res = await post(run, "/allow", reviewOf(request({ uid: "b1" }), "admission.k8s.io/v1beta1"));
    const body = res.json<AdmissionReview>();
    assert.equal(body.apiVersion, "admission.k8s.io/v1beta1");
    assert.equal(body.kind, "AdmissionReview");
    assert.equal(body.response?.uid, "b1");
  });

  test("a review without apiVersion and kind is taken as v1, as controller-runtime does", async () => {
    const res = await post(run, "/allow", { request: request({ uid: "u0" }) });
    const body = res.json<AdmissionReview>();
    assert.equal(body.apiVersion, "admission.k8s.io/v1");
    assert.equal(body.response?.allowed, true);
  });

  test("a denial carries 403 Forbidden, the message and warnings", async () => {
    const body = (await post(run, "/deny", reviewOf(request()))).json<AdmissionReview>();
    assert.deepEqual(body.response, {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: false,
      status: { code: 403, reason: "Forbidden", message: "no pods today" },
      warnings: ["careful"],
    });
  });

  test("an errored response keeps its code and message", async () => {
    const body = (await post(run, "/error", reviewOf(request()))).json<AdmissionReview>();
    assert.deepEqual(body.response?.status, { code: 422, message: "bad spec" });
    assert.equal(body.response?.allowed, false);
  });

  test("a patched response is a base64 JSON patch that turns the original into the mutated object", async () => {
    const body = (await post(run, "/label", reviewOf(request()))).json<AdmissionReview>();
    assert.equal(body.response?.allowed, true);
    assert.equal(body.response?.patchType, "JSONPatch");
    const ops = patchOperations(body.response ?? { allowed: false });
    assert.ok(ops.length > 0);
    const result = applyJSONPatch(structuredClone(pod), ops);
    assert.deepEqual(result, {
      ...pod,
      metadata: { ...pod.metadata, labels: { "app.kubernetes.io/name": "x" } },
    });
  });

  test("patchResponseFromRaw computes the patch against the raw JSON", async () => {
    const body = (await post(run, "/raw", reviewOf(request()))).json<AdmissionReview>();
    const ops = patchOperations(body.response ?? { allowed: false });
    assert.deepEqual(applyJSONPatch(structuredClone(pod), ops), { ...pod, metadata: { name: "q" } });
  });

  test("a handler that throws is denied with a 500 status, counted as a panic, and the server keeps serving", async () => {
    const before = (await metricValue(run.registry, "controller_runtime_webhook_panics_total")) ?? 0;
    const res = await post(run, "/throw", reviewOf(request({ uid: "t1" })));
    assert.equal(res.status, 200);
    const body = res.json<AdmissionReview>();
    assert.equal(body.response?.uid, "t1");
    assert.equal(body.response?.allowed, false);
    assert.equal(body.response?.status?.code, 500);
    assert.equal(body.response?.status?.message, "panic: boom [recovered]");
    const rejected = (await post(run, "/reject", reviewOf(request()))).json<AdmissionReview>();
    assert.equal(rejected.response?.status?.message, "panic: async boom [recovered]");
    assert.equal(await metricValue(run.registry, "controller_runtime_webhook_panics_total"), before + 2);
    assert.equal(
      (await post(run, "/allow", reviewOf(request()))).json<AdmissionReview>().response?.allowed,
      true,
    );
  });

  test("the handler's signal is live while the request runs", async () => {
    const body = (await post(run, "/echo-signal?timeout=10s", reviewOf(request()))).json<AdmissionReview>();
    assert.equal(body.response?.status?.message, "false");
  });

  describe("malformed reviews get HTTP 200 and an errored review, as controller-runtime answers", () => {
    async function errorReview(body: unknown, code: number, message: RegExp, contentType?: string) {
      const res = await post(run, "/allow", body, { contentType });
      assert.equal(res.status, 200);
      const review = res.json<AdmissionReview>();
      assert.equal(review.kind, "AdmissionReview");
      assert.equal(review.response?.allowed, false);
      assert.equal(review.response?.status?.code, code);
      assert.match(review.response?.status?.message ?? "", message);
      return review;
    }
    async function expectError(
      body: unknown,
      code: number,
      message: RegExp,
      contentType?: string,
    ): Promise<void> {
      await errorReview(body, code, message, contentType);
    }

    test("a body that is not JSON", () => expectError("{not json", 400, /unable to decode the request/));
    test("an empty body", () => expectError("", 400, /request body is empty/));
    test("a content type other than JSON", () =>
      expectError(
        reviewOf(request()),
        400,
        /contentType=text\/plain, expected application\/json/,
        "text/plain",
      ));
    test("a JSON value that is not an object", () => expectError("[1,2]", 400, /not a JSON object/));
    test("another kind", () =>
      expectError(
        { apiVersion: "v1", kind: "Pod", request: request() },
        400,
        /unexpected AdmissionReview kind/,
      ));
    test("an unknown AdmissionReview version", () =>
      expectError(
        { apiVersion: "admission.k8s.io/v2", kind: "AdmissionReview", request: request() },
        400,
        /unexpected AdmissionReview kind/,
      ));
    test("no request", () =>
      expectError({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }, 400, /has no request/));
    test("no request uid", async () => {
      const review = await errorReview(reviewOf(request({ uid: "" })), 400, /request has no uid/);
      assert.equal(review.apiVersion, "admission.k8s.io/v1");
    });
    test("a body over the limit is answered 413 without being kept", async () => {
      const big = `{"pad":"${"x".repeat(maxRequestSize)}"}`;
      await expectError(big, 413, /request entity is too large; limit is 7340032 bytes/);
    });
    test("the server still answers after the malformed requests", async () => {
      assert.equal(
        (await post(run, "/allow", reviewOf(request()))).json<AdmissionReview>().response?.allowed,
        true,
      );
    });
  });

  test("every request is counted per path with its HTTP code", async () => {
    const before =
      (await metricValue(run.registry, "controller_runtime_webhook_requests_total", {
        webhook: "/deny",
        code: "200",
      })) ?? 0;
    await post(run, "/deny", reviewOf(request()));
    await post(run, "/deny", reviewOf(request()));
    assert.equal(
      await metricValue(run.registry, "controller_runtime_webhook_requests_total", {
        webhook: "/deny",
        code: "200",
      }),
      before + 2,
    );
    assert.equal(
      await metricValue(run.registry, "controller_runtime_webhook_latency_seconds_count", {
        webhook: "/deny",
      }),
      before + 2,
    );
    assert.equal(
      await metricValue(run.registry, "controller_runtime_webhook_requests_in_flight", { webhook: "/deny" }),
      0,
    );
  });
});

describe("response builders", () => {
  test("patched with equal objects adds no patch", () => {
    assert.deepEqual(patched(pod, structuredClone(pod)), { allowed: true, status: { code: 200 } });
  });
  test("withWarnings appends without changing the original", () => {
    const a = withWarnings(allowed(), "one");
    const b = withWarnings(a, "two");
    assert.deepEqual(a.warnings, ["one"]);
    assert.deepEqual(b.warnings, ["one", "two"]);
  });
  test("patchResponseFromRaw with invalid JSON is a 500 error", () => {
    const r = patchResponseFromRaw("{", {});
    assert.equal(r.allowed, false);
    assert.equal(r.status?.code, 500);
  });
  test("handle() fills in the uid and a 200 status", async () => {
    const wh = newAdmissionWebhook({ handle: () => ({ allowed: true }) });
    assert.deepEqual(await wh.handle(request({ uid: "x" }), new AbortController().signal), {
      uid: "x",
      allowed: true,
      status: { code: 200 },
    });
  });
});
