// Rule matching and AdmissionReview answers, without a server: the table of kube's rules.go
// cases that the end-to-end suites (test/webhooks) do not reach one by one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { labelSelectorFromObject } from "controller-runtime/api";
import { builtinResources, Registry } from "../registry/index.js";
import { matchRules } from "./matching.js";
import { InvalidResponseError, UndecodableResponseError, verifyAdmissionResponse } from "./review.js";
import type { AdmissionAttributes, ResolvedRule, ResolvedWebhook } from "./types.js";

const registry = new Registry(builtinResources());
const pods = registry.lookup("", "v1", "pods")!;
const namespaces = registry.lookup("", "v1", "namespaces")!;

function hook(rules: Partial<ResolvedRule>[]): ResolvedWebhook {
  return {
    mutating: false,
    configurationName: "c",
    index: 0,
    name: "h",
    clientConfig: {},
    rules: rules.map((r) => ({
      operations: ["*"],
      apiGroups: ["*"],
      apiVersions: ["*"],
      resources: ["*"],
      scope: "*",
      ...r,
    })),
    failurePolicy: "Fail",
    matchPolicy: "Equivalent",
    namespaceSelector: labelSelectorFromObject(undefined),
    objectSelector: labelSelectorFromObject(undefined),
    sideEffects: "None",
    timeoutSeconds: 10,
    admissionReviewVersions: ["v1"],
    reinvocationPolicy: "Never",
    selectorError: undefined,
    matchConditions: [],
  };
}

function attrs(over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    def: pods,
    operation: "CREATE",
    namespace: "ns",
    name: "p",
    subresource: "",
    object: {},
    oldObject: undefined,
    options: {},
    dryRun: false,
    user: { name: "u", groups: [] },
    ...over,
  };
}

const cases: [string, Partial<ResolvedRule>, Partial<AdmissionAttributes>, boolean][] = [
  ["exact resource", { resources: ["pods"] }, {}, true],
  ["other resource", { resources: ["configmaps"] }, {}, false],
  ["`*` leaves subresources out", { resources: ["*"] }, { subresource: "status" }, false],
  ["`*/*` takes subresources", { resources: ["*/*"] }, { subresource: "status" }, true],
  ["`pods/*` takes pods itself", { resources: ["pods/*"] }, {}, true],
  ["`*/status`", { resources: ["*/status"] }, { subresource: "status" }, true],
  ["`*/status` is not the main resource", { resources: ["*/status"] }, {}, false],
  ["operation", { operations: ["UPDATE"] }, {}, false],
  ["group", { apiGroups: ["apps"] }, {}, false],
  ["version", { apiVersions: ["v2"] }, {}, false],
  ["Namespaced scope", { scope: "Namespaced" }, {}, true],
  ["Cluster scope leaves namespaced objects out", { scope: "Cluster" }, {}, false],
  ["a namespace is Cluster scoped", { scope: "Cluster" }, { def: namespaces, namespace: "n" }, true],
  ["a namespace is not Namespaced", { scope: "Namespaced" }, { def: namespaces, namespace: "n" }, false],
];

for (const [what, rule, over, expected] of cases) {
  test(`rules: ${what}`, () => {
    assert.equal(matchRules(hook([rule]), attrs(over), registry) !== undefined, expected);
  });
}

const body = (o: unknown) => Buffer.from(JSON.stringify(o));
const review = (response: unknown) =>
  body({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response });

test("v1 answers: uid, kind, patch rules", () => {
  const ok = verifyAdmissionResponse("v1", "u1", true, review({ uid: "u1", allowed: true, warnings: ["w"] }));
  assert.deepEqual([ok.allowed, ok.warnings, ok.patch], [true, ["w"], undefined]);
  assert.throws(
    () => verifyAdmissionResponse("v1", "u1", true, review({ uid: "u2", allowed: true })),
    InvalidResponseError,
  );
  assert.throws(
    () =>
      verifyAdmissionResponse(
        "v1",
        "u1",
        false,
        review({ uid: "u1", allowed: true, patch: "W10=", patchType: "JSONPatch" }),
      ),
    /validating webhook may not return response.patch/,
  );
  assert.throws(
    () =>
      verifyAdmissionResponse("v1", "u1", true, review({ uid: "u1", allowed: true, patchType: "JSONPatch" })),
    /webhook returned response.patchType but not response.patch/,
  );
  assert.throws(() => verifyAdmissionResponse("v1", "u1", true, Buffer.from("{")), UndecodableResponseError);
  assert.throws(
    () => verifyAdmissionResponse("v1", "u1", true, body({ response: {} })),
    /Object 'Kind' is missing/,
  );
});

test("v1beta1 answers: no uid or kind check, a patch is a JSON patch", () => {
  const answer = verifyAdmissionResponse(
    "v1beta1",
    "u1",
    true,
    body({ kind: "AdmissionReview", response: { allowed: true, patch: "W10=" } }),
  );
  assert.equal(answer.patchType, "JSONPatch");
  assert.equal(answer.patch?.toString(), "[]");
});
