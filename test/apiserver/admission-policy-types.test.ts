// A ValidatingAdmissionPolicy's expressions are type-checked when the policy is written, as
// kube-apiserver compiles them: object, oldObject and params are dyn, request is kube's
// AdmissionRequest, variables have the types of their expressions. A type error, or an output
// that is not exactly what the expression must give (a validation a bool, a messageExpression a
// string, an audit annotation a string or null: dyn will not do), refuses the policy.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let served = false;
const NOT_SERVED = "ValidatingAdmissionPolicy v1 is not served by this server (kube 1.30+)";
const run = Date.now().toString(36);
const policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const created: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
  const group = await api.get("/apis/admissionregistration.k8s.io/v1");
  const resources = (group.body as { resources?: { name: string }[] }).resources ?? [];
  served = resources.some((r) => r.name === "validatingadmissionpolicies");
});
after(async () => {
  for (const path of created) await api.delete(path);
  await target.close();
});

let serial = 0;
/** Writes a policy on ConfigMaps with `spec`: the causes refusing it as `field: message`, [] when stored. */
async function refusal(spec: object): Promise<string[]> {
  const name = `types-${run}-${serial++}`;
  const r = await api.post(policies, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] },
        ],
      },
      ...spec,
    },
  });
  if (r.status === 201) {
    created.push(`${policies}/${name}`);
    return [];
  }
  assert.equal(r.status, 422, r.text);
  const causes = (r.body as { details: { causes: { field: string; message: string }[] } }).details.causes;
  return causes.map((c) => `${c.field}: ${c.message}`);
}

const V = "spec.validations[0]";
const LIMIT = [{ name: "limit", expression: "3" }];

describe("ValidatingAdmissionPolicy expressions type-checked when written", () => {
  test("a type error is kube's 'compilation failed', at cel-go's column", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    const cases: [object, string][] = [
      [
        { validations: [{ expression: "1 == 'a'" }] },
        `${V}.expression: Invalid value: "1 == 'a'": compilation failed: ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, string)'\n | 1 == 'a'\n | ..^`,
      ],
      [
        { validations: [{ expression: "request.operation == 1" }] },
        `${V}.expression: Invalid value: "request.operation == 1": compilation failed: ERROR: <input>:1:19: found no matching overload for '_==_' applied to '(string, int)'\n | request.operation == 1\n | ..................^`,
      ],
      [
        { validations: [{ expression: "variables.nope" }], variables: LIMIT },
        `${V}.expression: Invalid value: "variables.nope": compilation failed: ERROR: <input>:1:10: undefined field 'nope'\n | variables.nope\n | .........^`,
      ],
      [
        { validations: [{ expression: "variables.limit == 'a'" }], variables: LIMIT },
        `${V}.expression: Invalid value: "variables.limit == 'a'": compilation failed: ERROR: <input>:1:17: found no matching overload for '_==_' applied to '(int, string)'\n | variables.limit == 'a'\n | ................^`,
      ],
      [
        { validations: [{ expression: "[1, 'a'].size() > 1" }] },
        `${V}.expression: Invalid value: "[1, 'a'].size() > 1": compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a'].size() > 1\n | ....^`,
      ],
    ];
    for (const [spec, message] of cases)
      assert.deepEqual(await refusal(spec), [message], JSON.stringify(spec));
  });

  test("each kind of expression must evaluate to its own type, exactly", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    const cases: [object, string][] = [
      [
        { validations: [{ expression: "object.nope" }] },
        `${V}.expression: Invalid value: "object.nope": must evaluate to bool but got dyn`,
      ],
      [
        { validations: [{ expression: "has(object.x) ? object.x : true" }] },
        `${V}.expression: Invalid value: "has(object.x) ? object.x : true": must evaluate to bool but got dyn`,
      ],
      [
        { validations: [{ expression: "object.x == 1", messageExpression: "object.metadata.name" }] },
        `${V}.messageExpression: Invalid value: "object.metadata.name": must evaluate to string but got dyn`,
      ],
      [
        { auditAnnotations: [{ key: "a", valueExpression: "size(object.data)" }] },
        'spec.auditAnnotations[0].valueExpression: Invalid value: "size(object.data)": must evaluate to one of [string null_type] but got int',
      ],
    ];
    for (const [spec, message] of cases)
      assert.deepEqual(await refusal(spec), [message], JSON.stringify(spec));
  });

  test("well-typed expressions are stored", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    for (const spec of [
      { validations: [{ expression: "object.x == 1", messageExpression: "'n: ' + object.metadata.name" }] },
      { validations: [{ expression: "size(object.data) > 1 && matches(object.metadata.name, 'a')" }] },
      { validations: [{ expression: "variables.limit > 1" }], variables: LIMIT },
      {
        auditAnnotations: [
          { key: "a", valueExpression: "'x'" },
          { key: "b", valueExpression: "null" },
        ],
      },
    ]) {
      assert.deepEqual(await refusal(spec), [], JSON.stringify(spec));
    }
  });
});
