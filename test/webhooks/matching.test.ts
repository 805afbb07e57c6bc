// Which requests reach which webhooks, as kube decides: namespace and object selectors, rules on
// subresources and scope, mutating webhooks in configuration-name order with reinvocation, and
// `clientConfig.service` reached through the server's serviceResolver.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type {
  MutatingWebhook,
  MutatingWebhookConfiguration,
  ValidatingWebhook,
  ValidatingWebhookConfiguration,
} from "kubernetes-types/admissionregistration/v1.js";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import { newRESTClient, type RESTClient, resourceOf } from "controller-runtime/rest";
import {
  answer,
  jsonPatch,
  newNamespace,
  type RawWebhook,
  type Review,
  rule,
  startRawWebhook,
  untilWebhookCalled,
} from "./harness.js";
import { needs, testEnvironment, versionDifference } from "../support/environment.js";

const configMaps = resourceOf(kinds.ConfigMap);
const namespaces = resourceOf(kinds.Namespace);
const validating = resourceOf(kinds.ValidatingWebhookConfiguration);
const mutating = resourceOf(kinds.MutatingWebhookConfiguration);
let hook: RawWebhook;
let client: RESTClient;
// Every Service is this test's webhook, reached on loopback.
const env = testEnvironment({ apiServer: { serviceResolver: () => hook.url } });

function respond(review: Review, path: string) {
  const [route, query = ""] = path.split("?");
  if (route.startsWith("/append/")) {
    // Appends the webhook's letter to the `order` annotation.
    const letter = route.slice("/append/".length);
    const annotations = review.request.object.metadata.annotations ?? {};
    const order = annotations.order ? `${annotations.order},${letter}` : letter;
    const ops = review.request.object.metadata.annotations
      ? [{ op: "add", path: "/metadata/annotations/order", value: order }]
      : [{ op: "add", path: "/metadata/annotations", value: { order } }];
    return answer(review, { allowed: true, ...jsonPatch(ops) });
  }
  void query;
  return answer(review, { allowed: true });
}

before(async () => {
  hook = await startRawWebhook(respond, ["raw.webhooks.svc"]);
  client = newRESTClient(await env.start());
});
after(async () => {
  await client?.close();
  await env.stop();
  await hook?.close();
});

function recorder(name: string, extra: Partial<ValidatingWebhook>): ValidatingWebhook {
  return {
    // kube wants a webhook name of at least three DNS segments; the URL names the recorder.
    name: `${name}.webhooks.example.com`,
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    clientConfig: { url: `${hook.url}/record/${name}`, caBundle: hook.caBundle },
    rules: [rule({ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] })],
    ...extra,
  };
}

async function withConfig<T>(
  cfg: ValidatingWebhookConfiguration | MutatingWebhookConfiguration,
  body: () => Promise<T>,
): Promise<T> {
  const resource = cfg.kind === "ValidatingWebhookConfiguration" ? validating : mutating;
  const name = cfg.metadata?.name ?? "";
  // kube-apiserver reads configurations through an informer: a probe webhook in the same object,
  // called for ConfigMaps labelled for it, tells when the whole configuration is in effect.
  const probe = {
    name: `probe-${name}.webhooks.example.com`,
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    clientConfig: { url: `${hook.url}/probe/${name}`, caBundle: hook.caBundle },
    rules: [
      rule({ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }),
    ],
    objectSelector: { matchLabels: { probe: name } },
  };
  await client.create(resource, { ...cfg, webhooks: [...(cfg.webhooks ?? []), probe] } as typeof cfg);
  try {
    await untilWebhookCalled(hook, () =>
      client.create(configMaps, cm(`probe-${name}`, { probe: name }), { namespace: "default", dryRun: true }),
    );
    return await body();
  } finally {
    await client.delete(resource, cfg.metadata?.name ?? "");
  }
}

function validatingConfig(name: string, webhooks: ValidatingWebhook[]): ValidatingWebhookConfiguration {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks,
  };
}

function mutatingConfig(name: string, webhooks: MutatingWebhook[]): MutatingWebhookConfiguration {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name },
    webhooks,
  };
}

/** Which of the recorders saw requests since `from`: `name op resource[/sub] object-name`. */
function seen(from: number): string[] {
  return hook.calls
    .slice(from)
    .filter(({ path }) => !path.startsWith("/probe/"))
    .map(({ path, review }) => {
      const r = review.request;
      const resource = r.subResource ? `${r.resource.resource}/${r.subResource}` : r.resource.resource;
      return `${path.split("?")[0].replace("/record/", "")} ${r.operation} ${resource} ${r.name ?? ""}`;
    });
}

function cm(name: string, labels?: Record<string, string>): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(labels ? { labels } : {}) } };
}

test("namespaceSelector: namespaces by labels, namespaces on their own labels, cluster-scoped objects always", async () => {
  const team = await newNamespace(client, "team", { tier: "team" });
  const system = await newNamespace(client, "sys", { tier: "system" });
  const selector = { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["system"] }] };
  await withConfig(
    validatingConfig("ns-selector", [recorder("ns", { namespaceSelector: selector })]),
    async () => {
      const from = hook.calls.length;
      await client.create(configMaps, cm("in-team"), { namespace: team });
      await client.create(configMaps, cm("in-system"), { namespace: system });
      await client.create(namespaces, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: `${team}-x`, labels: { tier: "system" } },
      });
      await client.create(namespaces, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: `${team}-y` },
      });
      await client.create(resourceOf(kinds.ClusterRole), {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: `${team}-role` },
      });
      // kube-apiserver's own controllers write too (it creates default/kubernetes once it
      // serves): only this test's objects count.
      const ours = seen(from).filter((s) => s.includes("in-") || s.includes(team));
      assert.deepEqual(ours, [
        "ns CREATE configmaps in-team",
        `ns CREATE namespaces ${team}-y`,
        `ns CREATE clusterroles ${team}-role`,
      ]);
    },
  );
});

test("objectSelector: the new object on create, the old one on delete", async () => {
  const ns = await newNamespace(client, "objsel");
  const selector = { matchLabels: { watched: "yes" } };
  await withConfig(
    validatingConfig("obj-selector", [recorder("obj", { objectSelector: selector })]),
    async () => {
      const from = hook.calls.length;
      await client.create(configMaps, cm("plain"), { namespace: ns });
      await client.create(configMaps, cm("watched", { watched: "yes" }), { namespace: ns });
      await client.delete(configMaps, "plain", { namespace: ns });
      await client.delete(configMaps, "watched", { namespace: ns });
      assert.deepEqual(seen(from), ["obj CREATE configmaps watched", "obj DELETE configmaps watched"]);
    },
  );
});

test("rules: `*` leaves subresources out, `*/status` sees only status writes, scope splits the cluster", async () => {
  const ns = await newNamespace(client, "rules");
  const deployments = resourceOf(kinds.Deployment);
  const main = recorder("main", {
    rules: [rule({ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["*"] })],
  });
  const status = recorder("status", {
    rules: [rule({ apiGroups: ["*"], apiVersions: ["*"], operations: ["UPDATE"], resources: ["*/status"] })],
  });
  const cluster = recorder("cluster", {
    rules: [
      rule({
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["CREATE"],
        resources: ["*"],
        scope: "Cluster",
      }),
    ],
  });
  const namespaced = recorder("namespaced", {
    rules: [
      rule({
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["CREATE"],
        resources: ["*"],
        scope: "Namespaced",
      }),
    ],
  });
  const d: Deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d1" },
    spec: {
      selector: { matchLabels: { app: "d1" } },
      template: {
        metadata: { labels: { app: "d1" } },
        spec: { containers: [{ name: "c", image: "nginx" }] },
      },
    },
  };
  const created = await client.create(deployments, d, { namespace: ns });
  await withConfig(validatingConfig("rules", [main, status, cluster, namespaced]), async () => {
    const from = hook.calls.length;
    const updated = await client.update(
      deployments,
      { ...created, spec: { ...created.spec!, replicas: 2 } },
      { namespace: ns },
    );
    await client.update(
      deployments,
      { ...updated, status: { replicas: 2 } },
      { namespace: ns, subresource: "status" },
    );
    await client.create(configMaps, cm("scoped"), { namespace: ns });
    await client.create(namespaces, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: `${ns}-scoped` },
    });
    assert.deepEqual(seen(from), [
      "main UPDATE deployments d1",
      "status UPDATE deployments/status d1",
      "namespaced CREATE configmaps scoped",
      `cluster CREATE namespaces ${ns}-scoped`,
    ]);
  });
});

test("mutating webhooks run in configuration-name order; IfNeeded ones run again after a later change", async () => {
  const ns = await newNamespace(client, "order");
  const appender = (letter: string, reinvocationPolicy: string): MutatingWebhook => ({
    name: `${letter.toLowerCase()}.example.com`,
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    reinvocationPolicy,
    clientConfig: { url: `${hook.url}/append/${letter}`, caBundle: hook.caBundle },
    rules: [
      rule({ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }),
    ],
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
  });
  // Created in reverse: the order comes from the names, not from creation.
  await withConfig(mutatingConfig("b-second", [appender("B", "Never"), appender("C", "Never")]), () =>
    withConfig(mutatingConfig("a-first", [appender("A", "IfNeeded")]), async () => {
      const created = await client.create(configMaps, cm("ordered"), { namespace: ns });
      assert.equal(created.metadata?.annotations?.order, "A,B,C,A");
    }),
  );
  await withConfig(mutatingConfig("a-first", [appender("A", "Never"), appender("B", "Never")]), async () => {
    const created = await client.create(configMaps, cm("once"), { namespace: ns });
    assert.equal(created.metadata?.annotations?.order, "A,B");
  });
});

test(
  "clientConfig.service is reached through the serviceResolver, its TLS name checked",
  needs("service-resolution"),
  async () => {
    const ns = await newNamespace(client, "svc");
    const via = (name: string, service: string): ValidatingWebhook =>
      recorder(name, {
        clientConfig: {
          service: { name: service, namespace: "webhooks", path: `/record/${name}`, port: 8443 },
          caBundle: hook.caBundle,
        },
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
      });
    await withConfig(validatingConfig("service", [via("svc", "raw")]), async () => {
      const from = hook.calls.length;
      await client.create(configMaps, cm("via-service"), { namespace: ns });
      assert.deepEqual(seen(from), ["svc CREATE configmaps via-service"]);
    });
    // The certificate names raw.webhooks.svc only: another Service on the same address fails.
    await withConfig(validatingConfig("other-service", [via("other", "other")]), async () => {
      await assert.rejects(
        client.create(configMaps, cm("misnamed"), { namespace: ns }),
        /failed calling webhook "other.webhooks.example.com": failed to call webhook: Post "https:\/\/127.0.0.1:\d+\/record\/other\?timeout=10s": tls: failed to verify certificate: x509: certificate is not valid for other.webhooks.svc/,
      );
    });
  },
);

const MATCH_CONDITIONS_126 =
  "kube 1.26 has no webhook matchConditions (alpha in 1.27, GA in 1.30): it calls every webhook";

test("matchConditions: any false condition skips the webhook; all true call it (kube 1.28+)", async (t) => {
  if (!versionDifference(MATCH_CONDITIONS_126)) return t.skip(MATCH_CONDITIONS_126);
  const ns = await newNamespace(client, "matchcond");
  const conditions = [
    { name: "only-creates-and-updates", expression: "request.operation != 'DELETE'" },
    {
      name: "not-skipped",
      expression: "!has(object.metadata.labels) || !('skip' in object.metadata.labels)",
    },
    {
      name: "big-enough",
      expression: "!has(object.data) || !('n' in object.data) || int(object.data.n) > 2",
    },
    {
      // The requester (the suite's admin) may do what it asks, and an account with no bindings may not.
      name: "authorized",
      expression:
        "authorizer.requestResource.check(request.operation == 'DELETE' ? 'delete' : 'create').allowed() && !authorizer.serviceAccount('default', 'nobody').group('').resource('configmaps').check('create').allowed()",
    },
  ];
  await withConfig(
    validatingConfig("match-conditions", [
      recorder("cond", {
        matchConditions: conditions,
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
      }),
    ]),
    async () => {
      const from = hook.calls.length;
      await client.create(configMaps, cm("called"), { namespace: ns });
      await client.create(configMaps, cm("skipped", { skip: "yes" }), { namespace: ns });
      await client.create(configMaps, { ...cm("small"), data: { n: "1" } }, { namespace: ns });
      await client.create(configMaps, { ...cm("large"), data: { n: "5" } }, { namespace: ns });
      await client.delete(configMaps, "called", { namespace: ns });
      assert.deepEqual(seen(from), ["cond CREATE configmaps called", "cond CREATE configmaps large"]);
    },
  );
});

test("matchConditions that fail to evaluate: kube's 403 under failurePolicy Fail, no call under Ignore", async (t) => {
  if (!versionDifference(MATCH_CONDITIONS_126)) return t.skip(MATCH_CONDITIONS_126);
  const ns = await newNamespace(client, "matcherr");
  const broken = [{ name: "needs-a-label", expression: "object.metadata.labels.team == 'a'" }];
  const only = { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } } };
  await withConfig(
    validatingConfig("match-fail", [
      recorder("fail", { ...only, matchConditions: broken, failurePolicy: "Fail" }),
    ]),
    async () => {
      const from = hook.calls.length;
      await assert.rejects(client.create(configMaps, cm("no-team"), { namespace: ns }), (err: unknown) => {
        const e = err as { statusCode: number; status: { reason: string; message: string } };
        assert.equal(e.statusCode, 403);
        assert.equal(e.status.reason, "Forbidden");
        assert.match(
          e.status.message,
          /^configmaps "no-team" is forbidden: expression 'object\.metadata\.labels\.team == 'a'' resulted in error: /,
        );
        return true;
      });
      // A false condition wins over an error: no call, no failure.
      await client.create(configMaps, cm("other-team", { team: "b" }), { namespace: ns });
      assert.deepEqual(seen(from), []);
      await client.create(configMaps, cm("team-a", { team: "a" }), { namespace: ns });
      assert.deepEqual(seen(from), ["fail CREATE configmaps team-a"]);
    },
  );
  await withConfig(
    validatingConfig("match-ignore", [
      recorder("ignore", { ...only, matchConditions: broken, failurePolicy: "Ignore" }),
    ]),
    async () => {
      const from = hook.calls.length;
      await client.create(configMaps, cm("no-team-ignored"), { namespace: ns });
      assert.deepEqual(seen(from), []);
    },
  );
});

test("matchConditions are checked with the configuration, as kube checks them (kube 1.28+)", async (t) => {
  if (!versionDifference(MATCH_CONDITIONS_126)) return t.skip(MATCH_CONDITIONS_126);
  const bad = validatingConfig("bad-conditions", [
    recorder("bad", {
      matchConditions: [
        { name: "a", expression: "object.metadata.name ==" },
        { name: "a", expression: "true" },
        { name: "", expression: "" },
        { name: "Not_Valid!", expression: "true" },
        { name: "b", expression: "params.max > 1" },
      ],
    }),
  ]);
  await assert.rejects(client.create(validating, bad), (err: unknown) => {
    const causes = (err as { status: { details: { causes: { field: string; message: string }[] } } }).status
      .details.causes;
    const at = "webhooks[0].matchConditions";
    assert.deepEqual(
      causes.map((c) => [c.field, c.message.replace(/ERROR: .*/s, "ERROR: …")]),
      [
        [`${at}[0].expression`, 'Invalid value: "object.metadata.name ==": compilation failed: ERROR: …'],
        [`${at}[1].name`, 'Duplicate value: "a"'],
        [`${at}[2].expression`, "Required value"],
        [`${at}[2].name`, "Required value"],
        [
          `${at}[3].name`,
          "Invalid value: \"Not_Valid!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ],
        [`${at}[4].expression`, 'Invalid value: "params.max > 1": compilation failed: ERROR: …'],
      ],
    );
    // A webhook's conditions have no params (a policy's do): the name is undeclared, at its place.
    assert.ok(
      causes[5]?.message.endsWith(
        "ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.max > 1\n | ^",
      ),
      causes[5]?.message,
    );
    return true;
  });
});
