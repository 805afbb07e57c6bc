// How the API server treats webhooks that fail: unreachable, slow, untrusted, or answering
// garbage; failurePolicy decides, with kube's messages. Also the AdmissionReview versions.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhook,
  ValidatingWebhookConfiguration,
} from "kubernetes-types/admissionregistration/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import {
  newRESTClient,
  type RESTClient,
  resourceOf,
  StatusError,
  type Warning,
} from "controller-runtime/rest";
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
import { embedded, serverMode, testEnvironment, versionDifference } from "../support/environment.js";
import { eventually } from "controller-runtime/envtest";

const configMaps = resourceOf(kinds.ConfigMap);
const validating = resourceOf(kinds.ValidatingWebhookConfiguration);
const mutating = resourceOf(kinds.MutatingWebhookConfiguration);
const env = testEnvironment();
let client: RESTClient;
let hook: RawWebhook;

// Answers by path: the test picks the behaviour through the webhook's URL.
function respond(review: Review, path: string) {
  const route = path.split("?")[0];
  switch (route) {
    case "/allow":
      return answer(review, { allowed: true });
    case "/garbage":
      return { body: "<html>not a review</html>" };
    case "/wrong-uid":
      return answer(review, { allowed: true, uid: "someone-else" });
    case "/no-response":
      return { body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" } };
    case "/wrong-kind":
      return {
        body: {
          apiVersion: "admission.k8s.io/v1beta1",
          kind: "AdmissionReview",
          response: { uid: review.request.uid, allowed: true },
        },
      };
    case "/server-error":
      return { status: 500, body: "boom" };
    case "/patch-without-type":
      return answer(review, { allowed: true, patch: jsonPatch([]).patch });
    case "/bad-patch":
      return answer(review, { allowed: true, ...jsonPatch([{ op: "remove", path: "/data/missing" }]) });
    case "/deny-invalid":
      return answer(review, {
        allowed: false,
        warnings: ["first warning", "second warning"],
        status: {
          code: 422,
          reason: "Invalid",
          message: "spec is wrong",
          details: { causes: [{ field: "data.x", message: "bad" }] },
        },
      });
    case "/v1beta1":
      // v1beta1 answers are not checked for uid or kind.
      return {
        body: {
          response: { allowed: false, status: { code: 403, message: "from v1beta1" } },
          kind: "AdmissionReview",
        },
      };
    case "/never":
      return undefined;
    default:
      return { status: 404, body: "" };
  }
}

before(async () => {
  client = newRESTClient(await env.start());
  hook = await startRawWebhook(respond);
});
after(async () => {
  await hook?.close();
  await client?.close();
  await env.stop();
});

function webhook(
  name: string,
  path: string,
  ns: string,
  extra: Partial<ValidatingWebhook> = {},
): ValidatingWebhook {
  return {
    name,
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    clientConfig: { url: `${hook.url}${path}`, caBundle: hook.caBundle },
    rules: [
      rule({ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }),
    ],
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
    ...extra,
  };
}

async function withValidating<T>(
  name: string,
  hooks: ValidatingWebhook[],
  body: () => Promise<T>,
  opts: { probe?: boolean } = {},
): Promise<T> {
  const cfg: ValidatingWebhookConfiguration = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks: hooks,
  };
  await client.create(validating, cfg);
  try {
    const ns = hooks[0]?.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"];
    if (ns && opts.probe !== false) {
      await untilWebhookCalled(hook, () =>
        client.create(configMaps, cm(`probe-${name}`), { namespace: ns, dryRun: true }),
      );
    }
    return await body();
  } finally {
    await client.delete(validating, name);
  }
}

/**
 * The error of a dry-run create of `name`, once the webhook configuration just written refuses it:
 * for webhooks no call reaches (down, untrusted), the refusal itself says it is in effect.
 */
function refused(ns: string, name: string): Promise<StatusError> {
  return eventually(
    `the create of ${name} to be refused`,
    () =>
      client.create(configMaps, cm(name), { namespace: ns, dryRun: true }).then(
        () => undefined,
        (e: unknown) => {
          assert.ok(e instanceof StatusError, String(e));
          return e;
        },
      ),
    { timeoutMs: 30_000 },
  );
}

/** The webhook call about the object named `name` (probes and other calls left out). */
function callFor(name: string) {
  return hook.calls.find((c) => c.review.request?.name === name);
}

function cm(name: string): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "1" } };
}

async function createError(ns: string, name: string): Promise<StatusError> {
  return client.create(configMaps, cm(name), { namespace: ns }).then(
    () => assert.fail(`${name} was admitted`),
    (e: unknown) => {
      assert.ok(e instanceof StatusError, String(e));
      return e;
    },
  );
}

async function labelledNamespace(prefix: string): Promise<string> {
  const ns = await newNamespace(client, prefix);
  // The namespace controller labels namespaces with their name, as kube does; wait for nothing.
  const read = await client.get(resourceOf(kinds.Namespace), ns);
  if (read.metadata?.labels?.["kubernetes.io/metadata.name"] !== ns) {
    await client.patch(
      resourceOf(kinds.Namespace),
      ns,
      { metadata: { labels: { "kubernetes.io/metadata.name": ns } } },
      { patchType: "merge" },
    );
  }
  return ns;
}

test("with the webhook down, failurePolicy Fail answers 500 naming the webhook, Ignore admits", async () => {
  const down = await startRawWebhook(() => undefined);
  const url = `${down.url}/validate`;
  await down.close();
  const ns = await labelledNamespace("down");
  const fail = webhook("down-fail.example.com", "", ns, { clientConfig: { url, caBundle: hook.caBundle } });
  await withValidating(
    "down-fail",
    [fail],
    async () => {
      const err = await refused(ns, "c1");
      assert.equal(err.statusCode, 500);
      assert.equal(err.reason, "InternalError");
      const port = new URL(url).port;
      assert.equal(
        err.message,
        `Internal error occurred: failed calling webhook "down-fail.example.com": failed to call webhook: Post "${url}?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
      );
    },
    { probe: false },
  );
  await withValidating(
    "down-ignore",
    [{ ...fail, name: "down-ignore.example.com", failurePolicy: "Ignore" }],
    async () => {
      await client.create(configMaps, cm("c2"), { namespace: ns });
    },
    { probe: false },
  );
});

const malformed: [string, string][] = [
  ["/garbage", "failed to call webhook: couldn't get version/kind; json parse error"],
  ["/wrong-uid", 'received invalid webhook response: expected response.uid="'],
  ["/no-response", "received invalid webhook response: webhook response was absent"],
  [
    "/wrong-kind",
    "failed to call webhook: converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion",
  ],
  [
    "/server-error",
    // A body that is not text (the hook says application/json) is not quoted, as client-go.
    'failed to call webhook: an error on the server ("unknown") has prevented the request from succeeding',
  ],
];

test("malformed AdmissionReviews fail the request under Fail and are skipped under Ignore", async () => {
  const ns = await labelledNamespace("garbage");
  let i = 0;
  for (const [path, expected] of malformed) {
    i++;
    const name = `malformed${i}.example.com`;
    await withValidating(`malformed-${i}`, [webhook(name, path, ns)], async () => {
      const err = await createError(ns, `fail-${i}`);
      assert.equal(err.statusCode, 500, path);
      assert.ok(
        err.message.startsWith(`Internal error occurred: failed calling webhook "${name}": ${expected}`),
        `${path}: ${err.message}`,
      );
    });
    await withValidating(
      `malformed-ignore-${i}`,
      [webhook(name, path, ns, { failurePolicy: "Ignore" })],
      async () => {
        await client.create(configMaps, cm(`ignore-${i}`), { namespace: ns });
      },
    );
  }
});

test("a mutating webhook's patch without patchType is malformed; a patch that does not apply fails whatever the policy", async () => {
  const ns = await labelledNamespace("patches");
  const cfg = (name: string, path: string, failurePolicy: string): MutatingWebhookConfiguration => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name },
    webhooks: [{ ...webhook(`${name}.example.com`, path, ns), failurePolicy }],
  });
  await client.create(mutating, cfg("no-type", "/patch-without-type", "Fail"));
  await untilWebhookCalled(hook, () =>
    client.create(configMaps, cm("probe-no-type"), { namespace: ns, dryRun: true }),
  );
  try {
    const err = await createError(ns, "p1");
    assert.match(
      err.message,
      /failed calling webhook "no-type.example.com": received invalid webhook response: webhook returned response.patch but not response.patchType/,
    );
  } finally {
    await client.delete(mutating, "no-type");
  }
  await client.create(mutating, cfg("bad-patch", "/bad-patch", "Ignore"));
  await untilWebhookCalled(hook, () =>
    client.create(configMaps, cm("probe-bad-patch"), { namespace: ns, dryRun: true }),
  );
  try {
    const err = await createError(ns, "p2");
    assert.equal(err.statusCode, 500);
    assert.equal(err.reason, "InternalError");
  } finally {
    await client.delete(mutating, "bad-patch");
  }
});

test("a webhook slower than timeoutSeconds fails as a deadline; the URL carries ?timeout=", async () => {
  const ns = await labelledNamespace("slow");
  await withValidating(
    "slow",
    [webhook("slow.example.com", "/never", ns, { timeoutSeconds: 1 })],
    async () => {
      const err = await createError(ns, "s1");
      assert.equal(err.statusCode, 500);
      assert.match(
        err.message,
        /failed calling webhook "slow.example.com": failed to call webhook: Post ".*\/never\?timeout=1s": context deadline exceeded$/,
      );
    },
  );
  assert.equal(callFor("s1")?.path, "/never?timeout=1s");
});

test("TLS to a webhook trusts only its caBundle", async () => {
  const ns = await labelledNamespace("tls");
  const other = await startRawWebhook(() => undefined);
  await other.close();
  const untrusted = webhook("tls.example.com", "/allow", ns, {
    clientConfig: { url: `${hook.url}/allow`, caBundle: other.caBundle },
  });
  await withValidating(
    "tls",
    [untrusted],
    async () => {
      // Nothing reaches the hook to tell when the configuration is in effect: wait for the failure.
      const err = await refused(ns, "t1");
      // Go 1.20 added "tls: failed to verify certificate: " (kube 1.32); kube 1.26 is built with Go 1.19.
      assert.match(
        err.message,
        /failed calling webhook "tls.example.com": failed to call webhook: Post ".*": (tls: failed to verify certificate: )?x509: certificate signed by unknown authority/,
      );
    },
    { probe: false },
  );
});

test("every certificate of a caBundle is trusted, as Go trusts it: here the webhook's own, which is no CA", async () => {
  const ns = await labelledNamespace("leaf");
  const ownCertificate = Buffer.from(hook.servingCertPem).toString("base64");
  await withValidating(
    "leaf",
    [
      webhook("leaf.example.com", "/allow", ns, {
        clientConfig: { url: `${hook.url}/allow`, caBundle: ownCertificate },
      }),
    ],
    async () => {
      await client.create(configMaps, cm("own-certificate"), { namespace: ns });
      assert.equal(callFor("own-certificate")?.path, "/allow?timeout=10s");
    },
  );
});

test("a webhook's URL path is cleaned as Go's path.Join cleans it", async () => {
  const ns = await labelledNamespace("path");
  await withValidating("path", [webhook("path.example.com", "//x/../allow/", ns)], async () => {
    await client.create(configMaps, cm("cleaned-path"), { namespace: ns });
  });
  assert.equal(callFor("cleaned-path")?.path, "/allow?timeout=10s");
});

test("a denial keeps the webhook's code, reason and causes; its warnings reach the client", async () => {
  const ns = await labelledNamespace("deny");
  await withValidating("deny", [webhook("deny.example.com", "/deny-invalid", ns)], async () => {
    const warnings: Warning[] = [];
    const err = await client
      .create(configMaps, cm("d1"), { namespace: ns, onWarning: (w) => warnings.push(w) })
      .then(
        () => assert.fail("admitted"),
        (e: StatusError) => e,
      );
    assert.equal(err.statusCode, 422);
    assert.equal(err.reason, "Invalid");
    assert.equal(err.message, 'admission webhook "deny.example.com" denied the request: spec is wrong');
    assert.deepEqual(err.details?.causes, [{ field: "data.x", message: "bad" }]);
    assert.deepEqual(
      warnings.map((w) => w.text),
      ["first warning", "second warning"],
    );
  });
});

test("the first AdmissionReview version the webhook accepts is sent; none known fails the call", async () => {
  const ns = await labelledNamespace("versions");
  await withValidating(
    "v1beta1",
    [webhook("beta.example.com", "/v1beta1", ns, { admissionReviewVersions: ["v1beta1", "v1"] })],
    async () => {
      const err = await createError(ns, "b1");
      assert.equal(err.message, 'admission webhook "beta.example.com" denied the request: from v1beta1');
    },
  );
  assert.equal(callFor("b1")?.review.apiVersion, "admission.k8s.io/v1beta1");
  // A webhook that knows no AdmissionReview version the server speaks is refused when written.
  const err = await withValidating(
    "v2",
    [webhook("v2.example.com", "/allow", ns, { admissionReviewVersions: ["v2"] })],
    async () => assert.fail("the configuration must be refused"),
  ).then(
    () => assert.fail("the configuration must be refused"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof StatusError, String(err));
  assert.equal(
    err.message,
    `ValidatingWebhookConfiguration.admissionregistration.k8s.io "v2" is invalid: webhooks[0].admissionReviewVersions: Invalid value: ${
      versionDifference("kube <1.37 (1.26 checked): a []string printed as Go's %#v")
        ? '["v2"]'
        : '[]string{"v2"}'
    }: must include at least one of v1, v1beta1`,
  );
});

test("the review names the request: kinds, resources, user, options, objects", async () => {
  const ns = await labelledNamespace("review");
  await withValidating("review", [webhook("review.example.com", "/allow", ns)], async () => {
    await client.create(configMaps, cm("r1"), { namespace: ns, fieldManager: "tester" });
  });
  const request = callFor("r1")?.review.request;
  assert.equal(callFor("r1")?.review.apiVersion, "admission.k8s.io/v1");
  assert.deepEqual(request.kind, { group: "", version: "v1", kind: "ConfigMap" });
  assert.deepEqual(request.resource, { group: "", version: "v1", resource: "configmaps" });
  assert.deepEqual(request.requestKind, request.kind);
  assert.equal(request.operation, "CREATE");
  assert.equal(request.namespace, ns);
  assert.equal(request.name, "r1");
  // The environment's admin: a token user on the embedded server, a client certificate on kube.
  // The admin envtest makes; an existing cluster's is whoever its kubeconfig names.
  if (serverMode !== "existing")
    assert.equal(request.userInfo.username, embedded ? "admin" : "envtest-admin");
  else assert.ok(request.userInfo.username);
  assert.deepEqual(request.options, {
    kind: "CreateOptions",
    apiVersion: "meta.k8s.io/v1",
    fieldManager: "tester",
  });
  assert.equal(request.dryRun, false);
  assert.equal(request.oldObject, null);
  // Validating webhooks see the object as it will be stored.
  assert.equal(typeof request.object.metadata.uid, "string");
  assert.equal(request.object.metadata.namespace, ns);
});
