// The answer's form, negotiated as kube-apiserver negotiates it: go-restful's 406 for media types
// no route produces (before anything is done), kube's 406 for transforms the resource cannot give
// (a Table of a review), the object-or-list check, and Table or PartialObjectMetadata answers to
// writes as well as reads.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { unsetCreationTimestamp } from "../support/creation-timestamp.js";
import { Api, CRDS, configMap, customResourceDefinition, startTarget, type Target } from "./harness.js";

const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const PARTIAL = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io";
const PARTIAL_LIST = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io";
const SERIALIZERS = "application/json, application/yaml, application/vnd.kubernetes.protobuf";
const ONLY = `only the following media types are accepted: ${SERIALIZERS}`;

let target: Target;
let api: Api;

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

const ssar = {
  apiVersion: "authorization.k8s.io/v1",
  kind: "SelfSubjectAccessReview",
  spec: { resourceAttributes: { verb: "get", resource: "pods" } },
};

describe("content negotiation", () => {
  test("a media type no route produces: go-restful's 406, written indented, and nothing is created", async () => {
    const ns = await api.namespace("neg");
    const get = await api.get(`/api/v1/namespaces/${ns}`, { accept: "text/plain" });
    assert.equal(get.status, 406);
    assert.equal(get.body.message, `406: Not Acceptable\n\nAvailable representations: ${SERIALIZERS}`);
    assert.equal(get.body.reason, "NotAcceptable");
    assert.deepEqual(get.body.details, {});
    // No serializer fits the Status either: json.MarshalIndent's output, no newline at the end.
    assert.ok(get.text.startsWith('{\n  "kind": "Status",'), get.text);
    assert.ok(get.text.endsWith("}"));

    const list = await api.get(`/api/v1/namespaces/${ns}/configmaps`, { accept: "text/plain" });
    assert.equal(
      list.body.message,
      `406: Not Acceptable\n\nAvailable representations: ${SERIALIZERS}, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch`,
    );

    const create = await api.call("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("never"), {
      accept: "text/plain",
    });
    assert.equal(create.status, 406);
    assert.equal((await api.get(`/api/v1/namespaces/${ns}/configmaps/never`)).status, 404);

    // go-restful compares types as written: `application/*` is no route's, yet JSON encodes the error.
    const wild = await api.get(`/api/v1/namespaces/${ns}`, { accept: "application/*" });
    assert.equal(wild.status, 406);
    assert.ok(wild.text.startsWith('{"kind":"Status"') && wild.text.endsWith("}\n"), wild.text);
  });

  test("a transform kube does not know, or a Table where there is no table convertor: 406", async () => {
    const ns = await api.namespace("neg");
    for (const accept of [
      "application/json;as=Foo;v=v1;g=meta.k8s.io",
      "application/json;as=Table;v=v2;g=meta.k8s.io",
    ]) {
      const r = await api.get(`/api/v1/namespaces/${ns}`, { accept });
      assert.equal(r.status, 406, accept);
      assert.equal(r.body.message, ONLY);
      assert.equal(r.body.details, undefined);
    }
    const review = await api.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ssar, {
      accept: TABLE,
    });
    assert.equal(review.status, 406);
    assert.equal(review.body.message, ONLY);
    const token = await api.post(
      `/api/v1/namespaces/${ns}/serviceaccounts/default/token`,
      { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
      { accept: TABLE },
    );
    assert.equal(token.status, 406);
    assert.equal(token.body.message, ONLY);
    // A later entry the review can give is taken.
    const fallback = await api.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ssar, {
      accept: `${TABLE}, application/json`,
    });
    assert.equal(fallback.status, 201);
    assert.equal(fallback.body.kind, "SelfSubjectAccessReview");
  });

  test("an object asked as a list, or a list as an object: 406 naming kube's internal type", async () => {
    const one = await api.get("/api/v1/namespaces/default", { accept: PARTIAL_LIST });
    assert.equal(one.status, 406);
    assert.equal(
      one.body.message,
      "you requested PartialObjectMetadataList, but the requested object is not a list (*core.Namespace)",
    );
    const many = await api.get("/apis/apps/v1/deployments", { accept: PARTIAL });
    assert.equal(many.status, 406);
    assert.equal(
      many.body.message,
      "you requested PartialObjectMetadata, but the requested object is a list (*apps.DeploymentList)",
    );
    const role = await api.get("/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", {
      accept: PARTIAL_LIST,
    });
    assert.match(role.body.message, /not a list \(\*rbac\.ClusterRole\)$/);
    const review = await api.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ssar, {
      accept: PARTIAL_LIST,
    });
    assert.equal(review.status, 406);
    assert.match(review.body.message, /not a list \(\*authorization\.SelfSubjectAccessReview\)$/);
  });

  test("writes answer in the form asked: PartialObjectMetadata on create, a Table on patch", async () => {
    const ns = await api.namespace("neg");
    const created = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c1"), {
      accept: PARTIAL,
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.kind, "PartialObjectMetadata");
    assert.equal(created.body.apiVersion, "meta.k8s.io/v1");
    assert.equal(created.body.metadata.name, "c1");
    assert.equal(created.body.data, undefined);

    const patched = await api.call(
      "PATCH",
      `/api/v1/namespaces/${ns}/configmaps/c1`,
      { data: { a: "b" } },
      { contentType: "application/merge-patch+json", accept: TABLE },
    );
    assert.equal(patched.status, 200);
    assert.equal(patched.body.kind, "Table");
    assert.equal(patched.body.metadata.resourceVersion, patched.body.rows[0].object.metadata.resourceVersion);
    assert.equal(patched.body.rows[0].cells[0], "c1");

    const review = await api.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ssar, {
      accept: PARTIAL,
    });
    assert.equal(review.status, 201);
    assert.equal(review.body.kind, "PartialObjectMetadata");
    assert.equal(review.body.metadata.creationTimestamp, unsetCreationTimestamp().creationTimestamp);

    // A delete that removes the object answers a Status, whatever form was asked.
    const deleted = await api.call("DELETE", `/api/v1/namespaces/${ns}/configmaps/c1`, undefined, {
      accept: TABLE,
    });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.kind, "Status");
  });

  test("custom resources: kube's negotiation only; a deleted one is answered with a Status", async () => {
    const group = "negotiation.example.com";
    const crd = await api.post(CRDS, customResourceDefinition(group, { plural: "gadgets", kind: "Gadget" }));
    assert.equal(crd.status, 201, crd.text);
    const path = `/apis/${group}/v1/namespaces/default/gadgets`;
    await eventually("the CRD served", async () => (await api.get(path)).status === 200, {
      timeoutMs: 30_000,
    });
    try {
      const plain = await api.get(path, { accept: "text/plain" });
      assert.equal(plain.status, 406);
      assert.equal(plain.body.message, ONLY);

      const created = await api.post(
        path,
        {
          apiVersion: `${group}/v1`,
          kind: "Gadget",
          metadata: { name: "g1", labels: { a: "b" } },
          spec: { x: 1 },
        },
        { accept: PARTIAL },
      );
      assert.equal(created.status, 201);
      assert.equal(created.body.kind, "PartialObjectMetadata");
      // ObjectMeta's field order, not the custom resource's sorted one.
      assert.deepEqual(Object.keys(created.body.metadata).slice(0, 4), [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
      ]);

      const asList = await api.get(`${path}/g1`, { accept: PARTIAL_LIST });
      assert.equal(asList.status, 500);
      assert.equal(asList.body.message, "content is not a list");
      assert.equal(asList.body.reason, undefined);
      const asObject = await api.get(path, { accept: PARTIAL });
      assert.equal(asObject.status, 406);
      assert.match(asObject.body.message, /is a list \(\*unstructured\.UnstructuredList\)$/);

      const deleted = await api.delete(`${path}/g1`);
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.kind, "Status");
      assert.equal(deleted.body.status, "Success");
      assert.deepEqual(
        {
          name: deleted.body.details.name,
          group: deleted.body.details.group,
          kind: deleted.body.details.kind,
        },
        { name: "g1", group, kind: "gadgets" },
      );
    } finally {
      await api.delete(`${CRDS}/gadgets.${group}`);
    }
  });
});
