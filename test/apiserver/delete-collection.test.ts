// deletecollection as kube-apiserver serves it: the query selects a list as a LIST's query does
// (resourceVersion, resourceVersionMatch, limit, selectors, each checked as a list's), and each
// item is deleted with the request's DeleteOptions, preconditions included, in the list's order,
// up to the first failure. The answer is the list as selected.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, configMap, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

/** A namespace holding ConfigMaps a, b, c (labelled by name); answers their resourceVersions. */
async function threeMaps(): Promise<{ ns: string; path: string; rvs: string[]; uids: string[] }> {
  const ns = await api.namespace("dc");
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const rvs: string[] = [];
  const uids: string[] = [];
  for (const name of ["a", "b", "c"]) {
    const r = await api.post(path, configMap(name, {}, { name }));
    assert.equal(r.status, 201, r.text);
    rvs.push(r.body.metadata.resourceVersion);
    uids.push(r.body.metadata.uid);
  }
  return { ns, path, rvs, uids };
}

async function names(path: string): Promise<string[]> {
  const r = await api.get(path);
  return r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
}

describe("deletecollection", () => {
  test("resourceVersion=0 is also each item's precondition, which none meets: 409, nothing deleted", async () => {
    const { path, rvs } = await threeMaps();
    const r = await api.delete(`${path}?resourceVersion=0`);
    assert.equal(r.status, 409, r.text);
    assert.equal(r.body.reason, "Conflict");
    assert.equal(
      r.body.message,
      `Operation cannot be fulfilled on ConfigMap "a": the ResourceVersion in the precondition (0) does not match the ResourceVersion in record (${rvs[0]}). The object might have been modified`,
    );
    assert.deepEqual(r.body.details, { name: "a", kind: "ConfigMap" });
    assert.deepEqual(await names(path), ["a", "b", "c"]);
    // uid in the query is a precondition too.
    const uid = await api.delete(`${path}?uid=00000000-0000-0000-0000-000000000000`);
    assert.equal(uid.status, 409, uid.text);
    assert.deepEqual(await names(path), ["a", "b", "c"]);
  });

  test("the answer lists the items as they were before the deletion", async () => {
    const { path, rvs } = await threeMaps();
    const r = await api.delete(path);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.items.map((i: { metadata: { resourceVersion: string } }) => i.metadata.resourceVersion),
      rvs,
    );
    assert.equal(r.body.items[0].metadata.deletionTimestamp, undefined);
    assert.ok(Number(r.body.metadata.resourceVersion) >= Number(rvs[2]));
  });

  test("a precondition every item fails deletes nothing: 409 on the first", async () => {
    const { path, uids } = await threeMaps();
    const r = await api.delete(path, { preconditions: { uid: "00000000-0000-0000-0000-000000000000" } });
    assert.equal(r.status, 409, r.text);
    assert.equal(r.body.reason, "Conflict");
    assert.equal(
      r.body.message,
      `Operation cannot be fulfilled on ConfigMap "a": the UID in the precondition (00000000-0000-0000-0000-000000000000) does not match the UID in record (${uids[0]}). The object might have been deleted and then recreated`,
    );
    assert.deepEqual(await names(path), ["a", "b", "c"]);
  });

  test("a precondition the second item fails stops there, after the first is gone", async () => {
    const { path, rvs } = await threeMaps();
    const r = await api.delete(path, { preconditions: { resourceVersion: rvs[0] } });
    assert.equal(r.status, 409, r.text);
    assert.equal(
      r.body.message,
      `Operation cannot be fulfilled on ConfigMap "b": the ResourceVersion in the precondition (${rvs[0]}) does not match the ResourceVersion in record (${rvs[1]}). The object might have been modified`,
    );
    assert.deepEqual(await names(path), ["b", "c"]);
  });

  test("resourceVersionMatch=Exact lists at that version, whose items must still be at it", async () => {
    const { path, rvs } = await threeMaps();
    // At a's version the list holds a alone, and a is unchanged since.
    const r = await api.delete(`${path}?resourceVersion=${rvs[0]}&resourceVersionMatch=Exact`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.metadata.resourceVersion, rvs[0]);
    assert.deepEqual(
      r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["a"],
    );
    assert.deepEqual(await names(path), ["b", "c"]);
  });

  test("list options are checked as a list's: 422 on ListOptions, 400 on selectors", async () => {
    const { path } = await threeMaps();
    const noRv = await api.delete(`${path}?resourceVersionMatch=NotOlderThan`);
    assert.equal(noRv.status, 422, noRv.text);
    assert.equal(
      noRv.body.message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
    const exact0 = await api.delete(`${path}?resourceVersion=0&resourceVersionMatch=Exact`);
    assert.equal(exact0.status, 422, exact0.text);
    const field = await api.delete(`${path}?fieldSelector=data.a%3Db`);
    assert.equal(field.status, 400, field.text);
    assert.equal(
      field.body.message,
      '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    const label = await api.delete(`${path}?labelSelector=a%20b`);
    assert.equal(label.status, 400, label.text);
    const limit = await api.delete(`${path}?limit=x`);
    assert.equal(limit.status, 400, limit.text);
    assert.equal(limit.body.message, 'strconv.ParseInt: parsing "x": invalid syntax');
    assert.deepEqual(await names(path), ["a", "b", "c"]);
  });

  test("selectors and limit choose what goes", async () => {
    const { path } = await threeMaps();
    const byLabel = await api.delete(`${path}?labelSelector=name%20in%20(a,c)`);
    assert.equal(byLabel.status, 200, byLabel.text);
    assert.deepEqual(await names(path), ["b"]);
    const { path: other } = await threeMaps();
    const byField = await api.delete(`${other}?fieldSelector=metadata.name%21%3Db`);
    assert.equal(byField.status, 200, byField.text);
    assert.deepEqual(await names(other), ["b"]);
    const { path: third } = await threeMaps();
    const limited = await api.delete(`${third}?limit=2`);
    assert.equal(limited.status, 200, limited.text);
    assert.equal(limited.body.items.length, 2);
    assert.ok(limited.body.metadata.continue);
    assert.deepEqual(await names(third), ["c"]);
  });

  test("dryRun answers the list and deletes nothing", async () => {
    const { path } = await threeMaps();
    const r = await api.delete(`${path}?dryRun=All`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.items.length, 3);
    const body = await api.delete(path, { dryRun: ["All"] });
    assert.equal(body.status, 200, body.text);
    assert.deepEqual(await names(path), ["a", "b", "c"]);
  });

  test("DeleteOptions are checked: 422 on DeleteOptions, 400 on a bad number", async () => {
    const { path } = await threeMaps();
    const policy = await api.delete(`${path}?propagationPolicy=Sideways`);
    assert.equal(policy.status, 422, policy.text);
    assert.equal(
      policy.body.message,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    const both = await api.delete(path, { orphanDependents: true, propagationPolicy: "Orphan" });
    assert.equal(both.status, 422, both.text);
    assert.equal(
      both.body.message,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    );
    const dry = await api.delete(`${path}?dryRun=Some`);
    assert.equal(dry.status, 422, dry.text);
    assert.equal(
      dry.body.message,
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"',
    );
    const grace = await api.delete(`${path}?gracePeriodSeconds=soon`);
    assert.equal(grace.status, 400, grace.text);
    assert.equal(grace.body.message, 'strconv.ParseInt: parsing "soon": invalid syntax');
    assert.deepEqual(await names(path), ["a", "b", "c"]);
  });

  test("a body's DeleteOptions win over the query's", async () => {
    const { path } = await threeMaps();
    // The query's dryRun is not read when a body is sent: the items go.
    const r = await api.delete(`${path}?dryRun=All`, { kind: "DeleteOptions", apiVersion: "v1" });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await names(path), []);
  });
});
