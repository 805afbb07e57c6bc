// MutatingAdmissionPolicy reinvocation and variables, as kube-apiserver 1.37 does them
// (k8s.io/apiserver pkg/admission/plugin/policy/mutating/dispatcher.go, plugin/cel/composition.go).
// Each mutation evaluates the variables afresh against the object as the mutations before it left
// it. A policy with reinvocationPolicy IfNeeded whose mutations ran is run once more when the
// object changed after it, itself included: kube marks the object dirty once any mutation ran, so
// the policy that changed it is reinvoked too (a counter it increments ends at 2). So is one whose
// mutation changed nothing (kube-apiserver's apiserver_mutating_admission_policy_check_total
// counts 2 checks for one create), which no answer of the API shows. Which policies (and params)
// run is decided on the object as it entered the round: a label one policy adds does not select
// another in the same round, and reinvocation runs only those that ran before. On reinvocation,
// matchConditions are evaluated again, and a mutation's error is judged by failurePolicy. What a
// mutation or a webhook returns is defaulted before the next one reads it. Webhooks, run after
// the policies, change the object between the two rounds or record what they were sent. kube
// runs the policies in no fixed order, so every case holds whatever the order.
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
import { answer, jsonPatch, type RawWebhook, type Review, startRawWebhook } from "../webhooks/harness.js";

let target: Target;
let api: Api;
let hook: RawWebhook;
let served = false;
const run = Date.now().toString(36);
const ns = `mapr-${run}`;
const policies = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies";
const bindings = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings";
const webhooks = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
const configMaps = `/api/v1/namespaces/${ns}/configmaps`;
const created: string[] = [];

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field
type Obj = Record<string, any>;

/**
 * The webhook at /records admits as sent, with two warnings (one the same each call); the one at /containers adds a container "hooked" (with
 * no imagePullPolicy) to a Deployment. The one at /adds adds the labels its object's annotation `webhook-adds` lists (`k=v,k2=v2`) that it
 * does not carry yet: a change made after every policy ran.
 */
function respond(review: Review, path: string): ReturnType<typeof answer> {
  if (path.startsWith("/records")) {
    const count = review.request.object.metadata.annotations?.count;
    return answer(review, { allowed: true, warnings: ["records was called", `records saw count ${count}`] });
  }
  if (path.startsWith("/removes")) {
    const present = review.request.object.metadata.labels?.x !== undefined;
    return answer(
      review,
      present
        ? { allowed: true, ...jsonPatch([{ op: "remove", path: "/metadata/labels/x" }]) }
        : { allowed: true },
    );
  }
  if (path.startsWith("/containers")) {
    const container = { name: "hooked", image: "registry.example/hooked:1" };
    return answer(review, {
      allowed: true,
      ...jsonPatch([{ op: "add", path: "/spec/template/spec/containers/-", value: container }]),
    });
  }
  const object = review.request.object as Obj;
  const labels = (object.metadata.labels ?? {}) as Record<string, string>;
  const wanted = String(object.metadata.annotations?.["webhook-adds"] ?? "");
  const ops = wanted
    .split(",")
    .filter((pair) => pair !== "")
    .map((pair) => pair.split("="))
    .filter(([k, v]) => labels[k!] !== v)
    .map(([k, v]) => ({ op: "add", path: `/metadata/labels/${k}`, value: v }));
  return answer(review, ops.length > 0 ? { allowed: true, ...jsonPatch(ops) } : { allowed: true });
}

before(async () => {
  target = await startTarget();
  api = new Api(target);
  served = await servesMutatingPolicies(api);
  const namespace = await api.post("/api/v1/namespaces", { metadata: { name: ns, labels: { mapr: run } } });
  assert.equal(namespace.status, 201, namespace.text);
  hook = await startRawWebhook(respond);
  const config = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name: `mapr-${run}` },
    webhooks: [
      {
        name: "adds.mapr.example.com",
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: "Fail",
        reinvocationPolicy: "Never",
        clientConfig: { url: `${hook.url}/adds`, caBundle: hook.caBundle },
        rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
        namespaceSelector: { matchLabels: { mapr: run } },
        objectSelector: { matchLabels: { hook: "adds" } },
      },
      {
        // Changes nothing: what it was sent is read back from hook.calls.
        name: "records.mapr.example.com",
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: "Fail",
        reinvocationPolicy: "IfNeeded",
        clientConfig: { url: `${hook.url}/records`, caBundle: hook.caBundle },
        rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
        namespaceSelector: { matchLabels: { mapr: run } },
        objectSelector: { matchLabels: { hook: "records" } },
      },
      {
        // Changes nothing, called when the label x is "1": a condition that fails without x.
        name: "cond.mapr.example.com",
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: "Fail",
        reinvocationPolicy: "Never",
        clientConfig: { url: `${hook.url}/records`, caBundle: hook.caBundle },
        rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
        namespaceSelector: { matchLabels: { mapr: run } },
        objectSelector: { matchLabels: { cond: "yes" } },
        matchConditions: [{ name: "x-is-1", expression: `object.metadata.labels["x"] == "1"` }],
      },
      {
        // Removes the label x.
        name: "removes.mapr.example.com",
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: "Fail",
        reinvocationPolicy: "Never",
        clientConfig: { url: `${hook.url}/removes`, caBundle: hook.caBundle },
        rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
        namespaceSelector: { matchLabels: { mapr: run } },
        objectSelector: { matchLabels: { removes: "yes" } },
      },
      {
        name: "containers.mapr.example.com",
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: "Fail",
        reinvocationPolicy: "Never",
        clientConfig: { url: `${hook.url}/containers`, caBundle: hook.caBundle },
        rules: [
          { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] },
        ],
        namespaceSelector: { matchLabels: { mapr: run } },
        objectSelector: { matchLabels: { hook: "containers" } },
      },
    ],
  };
  const r = await api.post(webhooks, config);
  assert.equal(r.status, 201, r.text);
  created.push(`${webhooks}/mapr-${run}`);
  // In effect once a dry run reaches it (kube reads webhook configurations through an informer).
  await eventually(
    "the webhook configuration",
    async () => {
      const calls = hook.calls.length;
      await api.post(`${configMaps}?dryRun=All`, configMap("probe", { hook: "adds" }));
      return hook.calls.length > calls;
    },
    { timeoutMs: 30_000 },
  );
});
after(async () => {
  for (const path of created.reverse()) await api?.delete(path);
  await api?.delete(`/api/v1/namespaces/${ns}`);
  await hook?.close();
  await target?.close();
});

/** A policy on this run's ConfigMaps labelled as `select` says (default: `case: <name>`). */
function policy(name: string, spec: object, select: Record<string, string> = { case: name }) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicy",
    metadata: { name: `${name}-${run}` },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] },
        ],
        namespaceSelector: { matchLabels: { mapr: run } },
        objectSelector: { matchLabels: select },
      },
      reinvocationPolicy: "Never",
      ...spec,
    },
  };
}

async function install(name: string, p: object, bindingSpec: object = {}): Promise<void> {
  const b = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicyBinding",
    metadata: { name: `${name}-${run}` },
    spec: { policyName: `${name}-${run}`, ...bindingSpec },
  };
  for (const [collection, obj] of [
    [policies, p],
    [bindings, b],
  ] as const) {
    const r = await api.post(collection, obj);
    assert.equal(r.status, 201, r.text);
    created.push(`${collection}/${(obj as { metadata: { name: string } }).metadata.name}`);
  }
}

/** Waits until a dry-run create of `probe` comes back as `done` says (kube reads policies through an informer). */
async function effective(what: string, probe: object, done: (body: Obj) => boolean): Promise<void> {
  await eventually(
    what,
    async () => {
      const r = await api.post(`${configMaps}?dryRun=All`, probe);
      return r.status === 201 && done(r.body as Obj);
    },
    { timeoutMs: 30_000 },
  );
}

function configMap(name: string, labels: Record<string, string>, annotations: Record<string, string> = {}) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, labels, annotations: { seed: "s", ...annotations } },
    data: { k: "v" },
  };
}

async function create(name: string, labels: Record<string, string>, annotations?: Record<string, string>) {
  const r = await api.post(configMaps, configMap(name, labels, annotations));
  assert.equal(r.status, 201, r.text);
  return r.body as Obj;
}

const apply = (expression: string) => ({
  patchType: "ApplyConfiguration",
  applyConfiguration: { expression },
});
const label = (key: string, value: string) =>
  apply(`Object{metadata: Object.metadata{labels: {"${key}": ${value}}}}`);
const nextCount = `string(int(object.metadata.?annotations[?"count"].orValue("0")) + 1)`;
const countByApply = apply(`Object{metadata: Object.metadata{annotations: {"count": ${nextCount}}}}`);
const countByPatch = {
  patchType: "JSONPatch",
  jsonPatch: {
    expression: `[JSONPatch{op: "add", path: "/metadata/annotations/count", value: ${nextCount}}]`,
  },
};

describe("MutatingAdmissionPolicy reinvocation", () => {
  test("variables are evaluated for each mutation, on the object as the mutations before it left it", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    await install(
      "vars",
      policy("vars", {
        variables: [{ name: "seen", expression: `object.metadata.?labels[?"x"].orValue("none")` }],
        mutations: [label("before", "variables.seen"), label("x", `"1"`), label("after", "variables.seen")],
      }),
    );
    await effective(
      "the vars policy",
      configMap("probe", { case: "vars" }),
      (b) => b.metadata.labels.x === "1",
    );
    const body = await create("vars", { case: "vars" });
    assert.deepEqual(body.metadata.labels, { case: "vars", before: "none", x: "1", after: "1" });
  });

  test("an IfNeeded policy whose mutations ran is run once more, for its own change too; Never once", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    await install(
      "count-apply",
      policy("count-apply", { reinvocationPolicy: "IfNeeded", mutations: [countByApply] }),
    );
    await install(
      "count-patch",
      policy("count-patch", { reinvocationPolicy: "IfNeeded", mutations: [countByPatch] }),
    );
    await install("count-never", policy("count-never", { mutations: [countByApply] }));
    for (const name of ["count-apply", "count-patch", "count-never"]) {
      await effective(
        name,
        configMap("probe", { case: name }),
        (b) => b.metadata.annotations.count !== undefined,
      );
    }
    assert.equal((await create("by-apply", { case: "count-apply" })).metadata.annotations.count, "2");
    assert.equal((await create("by-patch", { case: "count-patch" })).metadata.annotations.count, "2");
    assert.equal((await create("never", { case: "count-never" })).metadata.annotations.count, "1");
  });

  test("a webhook runs after the policies: what it changes reaches an IfNeeded policy's variables, and an IfNeeded webhook is called again with the policies' second output", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    const seeing = (reinvocationPolicy: string) => ({
      reinvocationPolicy,
      variables: [{ name: "seen", expression: `object.metadata.?labels[?"b"].orValue("none")` }],
      mutations: [label("saw", "variables.seen")],
    });
    await install("seen-ifneeded", policy("seen-ifneeded", seeing("IfNeeded")));
    await install("seen-never", policy("seen-never", seeing("Never")));
    await install("echo", policy("echo", { reinvocationPolicy: "IfNeeded", mutations: [countByApply] }));
    for (const name of ["seen-ifneeded", "seen-never"]) {
      await effective(name, configMap("probe", { case: name }), (b) => b.metadata.labels.saw === "none");
    }
    await effective(
      "echo",
      configMap("probe", { case: "echo" }),
      (b) => b.metadata.annotations.count !== undefined,
    );
    const adds = { "webhook-adds": "b=1" };
    const reinvoked = await create("seen-ifneeded", { case: "seen-ifneeded", hook: "adds" }, adds);
    assert.deepEqual(reinvoked.metadata.labels, { case: "seen-ifneeded", hook: "adds", b: "1", saw: "1" });
    const once = await create("seen-never", { case: "seen-never", hook: "adds" }, adds);
    assert.deepEqual(once.metadata.labels, { case: "seen-never", hook: "adds", b: "1", saw: "none" });
    // The webhook changes nothing; the policy, run again for its own change, changes the object
    // after the webhook ran: the webhook is called again, and sees the count the second run left.
    const r = await api.post(configMaps, configMap("echoed", { case: "echo", hook: "records" }));
    assert.equal(r.status, 201, r.text);
    assert.equal((r.body as Obj).metadata.annotations.count, "2");
    // Its warnings, each text once (kube's warning recorder drops a text it already wrote).
    assert.deepEqual(
      r.headers.get("warning"),
      ['299 - "records was called"', '299 - "records saw count 1"', '299 - "records saw count 2"'].join(", "),
    );
    const seen = hook.calls
      .filter((c) => c.path.startsWith("/records") && c.review.request.name === "echoed")
      .map((c) => c.review.request.object.metadata.annotations.count);
    assert.deepEqual(seen, ["1", "2"]);
  });

  test("matchConditions are evaluated again on reinvocation: true runs the policy, false skips it; one that did not run is not run then", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    const counting = (condition: string) => ({
      reinvocationPolicy: "IfNeeded",
      matchConditions: [{ name: "condition", expression: condition }],
      mutations: [countByApply],
    });
    await install("cond-stop", policy("cond-stop", counting(`!("stop" in object.metadata.labels)`)));
    await install("cond-go", policy("cond-go", counting(`"go" in object.metadata.labels`)));
    await effective(
      "cond-stop",
      configMap("probe", { case: "cond-stop" }),
      (b) => b.metadata.annotations.count !== undefined,
    );
    await effective(
      "cond-go",
      configMap("probe", { case: "cond-go", go: "1" }),
      (b) => b.metadata.annotations.count !== undefined,
    );
    // Still true when the policy is run again for its own change.
    const twice = await create("twice", { case: "cond-stop" });
    assert.equal(twice.metadata.annotations.count, "2");
    // The webhook's label makes the condition false: the reinvocation is skipped.
    const stopped = await create(
      "stopped",
      { case: "cond-stop", hook: "adds" },
      { "webhook-adds": "stop=1" },
    );
    assert.equal(stopped.metadata.labels.stop, "1");
    assert.equal(stopped.metadata.annotations.count, "1");
    // The webhook's label makes the condition true, after the round in which it was false.
    const late = await create("late", { case: "cond-go", hook: "adds" }, { "webhook-adds": "go=1" });
    assert.equal(late.metadata.labels.go, "1");
    assert.equal(late.metadata.annotations.count, undefined);
  });

  test("a mutation that fails when the policy is run again: Fail refuses the request, Ignore admits it as the first run left it", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    // The first run sets `ran`; the second, run for that change, reads a key that is not there.
    const expression = `"ran" in object.metadata.labels
      ? Object{metadata: Object.metadata{labels: {"n": object.data["missing"]}}}
      : Object{metadata: Object.metadata{labels: {"ran": "yes"}}}`;
    const failing = (name: string, failurePolicy: string) =>
      policy(name, { reinvocationPolicy: "IfNeeded", failurePolicy, mutations: [apply(expression)] });
    await install("fail-fail", failing("fail-fail", "Fail"));
    await install("fail-ignore", failing("fail-ignore", "Ignore"));
    await effective(
      "fail-ignore",
      configMap("probe", { case: "fail-ignore" }),
      (b) => b.metadata.labels.ran === "yes",
    );
    await eventually(
      "fail-fail",
      async () =>
        (await api.post(`${configMaps}?dryRun=All`, configMap("probe", { case: "fail-fail" }))).status ===
        403,
      { timeoutMs: 30_000 },
    );
    const refused = await api.post(configMaps, configMap("refused", { case: "fail-fail" }));
    assert.equal(refused.status, 403, refused.text);
    const message = `policy 'fail-fail-${run}' with binding 'fail-fail-${run}' denied request: expression '${expression}' resulted in error: no such key: missing`;
    assert.equal(refused.body.reason, "Invalid");
    assert.equal(refused.body.message, message);
    assert.deepEqual(refused.body.details, { name: "refused", kind: "configmaps", causes: [{ message }] });
    const admitted = await create("admitted", { case: "fail-ignore" });
    assert.deepEqual(admitted.metadata.labels, { case: "fail-ignore", ran: "yes" });
  });

  test("the policies that run are chosen on the object as it entered the round: an earlier policy's label does not select", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    await install("sel-a", policy("sel-a", { mutations: [label("sel", `"yes"`)] }, { case: "sel" }));
    await install(
      "sel-b",
      policy(
        "sel-b",
        { reinvocationPolicy: "IfNeeded", mutations: [label("b-ran", `"yes"`)] },
        { case: "sel", sel: "yes" },
      ),
    );
    await effective("sel-a", configMap("probe", { case: "sel" }), (b) => b.metadata.labels.sel === "yes");
    await effective(
      "sel-b",
      configMap("probe", { case: "sel", sel: "yes" }),
      (b) => b.metadata.labels["b-ran"] === "yes",
    );
    const body = await create("selected", { case: "sel" });
    assert.deepEqual(body.metadata.labels, { case: "sel", sel: "yes" });
  });

  test("each param is an invocation of its own: the one that counts is run again, whatever the order", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    // Only the invocation with `z-` counts; `a-` adds a key once. Whichever runs first, kube ends
    // the round with the object dirty and runs both again: the count ends at 2.
    for (const [name, data] of [
      [`a-${run}`, { second: "yes" }],
      [`z-${run}`, { first: "yes", counts: "yes" }],
    ] as const) {
      const r = await api.post(configMaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, labels: { param: run } },
        data,
      });
      assert.equal(r.status, 201, r.text);
    }
    await install(
      "params",
      policy("params", {
        reinvocationPolicy: "IfNeeded",
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        mutations: [
          apply("Object{metadata: Object.metadata{annotations: params.data}}"),
          apply(
            `"counts" in params.data ? Object{metadata: Object.metadata{annotations: {"count": ${nextCount}}}} : Object{}`,
          ),
        ],
      }),
      { paramRef: { selector: { matchLabels: { param: run } }, parameterNotFoundAction: "Deny" } },
    );
    await effective(
      "params",
      configMap("probe", { case: "params" }),
      (b) => b.metadata.annotations.second === "yes" && b.metadata.annotations.first === "yes",
    );
    const body = await create("with-params", { case: "params" });
    assert.deepEqual(body.metadata.annotations, {
      seed: "s",
      first: "yes",
      second: "yes",
      counts: "yes",
      count: "2",
    });
  });

  test("an object a mutation or a webhook changed is defaulted before the next mutation reads it", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const p = policy("pulls", {
      reinvocationPolicy: "IfNeeded",
      variables: [
        {
          name: "pulls",
          expression: `object.spec.template.spec.containers.map(c, c.name + "=" + c.?imagePullPolicy.orValue("unset"))`,
        },
      ],
      mutations: [
        apply(`Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{
          containers: [Object.spec.template.spec.containers{name: "extra", image: "registry.example/extra:1"}]
        }}}}`),
        apply(`Object{metadata: Object.metadata{annotations: {"pulls": variables.pulls.join(",")}}}`),
      ],
    });
    p.spec.matchConstraints.resourceRules = [
      { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] },
    ];
    await install("pulls", p);
    const deployment = (name: string, labels: Record<string, string>) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, labels },
      spec: {
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: "app", image: "registry.example/app:1" }] },
        },
      },
    });
    await eventually(
      "the pulls policy",
      async () => {
        const r = await api.post(`${deployments}?dryRun=All`, deployment("probe", { case: "pulls" }));
        return r.status === 201 && (r.body as Obj).metadata.annotations?.pulls !== undefined;
      },
      { timeoutMs: 30_000 },
    );
    const r = await api.post(deployments, deployment("pulled", { case: "pulls", hook: "containers" }));
    assert.equal(r.status, 201, r.text);
    const body = r.body as Obj;
    assert.deepEqual(
      body.spec.template.spec.containers.map((c: Obj) => [c.name, c.imagePullPolicy]),
      [
        ["app", "IfNotPresent"],
        ["extra", "IfNotPresent"],
        ["hooked", "IfNotPresent"],
      ],
    );
    assert.equal(body.metadata.annotations.pulls, "app=IfNotPresent,extra=IfNotPresent,hooked=IfNotPresent");
  });

  test("in the second round, the matchConditions of a webhook not to be called again are evaluated all the same", async (t) => {
    if (!served) return t.skip(MUTATING_POLICIES_NOT_SERVED);
    // The cond webhook is called (x is "1"); the removes webhook, after it, removes x, and the
    // second round evaluates cond's condition on an object without x: an error, under Fail.
    const r = await api.post(configMaps, configMap("cond", { cond: "yes", removes: "yes", x: "1" }));
    assert.equal(r.status, 403, r.text);
    assert.equal(
      r.body.message,
      `configmaps "cond" is forbidden: expression 'object.metadata.labels["x"] == "1"' resulted in error: no such key: x`,
    );
  });
});
