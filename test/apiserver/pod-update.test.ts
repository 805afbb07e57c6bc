// A Pod's spec is fixed once created, but for what kube lets an update change (ValidatePodUpdate):
// container images, activeDeadlineSeconds, added tolerations. A change of resources is refused
// (that is the resize subresource's), which also keeps quota usage charged on create right.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("pod-update");
});
after(() => target.close());

test("a Pod's image may change through an update, its resources may not", async () => {
  const path = `/api/v1/namespaces/${ns}/pods`;
  const created = await api.post(path, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: { containers: [{ name: "c", image: "x", resources: { requests: { cpu: "100m" } } }] },
  });
  assert.equal(created.status, 201, created.text);
  const pod = created.body;
  pod.spec.containers[0].image = "y";
  pod.spec.activeDeadlineSeconds = 600;
  const newImage = await api.put(`${path}/p`, pod);
  assert.equal(newImage.status, 200, newImage.text);
  assert.equal(newImage.body.spec.containers[0].image, "y");

  const resized = newImage.body;
  resized.spec.containers[0].resources.requests.cpu = "200m";
  const refused = await api.put(`${path}/p`, resized);
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.body.reason, "Invalid");
  assert.equal(refused.body.details.causes.length, 1);
  assert.equal(refused.body.details.causes[0].field, "spec");
  assert.equal(refused.body.details.causes[0].reason, "FieldValueForbidden");
  assert.ok(
    refused.body.message.startsWith(
      'Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n',
    ),
    refused.body.message,
  );
});
