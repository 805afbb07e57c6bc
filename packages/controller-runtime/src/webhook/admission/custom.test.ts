// customDefaulter and customValidator through the builder core, over real HTTPS.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { defineKind, kinds, type KubeObject } from "../../api/index.js";
import { applyJSONPatch } from "../../patch/index.js";
import { StatusError } from "../../rest/index.js";
import { webhookFor, WebhookBuilderError } from "../builder.js";
import { DuplicateWebhookPathError } from "../errors.js";
import { post, type RunningServer, startServer } from "../../../../../test/support/webhook-server.js";
import { mutatePath, validatePath } from "../paths.js";
import { newWebhookServer } from "../server.js";
import { patchOperations } from "./response.js";
import type { AdmissionRequest, AdmissionResponse, AdmissionReview } from "./types.js";

interface Widget extends KubeObject {
  spec?: { size?: number; color?: string; legacy?: string; tags?: string[] };
}
const Widget = defineKind<Widget>({ group: "toys.example.com", version: "v1alpha1", kind: "Widget" });

const widget: Widget = {
  apiVersion: "toys.example.com/v1alpha1",
  kind: "Widget",
  metadata: { name: "w", namespace: "ns", uid: "abc" },
  spec: { size: 3, legacy: "drop me", tags: ["a"] },
};

/** The widget with another spec. */
const withSpec = (spec: Widget["spec"]): Widget => ({ ...widget, spec });

function req(
  operation: AdmissionRequest["operation"],
  extra: Partial<AdmissionRequest> = {},
): AdmissionReview {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `uid-${operation}`,
      kind: { group: "toys.example.com", version: "v1alpha1", kind: "Widget" },
      resource: { group: "toys.example.com", version: "v1alpha1", resource: "widgets" },
      name: "w",
      namespace: "ns",
      operation,
      userInfo: { username: "alice" },
      ...extra,
    },
  };
}

async function call(run: RunningServer, path: string, review: AdmissionReview): Promise<AdmissionResponse> {
  const res = await post(run, path, review);
  assert.equal(res.status, 200, res.text);
  const body = res.json<AdmissionReview>();
  assert.equal(body.response?.uid, review.request?.uid);
  return body.response as AdmissionResponse;
}

describe("paths", () => {
  test("default paths follow controller-runtime", () => {
    assert.equal(mutatePath(kinds.Pod), "/mutate--v1-pod");
    assert.equal(validatePath(kinds.Deployment), "/validate-apps-v1-deployment");
    assert.equal(mutatePath(Widget), "/mutate-toys-example-com-v1alpha1-widget");
  });
});

describe("customDefaulter and customValidator", () => {
  let run: RunningServer;
  const seen: string[] = [];
  before(async () => {
    run = await startServer((server) => {
      webhookFor(server, Widget)
        .withDefaulter({
          async default(obj, request) {
            seen.push(`default ${request.operation} by ${request.userInfo.username}`);
            obj.spec ??= {};
            obj.spec.color ??= "red";
            obj.spec.size = Math.max(obj.spec.size ?? 0, 5);
            delete obj.spec.legacy;
            obj.spec.tags = [...(obj.spec.tags ?? []), "defaulted"];
            obj.metadata = { ...obj.metadata, annotations: { "toys/defaulted": "true" } };
          },
        })
        .withValidator({
          validateCreate(obj) {
            if ((obj.spec?.size ?? 0) > 10) throw new Error("size must be at most 10");
            if (obj.spec?.color === "invalid") {
              throw new StatusError({
                kind: "Status",
                apiVersion: "v1",
                status: "Failure",
                code: 422,
                reason: "Invalid",
                message: 'Widget.toys.example.com "w" is invalid: spec.color: Unsupported value: "invalid"',
                details: {
                  name: "w",
                  kind: "Widget",
                  causes: [{ field: "spec.color", reason: "FieldValueNotSupported" }],
                },
              });
            }
            return obj.spec?.color === "green" ? ["green is deprecated"] : undefined;
          },
          async validateUpdate(oldObj, newObj) {
            if (oldObj.spec?.color !== newObj.spec?.color) throw new Error("color is immutable");
            return ["updated", "twice"];
          },
          validateDelete(obj) {
            if (obj.metadata?.labels?.protected === "true")
              throw new Error(`${obj.metadata.name} is protected`);
            return [];
          },
        })
        .complete();
      // Only a validator, without delete: a left-out method admits.
      webhookFor(server, kinds.Pod)
        .withValidator({
          validateCreate: (pod: Pod) => {
            if (!pod.spec?.containers?.length) throw new Error("a pod needs containers");
          },
        })
        .complete();
    });
  });
  after(() => run.stop());

  test("the builder registered the default paths", () => {
    assert.deepEqual(run.server.paths(), [
      "/mutate-toys-example-com-v1alpha1-widget",
      "/validate-toys-example-com-v1alpha1-widget",
      "/validate--v1-pod",
    ]);
  });

  test("the defaulter's JSON patch applied to the original gives the defaulted object", async () => {
    const resp = await call(run, mutatePath(Widget), req("CREATE", { object: widget }));
    assert.equal(resp.allowed, true);
    assert.equal(resp.patchType, "JSONPatch");
    const result = applyJSONPatch(structuredClone(widget), patchOperations(resp)) as Widget;
    assert.deepEqual(result, {
      ...widget,
      metadata: { ...widget.metadata, annotations: { "toys/defaulted": "true" } },
      spec: { size: 5, color: "red", tags: ["a", "defaulted"] },
    });
    assert.deepEqual(seen.at(-1), "default CREATE by alice");
  });

  test("the defaulter runs on UPDATE too, and answers without a patch when nothing changes", async () => {
    const done: Widget = {
      ...widget,
      metadata: { ...widget.metadata, annotations: { "toys/defaulted": "true" } },
      spec: { size: 5, color: "red", tags: [] },
    };
    const resp = await call(run, mutatePath(Widget), req("UPDATE", { object: done, oldObject: done }));
    assert.equal(resp.allowed, true);
    assert.deepEqual(applyJSONPatch(structuredClone(done), patchOperations(resp)), {
      ...done,
      spec: { size: 5, color: "red", tags: ["defaulted"] },
    });
  });

  test("the defaulter admits DELETE without calling default", async () => {
    const count = seen.length;
    const resp = await call(run, mutatePath(Widget), req("DELETE", { oldObject: widget }));
    assert.deepEqual(resp, { uid: "uid-DELETE", allowed: true, status: { code: 200 } });
    assert.equal(seen.length, count);
  });

  test("an object of another kind is a 400 error", async () => {
    const resp = await call(
      run,
      mutatePath(Widget),
      req("CREATE", { object: { apiVersion: "v1", kind: "Pod" } }),
    );
    assert.equal(resp.allowed, false);
    assert.equal(resp.status?.code, 400);
    assert.match(resp.status?.message ?? "", /expects toys.example.com\/v1alpha1, Kind=Widget/);
  });

  test("a request without an object is a 400 error", async () => {
    const resp = await call(run, mutatePath(Widget), req("CREATE"));
    assert.equal(resp.status?.code, 400);
    assert.match(resp.status?.message ?? "", /has no object/);
  });

  test("validateCreate admits with its warnings", async () => {
    const resp = await call(
      run,
      validatePath(Widget),
      req("CREATE", { object: withSpec({ color: "green" }) }),
    );
    assert.deepEqual(resp, {
      uid: "uid-CREATE",
      allowed: true,
      status: { code: 200 },
      warnings: ["green is deprecated"],
    });
  });

  test("a plain error from the validator denies with 403 Forbidden", async () => {
    const resp = await call(run, validatePath(Widget), req("CREATE", { object: withSpec({ size: 11 }) }));
    assert.deepEqual(resp, {
      uid: "uid-CREATE",
      allowed: false,
      status: { code: 403, reason: "Forbidden", message: "size must be at most 10" },
    });
  });

  test("a StatusError from the validator keeps its code, reason and details", async () => {
    const resp = await call(
      run,
      validatePath(Widget),
      req("CREATE", { object: withSpec({ color: "invalid" }) }),
    );
    assert.equal(resp.allowed, false);
    assert.equal(resp.status?.code, 422);
    assert.equal(resp.status?.reason, "Invalid");
    assert.match(resp.status?.message ?? "", /spec.color: Unsupported value/);
    assert.equal(resp.status?.details?.causes?.[0]?.field, "spec.color");
  });

  test("validateUpdate gets the old and the new object", async () => {
    const changed = withSpec({ color: "blue" });
    const denied = await call(
      run,
      validatePath(Widget),
      req("UPDATE", { object: changed, oldObject: widget }),
    );
    assert.equal(denied.allowed, false);
    assert.equal(denied.status?.message, "color is immutable");
    const ok = await call(run, validatePath(Widget), req("UPDATE", { object: widget, oldObject: widget }));
    assert.equal(ok.allowed, true);
    assert.deepEqual(ok.warnings, ["updated", "twice"]);
  });

  test("validateDelete gets the object being deleted from oldObject", async () => {
    const prot = { ...widget, metadata: { ...widget.metadata, labels: { protected: "true" } } };
    const denied = await call(run, validatePath(Widget), req("DELETE", { oldObject: prot }));
    assert.equal(denied.allowed, false);
    assert.equal(denied.status?.message, "w is protected");
    const ok = await call(run, validatePath(Widget), req("DELETE", { oldObject: widget }));
    assert.deepEqual(ok, { uid: "uid-DELETE", allowed: true, status: { code: 200 } });
  });

  test("CONNECT is an unknown operation for a validator (400)", async () => {
    const resp = await call(run, validatePath(Widget), req("CONNECT", { object: widget }));
    assert.equal(resp.status?.code, 400);
    assert.match(resp.status?.message ?? "", /unknown operation "CONNECT"/);
  });

  test("a validator method left out admits its operation", async () => {
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [] } };
    const podReq = (
      operation: AdmissionRequest["operation"],
      extra: Partial<AdmissionRequest>,
    ): AdmissionReview => ({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: { ...(req(operation).request as AdmissionRequest), ...extra },
    });
    const denied = await call(run, "/validate--v1-pod", podReq("CREATE", { object: pod }));
    assert.equal(denied.status?.message, "a pod needs containers");
    const ok = await call(run, "/validate--v1-pod", podReq("DELETE", { oldObject: pod }));
    assert.equal(ok.allowed, true);
  });
});

describe("webhookFor", () => {
  test("reports misuse when completing", () => {
    const server = newWebhookServer();
    assert.throws(() => webhookFor(server, kinds.Pod).complete(), WebhookBuilderError);
    assert.throws(
      () => webhookFor(server, kinds.Pod).withValidatorCustomPath("/v").complete(),
      /withValidatorCustomPath needs withValidator/,
    );
    const d = { default() {} };
    assert.throws(
      () => webhookFor(server, kinds.Pod).withDefaulter(d).withDefaulter(d).complete(),
      /called twice/,
    );
    const b = webhookFor(server, kinds.Pod).withDefaulter(d);
    b.complete();
    assert.throws(() => b.complete(), /already called/);
  });

  test("a second defaulter for one kind is a duplicate path", () => {
    const server = newWebhookServer();
    webhookFor<Deployment>(server, kinds.Deployment)
      .withDefaulter({ default() {} })
      .complete();
    assert.throws(
      () =>
        webhookFor(server, kinds.Deployment)
          .withDefaulter({ default() {} })
          .complete(),
      (err: unknown) =>
        err instanceof DuplicateWebhookPathError && /\/mutate-apps-v1-deployment/.test(err.message),
    );
  });

  test("custom paths replace the defaults", () => {
    const server = newWebhookServer();
    webhookFor(server, Widget)
      .withDefaulter({ default() {} })
      .withDefaulterCustomPath("/my-mutate")
      .withValidator({})
      .withValidatorCustomPath("/my-validate")
      .complete();
    assert.deepEqual(server.paths(), ["/my-mutate", "/my-validate"]);
  });
});
