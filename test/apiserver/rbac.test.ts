// RBAC over HTTP, on the run's server: who may do what with which bindings, the 403s kube words,
// the bootstrap policy, and the guard against granting what one does not hold.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { needs, needsControlPlane, versionDifference } from "../support/environment.js";
import { Api, configMap, startTarget, type Target } from "./harness.js";

let target: Target;
let admin: Api;
before(async () => {
  target = await startTarget();
  admin = new Api(target);
});
after(() => target.close());

const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const rbacGroup = "rbac.authorization.k8s.io";
let serial = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++serial}`;

function role(name: string, rules: object[], kind = "Role") {
  return { apiVersion: `${rbacGroup}/v1`, kind, metadata: { name }, rules };
}

function binding(
  name: string,
  subjects: object[],
  roleRef: { kind: string; name: string },
  kind = "RoleBinding",
) {
  return {
    apiVersion: `${rbacGroup}/v1`,
    kind,
    metadata: { name },
    subjects,
    roleRef: { apiGroup: rbacGroup, ...roleRef },
  };
}

const user = (name: string) => ({ kind: "User", apiGroup: rbacGroup, name });
const group = (name: string) => ({ kind: "Group", apiGroup: rbacGroup, name });

async function created(path: string, body: unknown, as: Api = admin) {
  const r = await as.post(path, body);
  assert.equal(r.status, 201, `${path}: ${r.text}`);
  return r.body;
}

/** Waits until `as` gets `status` for GET `path` (a real server's RBAC cache lags writes). */
async function until(as: Api, path: string, status: number) {
  return eventually(`GET ${path} to answer ${status}`, async () => {
    const r = await as.get(path);
    return r.status === status ? r : undefined;
  });
}

describe("requests a user holds no rule for", needsControlPlane("users"), () => {
  test("are 403 with kube's wording for collections, names, subresources, cluster scope and paths", async () => {
    const bob = await admin.as(unique("bob"), ["devs"]);
    const who = (await bob.get("/api/v1/namespaces/default/secrets")).body;
    assert.equal(who.code, 403);
    assert.equal(who.reason, "Forbidden");
    assert.match(
      who.message,
      /^secrets is forbidden: User "bob-[^"]+" cannot list resource "secrets" in API group "" in the namespace "default"$/,
    );
    assert.deepEqual(who.details, { kind: "secrets" });

    const named = (await bob.get("/apis/apps/v1/namespaces/default/deployments/web/status")).body;
    assert.match(
      named.message,
      /^deployments\.apps "web" is forbidden: User "[^"]+" cannot get resource "deployments\/status" in API group "apps" in the namespace "default"$/,
    );
    assert.deepEqual(named.details, { name: "web", group: "apps", kind: "deployments" });

    const nodes = (await bob.get("/api/v1/nodes")).body;
    assert.match(nodes.message, /cannot list resource "nodes" in API group "" at the cluster scope$/);
    const watch = (await bob.get("/api/v1/watch/namespaces/default/configmaps")).body;
    assert.match(watch.message, /cannot watch resource "configmaps"/);
    const byName = (await bob.get("/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dfoo"))
      .body;
    assert.match(byName.message, /^configmaps "foo" is forbidden: .* cannot list resource "configmaps"/);
    const unknown = (await bob.get("/apis/example.com/v1/namespaces/default/things")).body;
    assert.equal(
      unknown.code,
      403,
      "authorization comes before routing: an unknown resource is 403, not 404",
    );
    assert.match(unknown.message, /^things\.example\.com is forbidden/);
    const deleteAll = (await bob.delete("/api/v1/namespaces/default/pods")).body;
    assert.match(deleteAll.message, /cannot deletecollection resource "pods"/);
    const path = (await bob.get("/metrics")).body;
    assert.match(path.message, /^forbidden: User "[^"]+" cannot get path "\/metrics"$/);
    assert.deepEqual(path.details, {});
  });

  test("the bootstrap policy lets everyone authenticated discover and check health, the anonymous only health", async () => {
    const carol = await admin.as(unique("carol"));
    for (const p of ["/api", "/apis", "/api/v1", "/apis/apps/v1", "/version", "/healthz", "/openapi/v2"]) {
      assert.equal((await carol.get(p)).status, 200, p);
    }
    assert.equal((await admin.get("/readyz", { token: null })).status, 200);
    assert.equal((await admin.get("/version", { token: null })).status, 200);
    const anon = await admin.get("/api", { token: null });
    assert.equal(anon.status, 403);
    assert.equal(anon.body.message, 'forbidden: User "system:anonymous" cannot get path "/api"');
    // Everyone may ask what they may do.
    const review = await carol.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { verb: "list", resource: "pods", namespace: "default" } },
    });
    assert.equal(review.status, 201, review.text);
  });
});

describe("what bindings grant", needsControlPlane("users"), () => {
  test("a Role bound to a group grants its verbs in its namespace only", async () => {
    const ns = await admin.namespace("rbac");
    const other = await admin.namespace("rbac");
    const name = unique("dave");
    const dave = await admin.as(name, ["readers"]);
    await created(
      `${RBAC}/namespaces/${ns}/roles`,
      role("cm-reader", [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }]),
    );
    await created(
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding("readers", [group("readers")], { kind: "Role", name: "cm-reader" }),
    );
    await created(`/api/v1/namespaces/${ns}/configmaps`, configMap("c", { a: "b" }));
    await until(dave, `/api/v1/namespaces/${ns}/configmaps`, 200);
    assert.equal((await dave.get(`/api/v1/namespaces/${ns}/configmaps/c`)).status, 200);
    assert.equal((await dave.get(`/api/v1/namespaces/${other}/configmaps`)).status, 403);
    assert.equal(
      (await dave.get(`/api/v1/configmaps`)).status,
      403,
      "a Role grants nothing across namespaces",
    );
    assert.equal((await dave.delete(`/api/v1/namespaces/${ns}/configmaps/c`)).status, 403);
    assert.equal((await dave.get(`/api/v1/namespaces/${ns}/secrets`)).status, 403);
  });

  test("resourceNames, */status, and a ClusterRole bound in one namespace", async () => {
    const ns = await admin.namespace("rbac");
    const other = await admin.namespace("rbac");
    const name = unique("erin");
    const erin = await admin.as(name);
    const cr = unique("status-and-one");
    await created(
      `${RBAC}/clusterroles`,
      role(
        cr,
        [
          {
            apiGroups: [""],
            resources: ["configmaps"],
            resourceNames: ["mine"],
            verbs: ["get", "list", "update"],
          },
          { apiGroups: ["*"], resources: ["*/status"], verbs: ["get"] },
        ],
        "ClusterRole",
      ),
    );
    await created(
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding("erin", [user(name)], { kind: "ClusterRole", name: cr }),
    );
    await created(`/api/v1/namespaces/${ns}/configmaps`, configMap("mine", {}));
    await created(`/api/v1/namespaces/${ns}/configmaps`, configMap("theirs", {}));
    await until(erin, `/api/v1/namespaces/${ns}/configmaps/mine`, 200);
    assert.equal((await erin.get(`/api/v1/namespaces/${ns}/configmaps/theirs`)).status, 403);
    assert.equal(
      (await erin.get(`/api/v1/namespaces/${ns}/configmaps`)).status,
      403,
      "names do not grant the list",
    );
    // A list narrowed to the name by a field selector is authorized for that name.
    assert.equal(
      (await erin.get(`/api/v1/namespaces/${ns}/configmaps?fieldSelector=metadata.name%3Dmine`)).status,
      200,
    );
    assert.equal(
      (await erin.get(`/api/v1/namespaces/${ns}/configmaps?fieldSelector=metadata.name%3Dtheirs`)).status,
      403,
    );
    assert.equal(
      (await erin.get(`/apis/apps/v1/namespaces/${ns}/deployments/d/status`)).status,
      404,
      "allowed, then not found",
    );
    assert.equal((await erin.get(`/apis/apps/v1/namespaces/${ns}/deployments/d`)).status, 403);
    assert.equal((await erin.get(`/api/v1/namespaces/${other}/configmaps/mine`)).status, 403);
  });

  test("a ServiceAccount subject and nonResourceURLs with a trailing *", async () => {
    const ns = await admin.namespace("rbac");
    const cr = unique("paths");
    await created(
      `${RBAC}/clusterroles`,
      role(cr, [{ nonResourceURLs: ["/metrics", "/logs/*"], verbs: ["get"] }], "ClusterRole"),
    );
    await created(
      `${RBAC}/clusterrolebindings`,
      binding(
        cr,
        [{ kind: "ServiceAccount", name: "robot", namespace: ns }],
        { kind: "ClusterRole", name: cr },
        "ClusterRoleBinding",
      ),
    );
    const robot = await admin.as(`system:serviceaccount:${ns}:robot`, ["system:serviceaccounts"]);
    const status = async (p: string) => (await robot.get(p)).status;
    await eventually("the binding to take effect", async () => (await status("/logs/a/b")) !== 403);
    assert.notEqual(await status("/metrics"), 403);
    assert.equal(await status("/metrics/extra"), 403);
    assert.equal(await status("/logsx"), 403);
  });

  test("a binding to a missing role says so in the 403", async () => {
    const ns = await admin.namespace("rbac");
    const name = unique("frank");
    const frank = await admin.as(name);
    await created(
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding("dangling", [user(name)], { kind: "Role", name: "nope" }),
    );
    const r = await eventually("the reason to appear", async () => {
      const got = await frank.get(`/api/v1/namespaces/${ns}/pods`);
      return got.body?.message?.includes("RBAC:") ? got : undefined;
    });
    assert.equal(r.status, 403);
    // kube's union authorizer puts each member's name before its reason.
    const authorizer = versionDifference(
      "kube <1.37 (1.26 checked): the reason without its authorizer's name",
    )
      ? "rbac: "
      : "";
    assert.ok(
      r.body.message.endsWith(`": ${authorizer}RBAC: role.rbac.authorization.k8s.io "nope" not found`),
      r.body.message,
    );
    assert.match(r.body.message, /in the namespace "[^"]+": /);
  });
});

describe("granting", needsControlPlane("users"), () => {
  async function delegate(ns: string, rules: object[]) {
    const name = unique("gina");
    const gina = await admin.as(name, ["delegates"]);
    await created(`${RBAC}/namespaces/${ns}/roles`, role("delegate", rules));
    await created(
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding("delegate", [user(name)], { kind: "Role", name: "delegate" }),
    );
    await until(gina, `${RBAC}/namespaces/${ns}/roles`, 200);
    return { name, gina };
  }
  const manageRbac = {
    apiGroups: [rbacGroup],
    resources: ["roles", "rolebindings"],
    verbs: ["create", "list", "update"],
  };
  const readPods = { apiGroups: [""], resources: ["pods"], verbs: ["get"] };

  test("a role may grant only what its author holds", async () => {
    const ns = await admin.namespace("rbac");
    const { name, gina } = await delegate(ns, [manageRbac, readPods]);
    assert.equal((await gina.post(`${RBAC}/namespaces/${ns}/roles`, role("pods", [readPods]))).status, 201);
    const r = await gina.post(
      `${RBAC}/namespaces/${ns}/roles`,
      role("more", [
        { apiGroups: ["", "apps"], resources: ["pods", "deployments"], verbs: ["get", "delete"] },
      ]),
    );
    assert.equal(r.status, 403);
    assert.equal(
      r.body.message,
      `roles.rbac.authorization.k8s.io "more" is forbidden: user "${name}" (groups=["delegates" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n` +
        '{APIGroups:[""], Resources:["deployments"], Verbs:["get" "delete"]}\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n' +
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "delete"]}\n' +
        '{APIGroups:["apps"], Resources:["pods"], Verbs:["get" "delete"]}',
    );
    assert.deepEqual(r.body.details, { name: "more", group: rbacGroup, kind: "roles" });
  });

  test("binding a role one does not hold needs `bind` on it; a missing role is 404", async () => {
    const ns = await admin.namespace("rbac");
    const { name, gina } = await delegate(ns, [manageRbac]);
    const toAdmin = binding("me-admin", [user(name)], { kind: "ClusterRole", name: "cluster-admin" });
    const refused = await gina.post(`${RBAC}/namespaces/${ns}/rolebindings`, toAdmin);
    assert.equal(refused.status, 403);
    assert.match(
      refused.body.message,
      /is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}\n\{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}$/,
    );
    const missing = await gina.post(
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding("x", [user(name)], { kind: "Role", name: "absent" }),
    );
    assert.equal(missing.status, 404);
    // kube's store names a missing object after the request's resource (qualifiedResourceFromContext).
    assert.equal(
      missing.body.message,
      versionDifference("kube <1.37 (1.26 checked): the 404 named roles")
        ? 'rolebindings.rbac.authorization.k8s.io "absent" not found'
        : 'roles.rbac.authorization.k8s.io "absent" not found',
    );

    const binder = unique("binder");
    await created(
      `${RBAC}/namespaces/${ns}/roles`,
      role(binder, [
        {
          apiGroups: [rbacGroup],
          resources: ["clusterroles"],
          verbs: ["bind"],
          resourceNames: ["cluster-admin"],
        },
      ]),
    );
    await created(
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding(binder, [user(name)], { kind: "Role", name: binder }),
    );
    await eventually(
      "bind to take effect",
      async () => (await gina.post(`${RBAC}/namespaces/${ns}/rolebindings`, toAdmin)).status === 201,
    );
    // The binding is namespaced: cluster-admin's rules hold in that namespace only.
    await until(gina, `/api/v1/namespaces/${ns}/secrets`, 200);
    assert.equal((await gina.get("/api/v1/namespaces/default/secrets")).status, 403);
  });

  test("`escalate` lets a user write roles beyond their own rules", async () => {
    const ns = await admin.namespace("rbac");
    const { gina } = await delegate(ns, [
      manageRbac,
      { apiGroups: [rbacGroup], resources: ["roles"], verbs: ["escalate"] },
    ]);
    const r = await gina.post(
      `${RBAC}/namespaces/${ns}/roles`,
      role("big", [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }]),
    );
    assert.equal(r.status, 201, r.text);
  });
});

describe("aggregation", () => {
  test(
    "a ClusterRole with an aggregationRule gathers the rules of the roles it selects",
    needs("clusterrole-aggregation"),
    async () => {
      const label = unique("agg");
      await created(`${RBAC}/clusterroles`, {
        ...role(label, [], "ClusterRole"),
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`example.com/${label}`]: "true" } }] },
      });
      for (const [n, resource] of [
        ["b", "secrets"],
        ["a", "pods"],
      ]) {
        await created(`${RBAC}/clusterroles`, {
          ...role(
            `${label}-${n}`,
            [{ apiGroups: [""], resources: [resource], verbs: ["get"] }],
            "ClusterRole",
          ),
          metadata: { name: `${label}-${n}`, labels: { [`example.com/${label}`]: "true" } },
        });
      }
      const aggregated = await eventually("the rules to be aggregated", async () => {
        const got = (await admin.get(`${RBAC}/clusterroles/${label}`)).body;
        return got.rules?.length === 2 ? got : undefined;
      });
      assert.deepEqual(
        aggregated.rules.map((r: { resources: string[] }) => r.resources[0]),
        ["pods", "secrets"],
        "by role name",
      );
      // The bootstrap admin/edit/view roles are aggregated the same way.
      const view = (await admin.get(`${RBAC}/clusterroles/view`)).body;
      assert.ok(view.rules.some((r: { resources?: string[] }) => r.resources?.includes("configmaps")));
    },
  );
});

test("AlwaysAllow lets every authenticated user do anything", needs("server-options"), async () => {
  const { startAPIServer } = await import("controller-runtime-apiserver");
  const server = await startAPIServer({ authorization: "AlwaysAllow", users: [{ token: "t", name: "zed" }] });
  try {
    const res = await fetch(`${server.url}/api/v1/namespaces/default/secrets`, {
      headers: { authorization: "Bearer t" },
      dispatcher: new (await import("undici")).Agent({ connect: { ca: server.caPem } }),
    } as unknown as RequestInit);
    assert.equal(res.status, 200);
    const anon = await fetch(`${server.url}/api`, {
      dispatcher: new (await import("undici")).Agent({ connect: { ca: server.caPem } }),
    } as unknown as RequestInit);
    assert.equal(anon.status, 403, "the anonymous user still only reaches what RBAC gives it");
  } finally {
    await server.stop();
  }
});
