// ValidatingAdmissionPolicy and its binding (admissionregistration.k8s.io/v1, kube 1.30+): what a
// cluster refuses when they are written, and what they do to requests: validations with message,
// messageExpression and reason; variables; matchConditions; auditAnnotations; the binding's
// validationActions (Deny, Warn, Audit), matchResources and paramRef (by name, by selector,
// parameterNotFoundAction); the policy's failurePolicy on a runtime error; status.typeChecking;
// the authorizer variable; objects converted to the version a policy matched. Runs wherever the
// server serves the v1 kinds (the embedded server; a 1.30+ cluster); kube-apiserver 1.26 has only
// an alpha version behind a gate.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { needs } from "../support/environment.js";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let served = false;
const NOT_SERVED = "ValidatingAdmissionPolicy v1 is not served by this server (kube 1.30+)";
const run = Date.now().toString(36);
const ns = `vap-${run}`;
const policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
const configMaps = `/api/v1/namespaces/${ns}/configmaps`;
const created: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
  const group = await api.get("/apis/admissionregistration.k8s.io/v1");
  const resources = (group.body as { resources?: { name: string }[] }).resources ?? [];
  served = resources.some((r) => r.name === "validatingadmissionpolicies");
  if (!served) console.log(`# ${NOT_SERVED}: checks skipped`);
  assert.equal(
    (await api.post("/api/v1/namespaces", { metadata: { name: ns, labels: { vap: run } } })).status,
    201,
  );
});
after(async () => {
  for (const path of created.reverse()) await api.delete(path);
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const configMap = (name: string, data: Record<string, string>, labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, labels },
  data,
});

/** A policy on ConfigMaps in this run's namespace. */
function policy(name: string, spec: object) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: `${name}-${run}` },
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [""],
            apiVersions: ["v1"],
            operations: ["CREATE", "UPDATE"],
            resources: ["configmaps"],
          },
        ],
        namespaceSelector: { matchLabels: { vap: run } },
      },
      ...spec,
    },
  };
}

function binding(name: string, spec: object) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: `${name}-${run}` },
    spec: { policyName: `${name}-${run}`, validationActions: ["Deny"], ...spec },
  };
}

async function install(p: object, b: object): Promise<void> {
  for (const [collection, obj] of [
    [policies, p],
    [bindings, b],
  ] as const) {
    const r = await api.post(collection, obj);
    assert.equal(r.status, 201, r.text);
    created.push(`${collection}/${(obj as { metadata: { name: string } }).metadata.name}`);
  }
}

/**
 * Waits until a create of `probe` is refused by the policy `name` (a policy takes effect once the
 * server has seen it: kube-apiserver refreshes its policies from an informer, a moment after the
 * write). Another test's policy refusing the probe does not count, and a probe should be one no
 * other policy refuses: when several deny, kube reports the first in an order it does not define
 * (a Go map's, in generic/policy_source.go).
 */
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

const causes = (r: { body: unknown }) =>
  (r.body as { details?: { causes?: { field?: string; message?: string; reason?: string }[] } }).details
    ?.causes ?? [];

describe("ValidatingAdmissionPolicy", () => {
  test("validations deny with kube's message, code and reason; variables and messageExpression", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    await install(
      policy("size", {
        variables: [{ name: "n", expression: "size(object.data)" }],
        validations: [
          { expression: "variables.n <= 2", messageExpression: "'too many keys: ' + string(variables.n)" },
          { expression: "!('secret' in object.data)", message: "no secrets here", reason: "Forbidden" },
          { expression: "object.metadata.name != 'plain'" },
        ],
      }),
      binding("size", {}),
    );
    await enforced("size", configMap("probe", { a: "1", b: "2", c: "3" }));
    assert.equal((await api.post(configMaps, configMap("ok", { a: "1" }))).status, 201);

    const many = await api.post(configMaps, configMap("many", { a: "1", b: "2", c: "3" }));
    assert.equal(many.status, 422, many.text);
    const body = many.body as { reason: string; message: string };
    const expected = `ValidatingAdmissionPolicy 'size-${run}' with binding 'size-${run}' denied request: too many keys: 3`;
    assert.equal(body.reason, "Invalid");
    assert.equal(body.message, `configmaps "many" is forbidden: ${expected}`);
    assert.deepEqual(causes(many), [{ message: expected }]);

    const secret = await api.post(configMaps, configMap("s", { secret: "x" }));
    assert.equal(secret.status, 403);
    assert.equal((secret.body as { reason: string }).reason, "Forbidden");
    assert.match((secret.body as { message: string }).message, /denied request: no secrets here$/);

    const plain = await api.post(configMaps, configMap("plain", { k: "v" }));
    assert.match(
      (plain.body as { message: string }).message,
      /denied request: failed expression: object\.metadata\.name != 'plain'$/,
    );

    // Updates are checked too.
    const update = await api.put(`${configMaps}/ok`, configMap("ok", { a: "1", b: "2", c: "3" }));
    assert.equal(update.status, 422);
  });

  test("Warn warns instead; matchConditions and matchResources narrow what is checked", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    await install(
      policy("warn", {
        matchConditions: [
          {
            name: "only-labelled",
            expression: "has(object.metadata.labels) && 'checked' in object.metadata.labels",
          },
        ],
        validations: [{ expression: "object.data.mode == 'safe'", message: "mode must be safe" }],
      }),
      binding("warn", {
        validationActions: ["Warn"],
        matchResources: { objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] } },
      }),
    );
    const expected = `Validation failed for ValidatingAdmissionPolicy 'warn-${run}' with binding 'warn-${run}': mode must be safe`;
    await eventually(
      "the warning",
      async () => {
        const r = await api.post(
          `${configMaps}?dryRun=All`,
          configMap("w-probe", { mode: "x" }, { checked: "y" }),
        );
        return (r.headers.get("warning") ?? "").includes("mode must be safe");
      },
      { timeoutMs: 30_000 },
    );
    const warned = await api.post(configMaps, configMap("w1", { mode: "fast" }, { checked: "y" }));
    assert.equal(warned.status, 201);
    assert.equal(warned.headers.get("warning"), `299 - "${expected}"`);
    // Not labelled: the match condition is false. Labelled "skip": the binding does not select it.
    const unlabelled = await api.post(configMaps, configMap("w2", { mode: "fast" }));
    assert.equal(unlabelled.headers.get("warning"), null);
    const skipped = await api.post(
      configMaps,
      configMap("w3", { mode: "fast" }, { checked: "y", skip: "1" }),
    );
    assert.equal(skipped.headers.get("warning"), null);
  });

  test("Audit neither denies nor warns; auditAnnotations that fail follow failurePolicy", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    const only = (label: string) => [
      { name: "labelled", expression: `has(object.metadata.labels) && '${label}' in object.metadata.labels` },
    ];
    await install(
      policy("audit", {
        matchConditions: only("audit"),
        validations: [{ expression: "false", message: "never" }],
      }),
      binding("audit", { validationActions: ["Audit"] }),
    );
    const annotations = (failurePolicy: string, label: string) =>
      policy(`annotate-${failurePolicy.toLowerCase()}`, {
        failurePolicy,
        matchConditions: only(label),
        auditAnnotations: [
          { key: "keys", valueExpression: "string(size(object.data))" },
          { key: "missing", valueExpression: "string(object.data.missing)" },
        ],
      });
    await install(
      annotations("Fail", "strict"),
      binding("annotate-fail", { policyName: `annotate-fail-${run}` }),
    );
    await install(
      annotations("Ignore", "lenient"),
      binding("annotate-ignore", { policyName: `annotate-ignore-${run}` }),
    );
    await enforced("annotate-fail", configMap("probe", { a: "1" }, { strict: "y" }));

    const audited = await api.post(configMaps, configMap("audited", { a: "1" }, { audit: "y" }));
    assert.equal(audited.status, 201, audited.text);
    assert.equal(audited.headers.get("warning"), null);

    const strict = await api.post(configMaps, configMap("strict", { a: "1" }, { strict: "y" }));
    assert.equal(strict.status, 422, strict.text);
    assert.match(
      strict.body.message,
      new RegExp(
        `ValidatingAdmissionPolicy 'annotate-fail-${run}' with binding 'annotate-fail-${run}' denied request: .*no such key: missing`,
      ),
    );
    assert.equal(
      (await api.post(configMaps, configMap("lenient", { a: "1" }, { lenient: "y" }))).status,
      201,
    );
  });

  test("params: by name, by selector, parameterNotFoundAction", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    assert.equal(
      // At most 1 key: the "size" policy above refuses more than 2, and a request both refuse
      // would be reported as either's (kube's order of policies is not defined).
      (await api.post(configMaps, configMap("limits", { max: "1" }, { role: "limits" }))).status,
      201,
    );
    const p = policy("params", {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      matchConditions: [
        {
          name: "not-params",
          expression: "!has(object.metadata.labels) || !('role' in object.metadata.labels)",
        },
      ],
      validations: [
        {
          expression: "size(object.data) <= int(params.data.max)",
          messageExpression: "'at most ' + params.data.max + ' keys (' + params.metadata.name + ')'",
        },
      ],
    });
    await install(p, binding("params", { paramRef: { name: "limits", parameterNotFoundAction: "Deny" } }));
    await enforced("params", configMap("probe", { a: "1", b: "2" }));
    const denied = await api.post(configMaps, configMap("p1", { a: "1", b: "2" }));
    assert.equal(denied.status, 422);
    assert.match((denied.body as { message: string }).message, /denied request: at most 1 keys \(limits\)$/);
    assert.equal((await api.post(configMaps, configMap("p2", { a: "1" }))).status, 201);

    // A second binding selecting params by label, one that names a missing param with Deny.
    const missing = binding("params", { paramRef: { name: "absent", parameterNotFoundAction: "Deny" } });
    missing.metadata.name = `params-missing-${run}`;
    const r = await api.post(bindings, missing);
    assert.equal(r.status, 201, r.text);
    created.push(`${bindings}/${missing.metadata.name}`);
    let refused: { status: number; body: unknown } | undefined;
    await eventually(
      "the missing param refused",
      async () => {
        refused = await api.post(`${configMaps}?dryRun=All`, configMap("p3", { a: "1" }));
        return refused.status >= 400;
      },
      { timeoutMs: 30_000 },
    );
    assert.equal(
      (refused!.body as { message: string }).message,
      `configmaps "p3" is forbidden: ValidatingAdmissionPolicy 'params-${run}' with binding 'params-missing-${run}' denied request: failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`,
    );
    // Allow instead: nothing to evaluate, the request goes through.
    const allow = await api.get(`${bindings}/${missing.metadata.name}`);
    const allowing = allow.body as { spec: { paramRef: { parameterNotFoundAction: string } } };
    allowing.spec.paramRef.parameterNotFoundAction = "Allow";
    assert.equal((await api.put(`${bindings}/${missing.metadata.name}`, allowing)).status, 200);
    await eventually(
      "Allow takes effect",
      async () => (await api.post(`${configMaps}?dryRun=All`, configMap("p4", { a: "1" }))).status === 201,
      { timeoutMs: 30_000 },
    );
    // By selector: every selected param is checked. parameterNotFoundAction has no default.
    const selector = { matchLabels: { role: "limits" } };
    const bySelector = binding("params", { paramRef: { selector } });
    bySelector.metadata.name = `params-selector-${run}`;
    const unset = await api.post(bindings, bySelector);
    assert.equal(unset.status, 422, unset.text);
    assert.deepEqual(
      causes(unset).map((c) => `${c.field} ${c.reason}`),
      ["spec.paramRef.parameterNotFoundAction FieldValueRequired"],
    );
    const s = await api.post(bindings, {
      ...bySelector,
      spec: { ...bySelector.spec, paramRef: { selector, parameterNotFoundAction: "Deny" } },
    });
    assert.equal(s.status, 201, s.text);
    created.push(`${bindings}/${bySelector.metadata.name}`);
  });

  test("failurePolicy: a runtime error fails the request under Fail, is ignored under Ignore", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    const spec = (failurePolicy: string) => ({
      failurePolicy,
      matchConditions: [
        {
          name: "flagged",
          expression: `has(object.metadata.labels) && '${failurePolicy}' in object.metadata.labels`,
        },
      ],
      validations: [{ expression: "object.data.missing == 'x'" }],
    });
    await install(policy("fail", spec("Fail")), binding("fail", {}));
    await install(policy("ignore", spec("Ignore")), binding("ignore", {}));
    await enforced("fail", configMap("probe", { a: "1" }, { Fail: "y" }));
    const failed = await api.post(configMaps, configMap("f1", { a: "1" }, { Fail: "y" }));
    assert.equal(failed.status, 422);
    assert.match(
      (failed.body as { message: string }).message,
      new RegExp(
        `ValidatingAdmissionPolicy 'fail-${run}' with binding 'fail-${run}' denied request: expression 'object\\.data\\.missing == 'x'' resulted in error: no such key: missing$`,
      ),
    );
    assert.equal((await api.post(configMaps, configMap("f2", { a: "1" }, { Ignore: "y" }))).status, 201);
  });

  test("an expression past kube's per-call cost limit is cancelled; failurePolicy decides", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    // 20^5 steps of a few cost units each: far past kube's 1 000 000 per expression, which cancels
    // it (and keeps a policy from holding the server for as long as the loops would run).
    const list = `[${Array.from({ length: 20 }, (_, i) => i).join(", ")}]`;
    const costly = `${list}.all(a, ${list}.all(b, ${list}.all(c, ${list}.all(d, ${list}.all(e, a + b + c + d + e >= 0)))))`;
    await install(
      policy("costly", {
        failurePolicy: "Fail",
        matchConditions: [{ name: "flagged", expression: "'costly' in object.data" }],
        validations: [{ expression: costly }],
      }),
      binding("costly", {}),
    );
    await enforced("costly", configMap("probe", { costly: "y" }));
    const started = performance.now();
    const refused = await api.post(configMaps, configMap("c1", { costly: "y" }));
    const tookMs = performance.now() - started;
    assert.equal(refused.status, 422, refused.text);
    assert.match(
      (refused.body as { message: string }).message,
      new RegExp(
        `ValidatingAdmissionPolicy 'costly-${run}' with binding 'costly-${run}' denied request: expression '.*' resulted in error: operation cancelled: actual cost limit exceeded$`,
      ),
    );
    t.diagnostic(`refused in ${Math.round(tookMs)} ms`);
  });

  test("policies and bindings a cluster refuses", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    const bad = await api.post(
      policies,
      policy("bad", {
        failurePolicy: "Sometimes",
        validations: [
          { expression: "object.data.(" },
          { expression: "true", reason: "Teapot" },
          { expression: "object.data.all(k, valid(k))" },
          { expression: "true", messageExpression: "string(authorizer.path('/').check('get').allowed())" },
        ],
        variables: [{ name: "not an identifier", expression: "1" }],
      }),
    );
    assert.equal(bad.status, 422);
    const fields = causes(bad).map((c) => `${c.field} ${c.reason}`);
    assert.ok(fields.includes("spec.failurePolicy FieldValueNotSupported"), fields.join("\n"));
    assert.ok(fields.includes("spec.validations[0].expression FieldValueInvalid"), fields.join("\n"));
    assert.ok(fields.includes("spec.validations[1].reason FieldValueNotSupported"), fields.join("\n"));
    assert.ok(fields.includes("spec.variables[0].name FieldValueInvalid"), fields.join("\n"));
    assert.match(
      causes(bad).find((c) => c.field === "spec.validations[0].expression")?.message ?? "",
      /compilation failed: ERROR: <input>:1:/,
    );
    assert.ok(
      causes(bad)
        .find((c) => c.field === "spec.validations[2].expression")
        ?.message?.endsWith(
          "ERROR: <input>:1:25: undeclared reference to 'valid' (in container '')\n | object.data.all(k, valid(k))\n | ........................^",
        ),
      JSON.stringify(causes(bad)),
    );
    // A messageExpression is compiled without `authorizer` (the expression and variables have it).
    assert.ok(
      causes(bad)
        .find((c) => c.field === "spec.validations[3].messageExpression")
        ?.message?.endsWith(
          "ERROR: <input>:1:8: undeclared reference to 'authorizer' (in container '')\n | string(authorizer.path('/').check('get').allowed())\n | .......^",
        ),
      JSON.stringify(causes(bad)),
    );
    const none = await api.post(policies, policy("none", {}));
    assert.equal(none.status, 422);
    assert.deepEqual(
      causes(none).map((c) => c.field),
      ["spec.validations", "spec.auditAnnotations"],
    );
    const both = await api.post(bindings, binding("both", { validationActions: ["Deny", "Warn", "Deny"] }));
    assert.equal(both.status, 422);
    assert.deepEqual(
      causes(both).map((c) => `${c.field} ${c.reason}`),
      ["spec.validationActions[2] FieldValueDuplicate", "spec.validationActions FieldValueInvalid"],
    );
    const empty = await api.post(bindings, binding("empty", { validationActions: [] }));
    assert.deepEqual(
      causes(empty).map((c) => `${c.field} ${c.reason}`),
      ["spec.validationActions FieldValueRequired"],
    );
  });

  // The status is kube-controller-manager's to write, which kube-apiserver alone does not run.
  test(
    "type checking against the matched kinds is written to status.typeChecking",
    needs("policy-status"),
    async (t) => {
      if (!served) return t.skip(NOT_SERVED);
      const rules = (apiGroups: string[], resources: string[]) => ({
        resourceRules: [{ apiGroups, apiVersions: ["v1"], operations: ["CREATE"], resources }],
      });
      const typed = {
        ...policy("typed", {}),
        spec: {
          matchConstraints: rules(["apps"], ["deployments", "deployments/scale"]),
          paramKind: { apiVersion: "v1", kind: "ConfigMap" },
          variables: [{ name: "limit", expression: "3" }],
          validations: [
            { expression: "object.metadata.name.startsWith('a') && object.spec.replicas < variables.limit" },
            { expression: "object.spec.replicaz > 1", messageExpression: "'has ' + params.dataz" },
            { expression: "object.spec.replicas == 'three'" },
            { expression: "object.spec.template.spec.containers.all(c, has(c.imagez))" },
            // A variable's type is its expression's: variables.nope is refused when written.
            { expression: "variables.limit > 1", messageExpression: "string(params.data.size())" },
            { expression: "object.spec.replicas.startsWith('1')" },
          ],
        },
      };
      const path = `${policies}/${typed.metadata.name}`;
      assert.equal((await api.post(policies, typed)).status, 201);
      created.push(path);
      const warnings = await eventually("the policy type-checked", async () => {
        const status = (await api.get(path)).body.status;
        return status?.observedGeneration === 1 ? status.typeChecking.expressionWarnings : undefined;
      });
      const at = (expression: string, offset: number, message: string) =>
        `apps/v1, Kind=Deployment: ERROR: <input>:1:${offset + 1}: ${message}\n | ${expression}\n | ${".".repeat(offset)}^\n`;
      assert.deepEqual(warnings, [
        {
          fieldRef: "spec.validations[1].expression",
          warning: at("object.spec.replicaz > 1", 11, "undefined field 'replicaz'"),
        },
        {
          fieldRef: "spec.validations[1].messageExpression",
          warning: at("'has ' + params.dataz", 15, "undefined field 'dataz'"),
        },
        {
          fieldRef: "spec.validations[2].expression",
          warning: at(
            "object.spec.replicas == 'three'",
            21,
            "found no matching overload for '_==_' applied to '(int, string)'",
          ),
        },
        {
          fieldRef: "spec.validations[3].expression",
          warning: at(
            "object.spec.template.spec.containers.all(c, has(c.imagez))",
            47,
            "undefined field 'imagez'",
          ),
        },
        {
          fieldRef: "spec.validations[5].expression",
          warning: at(
            "object.spec.replicas.startsWith('1')",
            31,
            "found no matching overload for 'startsWith' applied to 'int.(string)'",
          ),
        },
      ]);
      // Warnings only: the policy is stored and a fix is checked again at its next generation.
      const stored = (await api.get(path)).body;
      stored.spec.validations = [{ expression: "object.spec.replicas < 5" }];
      assert.equal((await api.call("PUT", path, stored)).status, 200);
      await eventually("the fix type-checked", async () => {
        const status = (await api.get(path)).body.status;
        return status?.observedGeneration === 2 && status.typeChecking.expressionWarnings === undefined;
      });
      // Kinds named by wildcards are not checked: the status says so by its empty typeChecking.
      const wild = {
        ...policy("wild", {}),
        spec: { matchConstraints: rules(["*"], ["*"]), validations: [{ expression: "object.nope == 1" }] },
      };
      const wildPath = `${policies}/${wild.metadata.name}`;
      assert.equal((await api.post(policies, wild)).status, 201);
      created.push(wildPath);
      const status = await eventually("the wildcard policy observed", async () => {
        const s = (await api.get(wildPath)).body.status;
        return s?.observedGeneration === 1 ? s : undefined;
      });
      assert.deepEqual(status.typeChecking, {});
    },
  );

  test("authorizer asks the server's authorizer about the requesting user", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    await install(
      policy("authz", {
        matchConditions: [
          { name: "not-admin", expression: "!authorizer.path('/livez').check('get').errored()" },
        ],
        // A messageExpression may not name `authorizer`, and kube evaluates it without one: a
        // variable that asks the authorizer fails there, so the message is the fallback.
        variables: [
          {
            name: "mayListSecrets",
            expression:
              "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('list').allowed()",
          },
        ],
        validations: [
          {
            expression: "variables.mayListSecrets",
            messageExpression: "'may list secrets: ' + string(variables.mayListSecrets)",
            message: "may not list secrets",
          },
          {
            expression: "authorizer.requestResource.check('create').allowed()",
            message: "the request itself",
          },
          {
            expression:
              "!authorizer.serviceAccount('kube-system', 'nobody-here').group('').resource('pods').check('delete').allowed()",
            message: "a service account with no bindings",
          },
        ],
      }),
      binding("authz", {}),
    );
    // The admin (system:masters) may list secrets: created. A user allowed only configmaps: denied.
    await eventually(
      "the policy seen",
      async () => (await api.get(`${policies}/authz-${run}`)).status === 200,
    );
    const user = `writer-${run}`;
    const rbac = "/apis/rbac.authorization.k8s.io/v1";
    assert.equal(
      (
        await api.post(`${rbac}/namespaces/${ns}/roles`, {
          metadata: { name: user },
          rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["create"] }],
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await api.post(`${rbac}/namespaces/${ns}/rolebindings`, {
          metadata: { name: user },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: user },
          subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }],
        })
      ).status,
      201,
    );
    const writer = await api.as(user);
    await eventually(
      "the writer denied by the policy",
      async () => {
        const r = await writer.post(`${configMaps}?dryRun=All`, configMap("by-writer", { a: "1" }));
        return r.status === 422 && /denied request: may not list secrets$/.test(r.body.message)
          ? r
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
    assert.equal((await api.post(configMaps, configMap("by-admin", { a: "1" }))).status, 201);
  });

  test("a policy that matched another version of the resource sees the objects in that version", async (t) => {
    if (!served) return t.skip(NOT_SERVED);
    const group = `vap${run}.example.com`;
    const schema = {
      openAPIV3Schema: {
        type: "object",
        properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
      },
    };
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/boxes.${group}`;
    const crd = await api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      metadata: { name: `boxes.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { plural: "boxes", singular: "box", kind: "Box", listKind: "BoxList" },
        versions: [
          { name: "v1", served: true, storage: true, schema },
          { name: "v2", served: true, storage: false, schema },
        ],
      },
    });
    assert.equal(crd.status, 201, crd.text);
    created.unshift(crdPath); // deleted last
    const boxes = (version: string) => `/apis/${group}/${version}/namespaces/${ns}/boxes`;
    await eventually("v2 served", async () => (await api.get(boxes("v2"))).status === 200, {
      timeoutMs: 30_000,
    });
    await install(
      {
        ...policy("versions", {}),
        spec: {
          matchConstraints: {
            resourceRules: [
              { apiGroups: [group], apiVersions: ["v1"], operations: ["CREATE"], resources: ["boxes"] },
            ],
          },
          validations: [
            { expression: `object.apiVersion == '${group}/v1'`, message: "seen in v1" },
            { expression: "object.spec.size < 5", message: "small boxes only" },
          ],
        },
      },
      binding("versions", {}),
    );
    const box = (name: string, size: number) => ({
      apiVersion: `${group}/v2`,
      kind: "Box",
      metadata: { name },
      spec: { size },
    });
    await eventually(
      "the policy enforced on v2",
      async () => (await api.post(`${boxes("v2")}?dryRun=All`, box("probe", 9))).status === 422,
      { timeoutMs: 30_000 },
    );
    const big = await api.post(boxes("v2"), box("big", 9));
    assert.match(big.body.message, /denied request: small boxes only$/);
    assert.equal((await api.post(boxes("v2"), box("small", 1))).status, 201);
  });
});
