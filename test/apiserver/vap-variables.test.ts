// A ValidatingAdmissionPolicy's variables are evaluated lazily, as kube-apiserver 1.37 does
// (admission/plugin/cel/composition.go): on first reference from a validation, a
// messageExpression, an auditAnnotation or a matchCondition, once per evaluation. A variable that
// fails but is never read fails nothing; one that is read fails the expression reading it, in
// kube's words ("composited variable ... fails to evaluate"), and failurePolicy decides; a
// variable may read an earlier one. matchConditions may not read variables (kube compiles them
// without), though kube's evaluator would let them.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
const run = Date.now().toString(36);
const ns = `vapvars-${run}`;
const policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
const configMaps = `/api/v1/namespaces/${ns}/configmaps`;
const created: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
  const r = await api.post("/api/v1/namespaces", { metadata: { name: ns, labels: { vapvars: run } } });
  assert.equal(r.status, 201, r.text);
});
after(async () => {
  for (const path of created.reverse()) await api.delete(path);
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const configMap = (name: string, data: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name },
  data,
});

/** Installs a policy on this run's ConfigMaps (only those whose name starts with `name`) and its Deny binding. */
async function install(name: string, spec: object): Promise<void> {
  const policy = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: `${name}-${run}` },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] },
        ],
        namespaceSelector: { matchLabels: { vapvars: run } },
      },
      ...spec,
    },
  };
  const binding = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: `${name}-${run}` },
    spec: { policyName: `${name}-${run}`, validationActions: ["Deny"] },
  };
  for (const [collection, obj] of [
    [policies, policy],
    [bindings, binding],
  ] as const) {
    const r = await api.post(collection, obj);
    assert.equal(r.status, 201, r.text);
    created.push(`${collection}/${obj.metadata.name}`);
  }
}

/** Waits until a dry-run create of `probe` is refused by the policy `name` (kube loads policies a moment after their write). */
async function enforced(name: string, probe: object): Promise<void> {
  await eventually(
    `the policy ${name} enforced`,
    async () => {
      const r = await api.post(`${configMaps}?dryRun=All`, probe);
      return (
        r.status >= 400 && String(r.body?.message).includes(`ValidatingAdmissionPolicy '${name}-${run}'`)
      );
    },
    { timeoutMs: 30_000 },
  );
}

const denied = (name: string) =>
  `ValidatingAdmissionPolicy '${name}-${run}' with binding '${name}-${run}' denied request: `;
/** Only ConfigMaps named for the policy are its business: other tests' probes pass it by. */
const onlyNamed = (name: string) => ({
  name: "named",
  expression: `object.metadata.name.startsWith('${name}')`,
});

describe("ValidatingAdmissionPolicy variables, evaluated lazily", () => {
  test("a failing variable never read fails nothing; one reads an earlier one", async () => {
    await install("lazy", {
      failurePolicy: "Fail",
      matchConditions: [onlyNamed("lazy")],
      variables: [
        { name: "boom", expression: "object.data.missing == 'x'" },
        { name: "keys", expression: "size(object.data)" },
        { name: "twice", expression: "variables.keys * 2" },
      ],
      validations: [
        { expression: "variables.twice <= 4", messageExpression: "'keys: ' + string(variables.keys)" },
      ],
    });
    await enforced("lazy", configMap("lazy-probe", { a: "1", b: "2", c: "3" }));
    const ok = await api.post(configMaps, configMap("lazy-ok", { a: "1" }));
    assert.equal(ok.status, 201, ok.text);
    const many = await api.post(configMaps, configMap("lazy-many", { a: "1", b: "2", c: "3" }));
    assert.equal(many.status, 422, many.text);
    assert.equal(many.body.message, `configmaps "lazy-many" is forbidden: ${denied("lazy")}keys: 3`);
  });

  test("a variable read and failing fails its expression in kube's words; failurePolicy decides", async () => {
    const spec = (failurePolicy: string) => ({
      failurePolicy,
      variables: [{ name: "boom", expression: "object.data.missing == 'x'" }],
      validations: [{ expression: "object.metadata.name.endsWith('-skip') || variables.boom" }],
    });
    await install("fail", { ...spec("Fail"), matchConditions: [onlyNamed("fail")] });
    await install("ignore", { ...spec("Ignore"), matchConditions: [onlyNamed("ignore")] });
    await enforced("fail", configMap("fail-probe", {}));
    // Not read: the other side of || decided.
    const skipped = await api.post(configMaps, configMap("fail-skip", {}));
    assert.equal(skipped.status, 201, skipped.text);
    const failed = await api.post(configMaps, configMap("fail-read", {}));
    // An evaluation error under Fail is a 422 (a denial by a validation is its reason's code).
    assert.equal(failed.status, 422, failed.text);
    assert.equal(
      failed.body.message,
      `configmaps "fail-read" is forbidden: ${denied("fail")}expression 'object.metadata.name.endsWith('-skip') || variables.boom' resulted in error: composited variable "boom" fails to evaluate: no such key: data`,
    );
    const ignored = await api.post(configMaps, configMap("ignore-read", {}));
    assert.equal(ignored.status, 201, ignored.text);
  });

  test("cost: variables never read cost nothing, one read twenty times is paid once", async () => {
    // Each variable costs about 600 000 (a 100 000-byte string searched for a 600-byte one):
    // twenty of them would pass the policy's budget of 10 000 000.
    const costly = `!object.data.big.contains('${"b".repeat(600)}')`;
    const variables = Array.from({ length: 20 }, (_, i) => ({ name: `v${i}`, expression: costly }));
    await install("unread", {
      failurePolicy: "Fail",
      matchConditions: [onlyNamed("unread")],
      variables,
      validations: [{ expression: "object.metadata.name != 'unread-probe'", message: "probe" }],
    });
    await install("once", {
      failurePolicy: "Fail",
      matchConditions: [onlyNamed("once")],
      variables: [{ name: "v", expression: costly }],
      validations: [
        { expression: "object.metadata.name != 'once-probe'", message: "probe" },
        ...Array.from({ length: 20 }, () => ({ expression: "variables.v" })),
      ],
    });
    // The control: an expression that reads them all spends the budget.
    await install("all", {
      failurePolicy: "Fail",
      matchConditions: [onlyNamed("all")],
      variables,
      validations: [
        { expression: "object.metadata.name != 'all-probe'", message: "probe" },
        { expression: variables.map((v) => `variables.${v.name}`).join(" && ") },
      ],
    });
    await enforced("all", configMap("all-probe", {}));
    const all = await api.post(configMaps, configMap("all-big", { big: "a".repeat(100_000) }));
    assert.equal(all.status, 422, all.text);
    assert.equal(
      all.body.message,
      `configmaps "all-big" is forbidden: ${denied("all")}validation failed due to running out of cost budget, no further validation rules will be run`,
    );
    await enforced("unread", configMap("unread-probe", {}));
    await enforced("once", configMap("once-probe", {}));
    const big = "a".repeat(100_000);
    for (const name of ["unread-big", "once-big"]) {
      const r = await api.post(configMaps, configMap(name, { big }));
      assert.equal(r.status, 201, `${name}: ${r.text.slice(0, 500)}`);
    }
  });

  test("matchConditions may not read variables: the policy is refused when written", async () => {
    const r = await api.post(policies, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: `match-${run}` },
      spec: {
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] },
          ],
        },
        variables: [{ name: "checked", expression: "'check' in object.data" }],
        matchConditions: [{ name: "checked", expression: "variables.checked" }],
        validations: [{ expression: "true" }],
      },
    });
    assert.equal(r.status, 422, r.text);
    assert.equal(
      r.body.message,
      `ValidatingAdmissionPolicy.admissionregistration.k8s.io "match-${run}" is invalid: spec.matchConditions[0].expression: Invalid value: "variables.checked": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.checked\n | ^`,
    );
  });
});
