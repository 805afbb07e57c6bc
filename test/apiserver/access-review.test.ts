// The review endpoints, ServiceAccount tokens and impersonation over HTTP, on the run's server:
// what `kubectl auth can-i`, `kubectl create token` and `kubectl --as` rely on, and what a
// metrics endpoint or webhook asks the API server about its callers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { needsControlPlane, versionDifference } from "../support/environment.js";
import { unsetCreationTimestamp } from "../support/creation-timestamp.js";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let admin: Api;
before(async () => {
  target = await startTarget();
  admin = new Api(target);
});
after(() => target.close());

const AUTHZ = "/apis/authorization.k8s.io/v1";
const AUTHN = "/apis/authentication.k8s.io/v1";
const RBAC = "/apis/rbac.authorization.k8s.io/v1";
let serial = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++serial}`;

const ssar = (spec: object) => ({
  apiVersion: "authorization.k8s.io/v1",
  kind: "SelfSubjectAccessReview",
  spec,
});
const sar = (spec: object, kind = "SubjectAccessReview") => ({
  apiVersion: "authorization.k8s.io/v1",
  kind,
  spec,
});

/** A namespace where `user` holds a Role on pods (get, list) and a binding to a missing Role. */
async function grantedNamespace(user: string) {
  const ns = await admin.namespace("review");
  const roleRef = (name: string) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name });
  const subjects = [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: user }];
  for (const [path, body] of [
    [
      `${RBAC}/namespaces/${ns}/roles`,
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: "pods" },
        rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }],
      },
    ],
    [
      `${RBAC}/namespaces/${ns}/rolebindings`,
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "pods" },
        subjects,
        roleRef: roleRef("pods"),
      },
    ],
    [
      `${RBAC}/namespaces/${ns}/rolebindings`,
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "dangling" },
        subjects,
        roleRef: roleRef("gone"),
      },
    ],
  ] as const) {
    const r = await admin.post(path, body);
    assert.equal(r.status, 201, r.text);
  }
  return ns;
}

describe("access reviews", needsControlPlane("users"), () => {
  test("SelfSubjectAccessReview answers for the caller, naming the binding that allows", async () => {
    const name = unique("ann");
    const ann = await admin.as(name);
    const ns = await grantedNamespace(name);
    const allowed = await eventually("the Role to take effect", async () => {
      const r = await ann.post(
        `${AUTHZ}/selfsubjectaccessreviews`,
        ssar({ resourceAttributes: { namespace: ns, verb: "list", resource: "pods" } }),
      );
      return r.body?.status?.allowed ? r : undefined;
    });
    assert.equal(allowed.status, 201);
    assert.equal(
      allowed.body.status.reason,
      `RBAC: allowed by RoleBinding "pods/${ns}" of Role "pods" to User "${name}"`,
    );
    assert.deepEqual(allowed.body.spec, {
      resourceAttributes: { namespace: ns, verb: "list", resource: "pods" },
    });
    assert.equal(allowed.body.metadata.creationTimestamp, unsetCreationTimestamp().creationTimestamp);

    const denied = await ann.post(
      `${AUTHZ}/selfsubjectaccessreviews`,
      ssar({ resourceAttributes: { namespace: ns, verb: "delete", resource: "pods" } }),
    );
    // kube's union authorizer puts each member's name before its reason.
    const authorizer = versionDifference(
      "kube <1.37 (1.26 checked): the reason without its authorizer's name",
    )
      ? "rbac: "
      : "";
    assert.deepEqual(denied.body.status, {
      allowed: false,
      reason: `${authorizer}RBAC: role.rbac.authorization.k8s.io "gone" not found`,
    });
    const path = await ann.post(
      `${AUTHZ}/selfsubjectaccessreviews`,
      ssar({ nonResourceAttributes: { verb: "get", path: "/api" } }),
    );
    assert.equal(
      path.body.status.reason,
      'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    );
  });

  test("SelfSubjectReview (kubectl auth whoami) names the caller: user, groups, a new object", async (t) => {
    const me = await admin.as("whoami", ["team-a"]);
    const r = await me.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    if (!versionDifference("kube 1.26 serves no authentication.k8s.io/v1 SelfSubjectReview (GA in 1.28)")) {
      // kube authorizes before it routes: a caller no rule allows gets 403, not 404.
      assert.equal(r.status, 403);
      return t.skip("kube 1.26");
    }
    // Everyone may ask (system:basic-user since kube 1.28).
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.keys(r.body), ["kind", "apiVersion", "metadata", "status"]);
    assert.match(r.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT/);
    assert.equal(r.body.status.userInfo.username, "whoami");
    assert.deepEqual(r.body.status.userInfo.groups, ["team-a", "system:authenticated"]);
  });

  test("SubjectAccessReview and LocalSubjectAccessReview ask about another user; kube's validation", async () => {
    const name = unique("ben");
    const ns = await grantedNamespace(name);
    const ask = {
      user: name,
      resourceAttributes: { namespace: ns, verb: "get", resource: "pods", name: "p" },
    };
    await eventually(
      "the Role to take effect",
      async () => (await admin.post(`${AUTHZ}/subjectaccessreviews`, sar(ask))).body?.status?.allowed,
    );
    const local = await admin.post(
      `${AUTHZ}/namespaces/${ns}/localsubjectaccessreviews`,
      sar(ask, "LocalSubjectAccessReview"),
    );
    assert.equal(local.status, 201);
    assert.equal(local.body.metadata.namespace, ns);
    assert.equal(local.body.status.allowed, true);

    const invalid = async (path: string, body: object) => {
      const r = await admin.post(path, body);
      assert.equal(r.status, 422, r.text);
      return r.body.message;
    };
    assert.equal(
      await invalid(`${AUTHZ}/subjectaccessreviews`, sar({ resourceAttributes: { verb: "get" } })),
      '.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    );
    // kube 1.37 reports a missing or doubled kind of attributes on spec, the value printed as JSON.
    const on137 = versionDifference(
      "kube <1.37 (1.26 checked): attributes of neither or both kinds reported on spec.resourceAttributes or spec.nonResourceAttributes, printed as Go's %#v",
    );
    assert.equal(
      await invalid(`${AUTHZ}/subjectaccessreviews`, sar({ user: "u" })),
      on137
        ? '.authorization.k8s.io "" is invalid: spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified'
        : '.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    assert.equal(
      await invalid(
        `${AUTHZ}/subjectaccessreviews`,
        sar({ user: "u", resourceAttributes: {}, nonResourceAttributes: { path: "/x", verb: "get" } }),
      ),
      on137
        ? '.authorization.k8s.io "" is invalid: spec: Invalid value: {"Path":"/x","Verb":"get"}: exactly one of nonResourceAttributes or resourceAttributes must be specified'
        : '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    );
    assert.equal(
      await invalid(
        `${AUTHZ}/namespaces/${ns}/localsubjectaccessreviews`,
        sar({ user: "u", resourceAttributes: { namespace: "elsewhere" } }, "LocalSubjectAccessReview"),
      ),
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "elsewhere": must match metadata.namespace',
    );
    const bob = await admin.as(unique("bob"));
    const forbidden = await bob.post(`${AUTHZ}/subjectaccessreviews`, sar(ask));
    assert.equal(forbidden.status, 403, "asking about others needs create on subjectaccessreviews");
    assert.equal((await admin.get(`${AUTHZ}/subjectaccessreviews`)).status, 405);
  });

  test("SelfSubjectRulesReview lists the caller's rules in a namespace, and what could not be resolved", async () => {
    const name = unique("cat");
    const cat = await admin.as(name);
    const ns = await grantedNamespace(name);
    const review = await eventually("the Role to take effect", async () => {
      const r = await cat.post(`${AUTHZ}/selfsubjectrulesreviews`, {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectRulesReview",
        spec: { namespace: ns },
      });
      return r.body?.status?.resourceRules?.length > 1 ? r : undefined;
    });
    assert.equal(review.status, 201);
    assert.deepEqual(review.body.spec, {});
    const rules = review.body.status.resourceRules;
    assert.ok(
      rules.some(
        (r: { resources: string[]; verbs: string[] }) =>
          r.resources.includes("pods") && r.verbs.join() === "get,list",
      ),
    );
    assert.ok(rules.some((r: { resources: string[] }) => r.resources.includes("selfsubjectaccessreviews")));
    assert.ok(
      review.body.status.nonResourceRules.some((r: { nonResourceURLs: string[] }) =>
        r.nonResourceURLs.includes("/api"),
      ),
    );
    assert.equal(review.body.status.incomplete, false);
    assert.equal(review.body.status.evaluationError, 'role.rbac.authorization.k8s.io "gone" not found');
    const noNamespace = await cat.post(`${AUTHZ}/selfsubjectrulesreviews`, {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectRulesReview",
      spec: {},
    });
    assert.equal(noNamespace.status, 400);
    assert.equal(noNamespace.body.message, "no namespace on request");
  });
});

describe("ServiceAccount tokens", needsControlPlane("users"), () => {
  async function serviceAccount() {
    const ns = await admin.namespace("sa");
    const r = await admin.post(`/api/v1/namespaces/${ns}/serviceaccounts`, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "robot" },
    });
    assert.equal(r.status, 201, r.text);
    return { ns, uid: r.body.metadata.uid as string };
  }
  const tokenRequest = (spec: object) => ({
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec,
  });
  const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());

  test("a TokenRequest issues a JWT that authenticates as the account until the account goes", async () => {
    const { ns, uid } = await serviceAccount();
    const issued = await admin.post(
      `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`,
      tokenRequest({ expirationSeconds: 1200 }),
    );
    assert.equal(issued.status, 201, issued.text);
    assert.equal(issued.body.kind, "TokenRequest");
    assert.deepEqual(Object.keys(issued.body.spec), ["audiences", "expirationSeconds", "boundObjectRef"]);
    assert.equal(issued.body.spec.boundObjectRef, null);
    const token = issued.body.status.token as string;
    const header = JSON.parse(Buffer.from(token.split(".")[0], "base64url").toString());
    assert.equal(header.alg, "ES256");
    const claims = claimsOf(token);
    assert.equal(claims.sub, `system:serviceaccount:${ns}:robot`);
    assert.deepEqual(claims["kubernetes.io"], { namespace: ns, serviceaccount: { name: "robot", uid } });
    assert.equal(claims.exp - claims.iat, 1200);
    assert.deepEqual(claims.aud, issued.body.spec.audiences);
    assert.equal(new Date(issued.body.status.expirationTimestamp).getTime() / 1000, claims.exp);

    const asRobot = await admin.get(`/api/v1/namespaces/${ns}/secrets`, { token });
    assert.equal(asRobot.status, 403);
    assert.match(
      asRobot.body.message,
      new RegExp(`User "system:serviceaccount:${ns}:robot" cannot list resource "secrets"`),
    );

    const review = await admin.post(`${AUTHN}/tokenreviews`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: { token },
    });
    assert.equal(review.status, 201);
    // Tokens carry a jti, which authenticates as the user's credential-id (kube 1.32+).
    const credential = versionDifference(
      "kube <1.32 (1.26 checked): tokens had no jti, users no credential-id",
    )
      ? { extra: { "authentication.kubernetes.io/credential-id": [`JTI=${claims.jti}`] } }
      : {};
    if (credential.extra)
      assert.match(claims.jti, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual(review.body.status, {
      authenticated: true,
      user: {
        username: `system:serviceaccount:${ns}:robot`,
        uid,
        groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"],
        ...credential,
      },
      audiences: claims.aud,
    });

    assert.equal((await admin.delete(`/api/v1/namespaces/${ns}/serviceaccounts/robot`)).status, 200);
    await eventually(
      "the token to stop working",
      async () => (await admin.get("/api", { token })).status === 401,
      // kube-apiserver caches a token's answer for 10 s and reads accounts from an informer.
      { timeoutMs: 30_000, intervalMs: 250 },
    );
  });

  test("audiences, expiry, bound objects and bad tokens as kube answers them", async () => {
    const { ns } = await serviceAccount();
    const path = `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`;
    const short = await admin.post(path, tokenRequest({ expirationSeconds: 60 }));
    assert.equal(short.status, 422);
    assert.equal(
      short.body.message,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    const nobody = await admin.post(
      `/api/v1/namespaces/${ns}/serviceaccounts/nobody/token`,
      tokenRequest({}),
    );
    assert.equal(nobody.status, 404);
    assert.equal(nobody.body.message, 'serviceaccounts "nobody" not found');
    const unbound = await admin.post(
      path,
      tokenRequest({ boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "p" } }),
    );
    assert.equal(unbound.status, 404);
    assert.equal(unbound.body.message, 'pods "p" not found');

    const forFoo = (await admin.post(path, tokenRequest({ audiences: ["foo"] }))).body.status.token as string;
    assert.equal(
      (await admin.get("/api", { token: forFoo })).status,
      401,
      "a token for another audience does not authenticate here",
    );
    const review = async (spec: object) =>
      (
        await admin.post(`${AUTHN}/tokenreviews`, {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenReview",
          spec,
        })
      ).body;
    assert.equal((await review({ token: forFoo, audiences: ["foo"] })).status.authenticated, true);
    const mine = (await admin.post(path, tokenRequest({}))).body.status.token as string;
    const wrong = await review({ token: mine, audiences: ["foo"] });
    assert.deepEqual(wrong.status.user, {});
    assert.match(
      wrong.status.error,
      /^\[invalid bearer token, token audiences \["[^"]+"\] is invalid for the target audiences \["foo"\]\]$/,
    );
    assert.deepEqual((await review({ token: "abc" })).status, { user: {}, error: "invalid bearer token" });
    const empty = await admin.post(`${AUTHN}/tokenreviews`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: {},
    });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.message, "token is required for TokenReview in authentication");
  });
});

test("issuer discovery: the OpenID configuration and the keys that verify ServiceAccount tokens", async () => {
  const { createPublicKey, verify } = await import("node:crypto");
  const ns = await admin.namespace("oidc");
  await admin.post(`/api/v1/namespaces/${ns}/serviceaccounts`, {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: "robot" },
  });
  const token = (
    await admin.post(`/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {},
    })
  ).body.status.token as string;
  // system:service-account-issuer-discovery lets every ServiceAccount read them.
  const config = await admin.get("/.well-known/openid-configuration", { token });
  assert.equal(config.status, 200, config.text);
  const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
  assert.equal(config.body.issuer, claims.iss);
  const alg = JSON.parse(Buffer.from(token.split(".")[0], "base64url").toString()).alg;
  assert.ok(config.body.id_token_signing_alg_values_supported.includes(alg));
  const jwks = await admin.get("/openid/v1/jwks", { token });
  assert.equal(jwks.status, 200);
  assert.equal(jwks.headers.get("content-type"), "application/jwk-set+json");
  const [header, payload, signature] = token.split(".");
  const kid = JSON.parse(Buffer.from(header, "base64url").toString()).kid;
  const key = jwks.body.keys.find((k: { kid: string }) => k.kid === kid);
  assert.ok(key, "the token's kid is among the keys");
  const ok = verify(
    "sha256",
    Buffer.from(`${header}.${payload}`),
    { key: createPublicKey({ key, format: "jwk" }), dsaEncoding: "ieee-p1363" },
    Buffer.from(signature, "base64url"),
  );
  assert.equal(ok, true, "the published key verifies the token");
  assert.equal(
    (await admin.get("/openid/v1/jwks", { token: null })).status,
    403,
    "not for the anonymous user",
  );
});

describe("impersonation", needsControlPlane("users"), () => {
  test("an admin acts as another user; its groups and service accounts' groups as kube builds them", async () => {
    const as = (headers: Record<string, string | string[]>) =>
      admin.get("/api/v1/namespaces/default/secrets", { headers });
    const bob = await as({ "Impersonate-User": "bob" });
    assert.equal(bob.status, 403);
    assert.match(bob.body.message, /User "bob" cannot list resource "secrets"/);
    const sa = await admin.post(
      `${AUTHZ}/selfsubjectrulesreviews`,
      {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectRulesReview",
        spec: { namespace: "default" },
      },
      { headers: { "Impersonate-User": "system:serviceaccount:default:robot" } },
    );
    // system:serviceaccounts may read the issuer discovery documents: the account's groups were given.
    assert.ok(
      sa.body.status.nonResourceRules.some((r: { nonResourceURLs: string[] }) =>
        r.nonResourceURLs.includes("/openid/v1/jwks"),
      ),
    );
    const masters = await as({ "Impersonate-User": "eve", "Impersonate-Group": "system:masters" });
    assert.equal(masters.status, 200);
    const groupOnly = await as({ "Impersonate-Group": "devs" });
    if (versionDifference("kube <1.37 (1.26 checked): groups without a user were a plain-text 500")) {
      // kube 1.37's constrained impersonation filter answers a Status, Go's %#v of the wanted user.
      assert.equal(groupOnly.status, 400);
      assert.equal(
        groupOnly.body.message,
        'requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"devs"}, Extra:map[string][]string(nil)} without impersonating a user name',
      );
    } else {
      assert.equal(groupOnly.status, 500);
      assert.equal(
        groupOnly.text,
        'Internal Server Error: "/api/v1/namespaces/default/secrets": requested [{Group  devs    }] without impersonating a user\n',
      );
    }
  });

  test("impersonating needs the impersonate verb on each part", async () => {
    const name = unique("dan");
    const dan = await admin.as(name);
    // kube 1.37 tries constrained impersonation first (KEP 5284): for a plain user, the user-info
    // mode's `impersonate-on:user-info:<verb>` on the request itself; its refusal is the answer.
    const constrained = versionDifference(
      "kube <1.37 (1.26 checked): only legacy impersonation, refused on the impersonated user",
    );
    const denied = await dan.get("/api", { headers: { "Impersonate-User": "root" } });
    assert.equal(denied.status, 403);
    assert.equal(
      denied.body.message,
      constrained
        ? `forbidden: User "${name}" cannot impersonate-on:user-info:get path "/api"`
        : `users "root" is forbidden: User "${name}" cannot impersonate resource "users" in API group "" at the cluster scope`,
    );
    const role = unique("impersonator");
    for (const [path, body] of [
      [
        `${RBAC}/clusterroles`,
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRole",
          metadata: { name: role },
          rules: [{ apiGroups: [""], resources: ["users"], verbs: ["impersonate"], resourceNames: ["root"] }],
        },
      ],
      [
        `${RBAC}/clusterrolebindings`,
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRoleBinding",
          metadata: { name: role },
          subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name }],
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
        },
      ],
    ] as const) {
      assert.equal((await admin.post(path, body)).status, 201);
    }
    await eventually(
      "impersonating root to be allowed",
      async () => (await dan.get("/api", { headers: { "Impersonate-User": "root" } })).status === 200,
    );
    const withGroup = await dan.get("/api", {
      headers: { "Impersonate-User": "root", "Impersonate-Group": "system:masters" },
    });
    // The mode that last worked for dan (legacy, above) is tried first, so its refusal is reported.
    assert.equal(withGroup.status, 403);
    assert.match(
      withGroup.body.message,
      /^groups "system:masters" is forbidden: User "[^"]+" cannot impersonate resource "groups"/,
    );
  });
});
