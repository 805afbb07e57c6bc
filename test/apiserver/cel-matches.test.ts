// CEL's global `matches(string, regex)`, which cel-go declares beside the method form: a CRD rule
// and a ValidatingAdmissionPolicy in that form evaluate as kube evaluates them (Gateway API
// v1.6.1 ships such a policy), rather than failing with "no matching overload" on every object.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
const run = Date.now().toString(36);
const group = `matches${run}.example.com`;
const ns = `matches-${run}`;
const policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
const created: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
  assert.equal(
    (await api.post("/api/v1/namespaces", { metadata: { name: ns, labels: { matches: run } } })).status,
    201,
  );
});
after(async () => {
  for (const path of created.reverse()) await api.delete(path);
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const causes = (r: { body: unknown }) =>
  ((r.body as { details?: { causes?: { message?: string }[] } }).details?.causes ?? []).map((c) => c.message);

describe("CEL's global matches()", () => {
  test("a CRD rule in the global form keeps matching values and refuses others", async () => {
    const plural = "gates";
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { plural, singular: "gate", kind: "Gate", listKind: "GateList" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: {
                    type: "object",
                    properties: {
                      host: {
                        type: "string",
                        "x-kubernetes-validations": [
                          {
                            rule: "matches(self, '^[a-z]+(\\\\.[a-z]+)*$')",
                            message: "host must be a DNS name",
                          },
                        ],
                      },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    };
    const r = await api.post(CRDS, crd);
    assert.equal(r.status, 201, r.text);
    created.push(`${CRDS}/${plural}.${group}`);
    const collection = `/apis/${group}/v1/namespaces/${ns}/${plural}`;
    await eventually("the CRD served", async () => (await api.get(collection)).status === 200, {
      timeoutMs: 30_000,
    });
    const gate = (name: string, host: string) => ({
      apiVersion: `${group}/v1`,
      kind: "Gate",
      metadata: { name },
      spec: { host },
    });
    const good = await api.post(collection, gate("good", "example.com"));
    assert.equal(good.status, 201, good.text);
    const bad = await api.post(collection, gate("bad", "Example_com"));
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(causes(bad), ['Invalid value: "Example_com": host must be a DNS name']);
  });

  test("an admission policy in the global form denies only what does not match", async () => {
    const name = `matches-${run}`;
    const policy = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name },
      spec: {
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] },
          ],
          namespaceSelector: { matchLabels: { matches: run } },
        },
        validations: [
          { expression: "matches(object.metadata.name, '^cm-[0-9]+$')", message: "name must be cm-<n>" },
        ],
      },
    };
    const binding = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name },
      spec: { policyName: name, validationActions: ["Deny"] },
    };
    for (const [collection, obj] of [
      [policies, policy],
      [bindings, binding],
    ] as const) {
      const r = await api.post(collection, obj);
      assert.equal(r.status, 201, r.text);
      created.push(`${collection}/${name}`);
    }
    const configMaps = `/api/v1/namespaces/${ns}/configmaps`;
    const cm = (n: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: n } });
    await eventually(
      "the policy enforced",
      async () => (await api.post(`${configMaps}?dryRun=All`, cm("probe"))).status >= 400,
      { timeoutMs: 30_000 },
    );
    const good = await api.post(configMaps, cm("cm-1"));
    assert.equal(good.status, 201, good.text);
    const bad = await api.post(configMaps, cm("other"));
    assert.equal(bad.status, 422, bad.text);
    assert.equal(
      (bad.body as { message: string }).message,
      `configmaps "other" is forbidden: ValidatingAdmissionPolicy '${name}' with binding '${name}' denied request: name must be cm-<n>`,
    );
  });
});
