// MutatingAdmissionPolicy and its binding (admissionregistration.k8s.io/v1, kube 1.36 GA, on by
// default): what they do to requests. An ApplyConfiguration merged as server-side apply merges
// (a label added, a field set, a container merged into by its name), a JSONPatch with
// jsonpatch.escapeKey, a binding with a param, a matchCondition that is false skips the policy,
// failurePolicy on an expression error (Fail: kube's 403; Ignore: the object as sent), the types
// kube checks when a policy is written, what it refuses at run time, optional fields, and
// reinvocationPolicy IfNeeded. Runs wherever the server serves the v1 kinds (the embedded server;
// kube-apiserver 1.36+).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import {
  Api,
  startTarget,
  type Target,
  MUTATING_POLICIES_NOT_SERVED,
  servesMutatingPolicies,
} from "./harness.js";

let target: Target;
let api: Api;
let served = false;
const run = Date.now().toString(36);
const ns = `map-${run}`;
const policies = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies";
const bindings = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings";
const configMaps = `/api/v1/namespaces/${ns}/configmaps`;
const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
const created: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
  served = await servesMutatingPolicies(api);
  assert.equal(
    (await api.post("/api/v1/namespaces", { metadata: { name: ns, labels: { map: run } } })).status,
    201,
  );
});
after(async () => {
  for (const path of created.reverse()) await api.delete(path);
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field
type Obj = Record<string, any>;

/** A policy on the objects of `resource` in this run's namespace labelled `case: <name>`. */
function policy(name: string, spec: object, resource = { group: "", resource: "configmaps" }) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicy",
    metadata: { name: `${name}-${run}` },
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [resource.group],
            apiVersions: ["v1"],
            operations: ["CREATE", "UPDATE"],
            resources: [resource.resource],
          },
        ],
        namespaceSelector: { matchLabels: { map: run } },
        objectSelector: { matchLabels: { case: name } },
      },
      reinvocationPolicy: "Never",
      ...spec,
    },
  };
}

function binding(name: string, spec: object = {}) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicyBinding",
    metadata: { name: `${name}-${run}` },
    spec: { policyName: `${name}-${run}`, ...spec },
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
 * Waits until a dry-run create of `probe` comes back as `done` says (a policy takes effect once
 * the server has seen it: kube-apiserver refreshes its policies from an informer, a moment after
 * the write), and answers that reply.
 */
async function effective(
  what: string,
  collection: string,
  probe: object,
  done: (r: { status: number; body: Obj }) => boolean,
): Promise<void> {
  await eventually(
    what,
    async () => {
      const r = await api.post(`${collection}?dryRun=All`, probe);
      return done({ status: r.status, body: r.body as Obj });
    },
    { timeoutMs: 30_000 },
  );
}

const configMap = (name: string, labels: Record<string, string>, extra: Obj = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, labels, ...(extra.metadata ?? {}) },
  data: extra.data ?? { k: "v" },
});

function deployment(name: string, labels: Record<string, string>) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            { name: "app", image: "registry.example/app:1" },
            { name: "sidecar", image: "registry.example/sidecar:1" },
          ],
        },
      },
    },
  };
}

describe("MutatingAdmissionPolicy", () => {
  test("ApplyConfiguration: a label added, a field set, a list item merged by its key", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    await install(
      policy(
        "apply",
        {
          mutations: [
            {
              patchType: "ApplyConfiguration",
              applyConfiguration: {
                expression: `Object{
                  metadata: Object.metadata{labels: {"mutated": "yes"}},
                  spec: Object.spec{
                    replicas: 3,
                    template: Object.spec.template{
                      spec: Object.spec.template.spec{
                        containers: [Object.spec.template.spec.containers{name: "app", imagePullPolicy: "Always"}]
                      }
                    }
                  }
                }`,
              },
            },
          ],
        },
        { group: "apps", resource: "deployments" },
      ),
      binding("apply"),
    );
    await effective("the apply policy", deployments, deployment("probe", { case: "apply" }), (r) => {
      return r.body?.metadata?.labels?.mutated === "yes";
    });
    const r = await api.post(deployments, deployment("applied", { case: "apply" }));
    assert.equal(r.status, 201, r.text);
    const body = r.body as Obj;
    assert.deepEqual(body.metadata.labels, { case: "apply", mutated: "yes" });
    assert.equal(body.spec.replicas, 3);
    const containers = body.spec.template.spec.containers as Obj[];
    assert.deepEqual(
      containers.map((c) => [c.name, c.image, c.imagePullPolicy]),
      [
        ["app", "registry.example/app:1", "Always"],
        // Defaulted after the mutation: the policy did not touch it.
        ["sidecar", "registry.example/sidecar:1", "IfNotPresent"],
      ],
    );
    // An update is mutated too.
    const update = await api.put(`${deployments}/applied`, { ...body, spec: { ...body.spec, replicas: 7 } });
    assert.equal(update.status, 200, update.text);
    assert.equal((update.body as Obj).spec.replicas, 3);
  });

  test("JSONPatch: operations built in CEL, keys escaped with jsonpatch.escapeKey", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    await install(
      policy("patch", {
        mutations: [
          {
            patchType: "JSONPatch",
            jsonPatch: {
              expression: `[
                JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/by"), value: "policy"},
                JSONPatch{op: "replace", path: "/data/k", value: string(size(object.data)) + " keys"},
                JSONPatch{op: "add", path: "/data/copied", value: object.metadata.annotations["seed"]}
              ]`,
            },
          },
        ],
      }),
      binding("patch"),
    );
    const cm = (name: string) =>
      configMap(name, { case: "patch" }, { metadata: { annotations: { seed: "s1" } } });
    await effective("the patch policy", configMaps, cm("probe"), (r) => r.body?.data?.copied === "s1");
    const r = await api.post(configMaps, cm("patched"));
    assert.equal(r.status, 201, r.text);
    const body = r.body as Obj;
    assert.deepEqual(body.metadata.annotations, { seed: "s1", "example.com/by": "policy" });
    assert.deepEqual(body.data, { k: "1 keys", copied: "s1" });
  });

  test("a binding's param is the policy's `params`", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    const param = await api.post(configMaps, configMap(`team-${run}`, {}, { data: { team: "blue" } }));
    assert.equal(param.status, 201, param.text);
    await install(
      policy("param", {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: {
              expression: `Object{metadata: Object.metadata{labels: {"team": params.data.team}}}`,
            },
          },
        ],
      }),
      binding("param", { paramRef: { name: `team-${run}`, parameterNotFoundAction: "Deny" } }),
    );
    await effective(
      "the param policy",
      configMaps,
      configMap("probe", { case: "param" }),
      (r) => r.body?.metadata?.labels?.team === "blue",
    );
    const r = await api.post(configMaps, configMap("with-param", { case: "param" }));
    assert.equal(r.status, 201, r.text);
    assert.deepEqual((r.body as Obj).metadata.labels, { case: "param", team: "blue" });
  });

  test("a false matchCondition skips the policy", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    await install(
      policy("condition", {
        matchConditions: [{ name: "marked", expression: "'mark' in object.data" }],
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: { expression: `Object{data: {"seen": "yes"}}` },
          },
        ],
      }),
      binding("condition"),
    );
    await effective(
      "the condition policy",
      configMaps,
      configMap("probe", { case: "condition" }, { data: { mark: "1" } }),
      (r) => r.body?.data?.seen === "yes",
    );
    const skipped = await api.post(configMaps, configMap("unmarked", { case: "condition" }));
    assert.equal(skipped.status, 201, skipped.text);
    assert.deepEqual((skipped.body as Obj).data, { k: "v" });
    const marked = await api.post(
      configMaps,
      configMap("marked", { case: "condition" }, { data: { mark: "1" } }),
    );
    assert.deepEqual((marked.body as Obj).data, { mark: "1", seen: "yes" });
  });

  test("an expression error: failurePolicy Fail refuses with kube's message, Ignore admits as sent", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    const expression = `Object{metadata: Object.metadata{labels: {"copied": object.data.missing}}}`;
    const failing = (name: string, failurePolicy: string) =>
      policy(name, {
        failurePolicy,
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression } }],
      });
    await install(failing("fail", "Fail"), binding("fail"));
    await install(failing("ignore", "Ignore"), binding("ignore"));
    await effective(
      "the failing policy",
      configMaps,
      configMap("probe", { case: "fail" }),
      (r) => r.status === 403,
    );
    const r = await api.post(configMaps, configMap("refused", { case: "fail" }));
    assert.equal(r.status, 403, r.text);
    const body = r.body as Obj;
    const message = `policy 'fail-${run}' with binding 'fail-${run}' denied request: expression '${expression}' resulted in error: no such key: missing`;
    assert.equal(body.reason, "Invalid");
    assert.equal(body.message, message);
    assert.deepEqual(body.details, { name: "refused", kind: "configmaps", causes: [{ message }] });
    assert.equal((await api.get(`${configMaps}/refused`)).status, 404);

    // Ignore: nothing to wait for (the policy changes nothing), so its binding is waited for by name.
    await eventually(
      "the ignoring policy's binding",
      async () => (await api.get(`${bindings}/ignore-${run}`)).status === 200,
      { timeoutMs: 30_000 },
    );
    const admitted = await api.post(configMaps, configMap("admitted", { case: "ignore" }));
    assert.equal(admitted.status, 201, admitted.text);
    assert.deepEqual((admitted.body as Obj).metadata.labels, { case: "ignore" });
  });

  test("a mutation's output type and its JSONPatch fields are checked when the policy is written", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    const refused = async (name: string, patchType: string, expression: string) => {
      const mutation =
        patchType === "JSONPatch"
          ? { patchType, jsonPatch: { expression } }
          : { patchType, applyConfiguration: { expression } };
      const r = await api.post(policies, policy(name, { mutations: [mutation] }));
      assert.equal(r.status, 422, r.text);
      const field = patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration";
      const prefix = `MutatingAdmissionPolicy.admissionregistration.k8s.io "${name}-${run}" is invalid: spec.mutations[0].${field}.expression: Invalid value: ${JSON.stringify(expression)}: `;
      return String((r.body as Obj).message).replace(prefix, "");
    };
    assert.equal(
      await refused("map-literal", "ApplyConfiguration", `{"a": 1}`),
      "must evaluate to Object but got map(string, int)",
    );
    assert.equal(
      await refused("maps", "JSONPatch", `[{"op": "add"}]`),
      "must evaluate to list(JSONPatch) but got list(map(string, string))",
    );
    assert.equal(
      await refused("op-type", "JSONPatch", `[JSONPatch{op: 1, path: "/a"}]`),
      `compilation failed: ERROR: <input>:1:14: expected type of field 'op' is 'string' but provided type is 'int'\n | [JSONPatch{op: 1, path: "/a"}]\n | .............^`,
    );
    assert.equal(
      await refused("unknown-type", "ApplyConfiguration", `Foo{a: 1}`),
      "compilation failed: ERROR: <input>:1:4: undeclared reference to 'Foo' (in container '')\n | Foo{a: 1}\n | ...^",
    );
    // Variables and match conditions have no patch types: an initialiser there names nothing.
    const variables = async (name: string, vars: object[]) => {
      const r = await api.post(
        policies,
        policy(name, {
          variables: vars,
          mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } }],
        }),
      );
      assert.equal(r.status, 422, r.text);
      const prefix = `MutatingAdmissionPolicy.admissionregistration.k8s.io "${name}-${run}" is invalid: `;
      return String((r.body as Obj).message).replace(prefix, "");
    };
    assert.equal(
      await variables("variable-name", [{ name: "1bad", expression: "1" }]),
      `spec.variables[0].name: Invalid value: "1bad": must be a valid CEL identifier`,
    );
    assert.equal(
      await variables("variable-type", [{ name: "v", expression: "Object{}" }]),
      `spec.variables[0].expression: Invalid value: "Object{}": compilation failed: ERROR: <input>:1:7: undeclared reference to 'Object' (in container '')\n | Object{}\n | ......^`,
    );
  });

  test("what kube refuses at run time: atomic fields, undeclared fields, a patch Go cannot decode", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    const cases = [
      {
        name: "atomic",
        patchType: "ApplyConfiguration",
        expression: `Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"a": "b"}}}}`,
        status: 403,
        message: (p: string) =>
          `policy '${p}' with binding '${p}' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector`,
      },
      {
        name: "undeclared",
        patchType: "ApplyConfiguration",
        expression: `Object{spec: Object.spec{unknownField: 1}}`,
        status: 403,
        message: (p: string) =>
          `policy '${p}' with binding '${p}' denied request: error applying patch: failed to convert patch object to typed object: .spec.unknownField: field not declared in schema`,
      },
      {
        name: "go-type",
        patchType: "JSONPatch",
        expression: `[JSONPatch{op: "add", path: "/metadata/labels/x", value: 1}]`,
        status: 500,
        message: () =>
          "Internal error occurred: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
      },
    ];
    for (const c of cases) {
      const mutation =
        c.patchType === "JSONPatch"
          ? { patchType: c.patchType, jsonPatch: { expression: c.expression } }
          : { patchType: c.patchType, applyConfiguration: { expression: c.expression } };
      await install(
        policy(c.name, { mutations: [mutation] }, { group: "apps", resource: "deployments" }),
        binding(c.name),
      );
    }
    for (const c of cases) {
      const probe = deployment(c.name, { case: c.name });
      await effective(`the ${c.name} policy`, deployments, probe, (r) => r.status === c.status);
      const r = await api.post(`${deployments}?dryRun=All`, probe);
      assert.equal((r.body as Obj).message, c.message(`${c.name}-${run}`));
    }
  });

  test("optional fields of an initialiser are set only when they hold a value", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    await install(
      policy("optional", {
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: {
              expression: `Object{?data: optional.of({"set": "yes"}), ?metadata: optional.none()}`,
            },
          },
        ],
      }),
      binding("optional"),
    );
    await effective("the optional policy", configMaps, configMap("probe", { case: "optional" }), (r) => {
      return r.body?.data?.set === "yes";
    });
    const r = await api.post(configMaps, configMap("optional", { case: "optional" }));
    assert.deepEqual((r.body as Obj).data, { k: "v", set: "yes" });
    assert.deepEqual((r.body as Obj).metadata.labels, { case: "optional" });
  });

  test("reinvocationPolicy IfNeeded: a policy runs again after a later one changed the object", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    // Both select the same objects. Whichever order the server runs them in (the embedded server
    // runs them by name, so `first` before `second`), `first` sees the label `second` adds: at
    // once, or when it is reinvoked.
    const selecting = (name: string, spec: object) => {
      const p = policy(name, spec);
      p.spec.matchConstraints.objectSelector = { matchLabels: { case: "reinvoke" } };
      return p;
    };
    await install(
      selecting("first", {
        reinvocationPolicy: "IfNeeded",
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: {
              expression: `"added" in object.metadata.labels
                ? Object{metadata: Object.metadata{labels: {"seen": object.metadata.labels["added"] + "-seen"}}}
                : Object{}`,
            },
          },
        ],
      }),
      binding("first"),
    );
    await install(
      selecting("second", {
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: { expression: `Object{metadata: Object.metadata{labels: {"added": "1"}}}` },
          },
        ],
      }),
      binding("second"),
    );
    await effective(
      "both policies",
      configMaps,
      configMap("probe", { case: "reinvoke" }),
      (r) => r.body?.metadata?.labels?.seen === "1-seen",
    );
    const r = await api.post(configMaps, configMap("reinvoked", { case: "reinvoke" }));
    assert.deepEqual((r.body as Obj).metadata.labels, { case: "reinvoke", added: "1", seen: "1-seen" });
  });
});
