// HEAD as kube-apiserver 1.37 answers it: its go-restful routes (resources, /api, /api/v1,
// /apis/<group>/<version>, /version, the service account issuer's documents) have no HEAD and
// answer 405; the handlers outside them (/apis, /apis/<group>, health, OpenAPI) serve it; paths
// no route has are 404. A list's resourceVersion that is no uint64 is refused at once, before any
// wait for the version.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

test("HEAD: 405 on go-restful's routes, served outside them, 404 where no route is", async () => {
  const cases: [string, number][] = [
    ["/api", 405],
    ["/api/v1", 405],
    ["/api/v1/namespaces", 405],
    ["/api/v1/namespaces/default", 405],
    ["/api/v1/namespaces/default/configmaps/no-such-map", 405],
    ["/apis/apps/v1", 405],
    ["/apis/apps/v1/deployments", 405],
    ["/version", 405],
    ["/.well-known/openid-configuration", 405],
    ["/apis", 200],
    ["/apis/apps", 200],
    ["/healthz", 200],
    ["/readyz", 200],
    ["/openapi/v2", 200],
    ["/apis/nosuch.example.com/v1/things", 404],
    ["/api/v1/nosuch", 404],
  ];
  const got: [string, number][] = [];
  for (const [path] of cases) got.push([path, (await api.call("HEAD", path)).status]);
  assert.deepEqual(got, cases);
});

test("a list's resourceVersion that is no uint64 is a 400 at once", async () => {
  const started = performance.now();
  const r = await api.get("/api/v1/namespaces/default/secrets?resourceVersion=99999999999999999999");
  assert.equal(r.status, 400, r.text);
  assert.equal(
    r.body.message,
    'invalid resource version: resourceVersion: Invalid value: "99999999999999999999": strconv.ParseUint: parsing "99999999999999999999": value out of range',
  );
  // kube's wait for a version it has not reached is 3 s: this answer does not wait for it.
  assert.ok(performance.now() - started < 2_500);
});
