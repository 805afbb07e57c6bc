// Aggregated discovery, as client-go (kubectl, controller-runtime's mapper) asks for it first:
// `/api` and `/apis` answer an apidiscovery.k8s.io/v2 APIGroupDiscoveryList when a clause asks
// for one (v2beta1 is no longer served), with kube's ETag (the SHA-512 of the document without
// its type), 304 for a client holding it, and every resource, subresource, verb, scope and name
// the legacy documents list. CRDs appear, change and go as they do. Legacy discovery is
// negotiated too: protobuf, go-restful's 406 where go-restful serves, kube-aggregator's order.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { decodeProtobuf } from "controller-runtime/protobuf";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

const V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
/** client-go's discovery Accept (selectDiscoveryAcceptHeader with NoPeerDiscovery). */
const CLIENT_GO = `${V2};profile=nopeer,${V2},application/json`;
const PROTOBUF = "application/vnd.kubernetes.protobuf";
const GROUP = "discovered.example.com";

let target: Target;
let api: Api;

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

// biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
type Json = any;

/** kube's ETag of a document: SHA-512 (upper-case hex) of its JSON without kind and apiVersion. */
function etagOf(body: Json): string {
  const { kind: _k, apiVersion: _v, ...untyped } = body;
  return `"${createHash("sha512").update(JSON.stringify(untyped)).digest("hex").toUpperCase()}"`;
}

async function getBytes(path: string, headers: Record<string, string>) {
  const all: Record<string, string> = { ...headers };
  if (target.token) all.authorization = `Bearer ${target.token}`;
  const res = await fetch(`${target.url}${path}`, {
    headers: all,
    dispatcher: target.agent,
  } as unknown as RequestInit);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function aggregated(path: "/api" | "/apis"): Promise<Json> {
  const r = await api.get(path, { accept: CLIENT_GO });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get("content-type"), V2);
  return r.body;
}

const groupOf = (doc: Json, name: string) => doc.items.find((g: Json) => (g.metadata.name ?? "") === name);

describe("aggregated discovery", () => {
  test("/api and /apis: the whole tree in one document, with kube's ETag, caching headers and 304", async () => {
    for (const path of ["/api", "/apis"] as const) {
      const r = await api.get(path, { accept: CLIENT_GO });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.get("content-type"), V2);
      assert.equal(r.body.kind, "APIGroupDiscoveryList");
      assert.equal(r.body.apiVersion, "apidiscovery.k8s.io/v2");
      assert.deepEqual(r.body.metadata, {});
      const etag = r.headers.get("etag");
      assert.equal(etag, etagOf(r.body), path);
      assert.equal(r.headers.get("cache-control"), "public");
      assert.equal(r.headers.get("vary"), "Accept");
      const cached = await getBytes(path, { accept: V2, "if-none-match": etag ?? "" });
      assert.equal(cached.status, 304, path);
      assert.equal(cached.bytes.length, 0);
      assert.equal(cached.headers.get("etag"), etag);
      // The same document in protobuf, and the same ETag for it.
      const pb = await getBytes(path, {
        accept: `${PROTOBUF};g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`,
      });
      assert.equal(
        pb.headers.get("content-type"),
        `${PROTOBUF};g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`,
      );
      assert.equal(pb.headers.get("etag"), etag);
      assert.deepEqual(decodeProtobuf(pb.bytes, { apiVersion: "", kind: "" }), r.body, path);
    }
    const core = await aggregated("/api");
    assert.equal(core.items.length, 1);
    assert.deepEqual(core.items[0].metadata, {});
    const v1 = core.items[0].versions[0];
    assert.equal(v1.version, "v1");
    assert.equal(v1.freshness, "Current");
    const pods = v1.resources.find((r: Json) => r.resource === "pods");
    assert.deepEqual(
      {
        responseKind: pods.responseKind,
        scope: pods.scope,
        singularResource: pods.singularResource,
        shortNames: pods.shortNames,
        categories: pods.categories,
      },
      {
        responseKind: { group: "", version: "", kind: "Pod" },
        scope: "Namespaced",
        singularResource: "pod",
        shortNames: ["po"],
        categories: ["all"],
      },
    );
    const eviction = pods.subresources.find((s: Json) => s.subresource === "eviction");
    assert.deepEqual(eviction, {
      subresource: "eviction",
      responseKind: { group: "policy", version: "v1", kind: "Eviction" },
      verbs: ["create"],
    });
  });

  test("every resource and subresource the legacy documents list, with its verbs, kind, scope and names", async () => {
    for (const path of ["/api", "/apis"] as const) {
      const doc = await aggregated(path);
      for (const group of doc.items) {
        const name = group.metadata.name ?? "";
        for (const version of group.versions) {
          const gv = name ? `/apis/${name}/${version.version}` : `/api/${version.version}`;
          const legacy = await api.get(gv);
          assert.equal(legacy.status, 200, gv);
          for (const r of legacy.body.resources) {
            const [resource, subresource] = r.name.split("/");
            const entry = version.resources.find((x: Json) => x.resource === resource);
            assert.ok(entry, `${gv} ${r.name}`);
            const kind = { group: r.group ?? "", version: r.version ?? "", kind: r.kind };
            if (!subresource) {
              assert.equal(entry.scope, r.namespaced ? "Namespaced" : "Cluster", `${gv} ${r.name}`);
              assert.equal(entry.singularResource, r.singularName, `${gv} ${r.name}`);
              assert.deepEqual(entry.verbs, r.verbs, `${gv} ${r.name}`);
              assert.deepEqual(entry.shortNames, r.shortNames, `${gv} ${r.name}`);
              assert.deepEqual(entry.categories, r.categories, `${gv} ${r.name}`);
              if (!kind.group) assert.deepEqual(entry.responseKind.kind, r.kind, `${gv} ${r.name}`);
              continue;
            }
            const sub = entry.subresources?.find((x: Json) => x.subresource === subresource);
            assert.ok(sub, `${gv} ${r.name}`);
            assert.deepEqual(sub.verbs, r.verbs, `${gv} ${r.name}`);
            assert.deepEqual(sub.responseKind, kind, `${gv} ${r.name}`);
          }
          assert.equal(
            version.resources.length,
            new Set(legacy.body.resources.map((r: Json) => r.name.split("/")[0])).size,
            gv,
          );
        }
      }
    }
  });

  test("groups in kube-aggregator's order, in both documents", async () => {
    const doc = await aggregated("/apis");
    const names = doc.items.map((g: Json) => g.metadata.name);
    assert.deepEqual(names.slice(0, 3), ["apiregistration.k8s.io", "apps", "events.k8s.io"]);
    const legacy = await api.get("/apis");
    assert.deepEqual(
      legacy.body.groups.map((g: Json) => g.name),
      names,
    );
    const autoscaling = groupOf(doc, "autoscaling");
    assert.deepEqual(
      autoscaling.versions.map((v: Json) => v.version),
      ["v2", "v1"],
    );
  });

  test("a CRD's group appears with its versions, resources and subresources, changes, and goes", async () => {
    const versions = ["v1", "v1beta1"].map((name) => ({
      name,
      served: true,
      storage: name === "v1",
      schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      subresources:
        name === "v1"
          ? {
              status: {},
              scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
            }
          : undefined,
    }));
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `gadgets.${GROUP}` },
      spec: {
        group: GROUP,
        names: {
          plural: "gadgets",
          singular: "gadget",
          kind: "Gadget",
          shortNames: ["gd"],
          categories: ["stuff"],
        },
        scope: "Cluster",
        versions,
      },
    };
    const created = await api.post(CRDS, crd);
    assert.equal(created.status, 201, created.text);
    try {
      const group = await eventually(
        "the CRD's group in aggregated discovery",
        async () => {
          const g = groupOf(await aggregated("/apis"), GROUP);
          return g?.versions.length === 2 ? g : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      assert.deepEqual(
        group.versions.map((v: Json) => [v.version, v.freshness]),
        [
          ["v1", "Current"],
          ["v1beta1", "Current"],
        ],
      );
      assert.deepEqual(group.versions[0].resources, [
        {
          resource: "gadgets",
          responseKind: { group: GROUP, version: "v1", kind: "Gadget" },
          scope: "Cluster",
          singularResource: "gadget",
          verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
          shortNames: ["gd"],
          categories: ["stuff"],
          subresources: [
            {
              subresource: "status",
              responseKind: { group: GROUP, version: "v1", kind: "Gadget" },
              verbs: ["get", "patch", "update"],
            },
            {
              subresource: "scale",
              responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
              verbs: ["get", "patch", "update"],
            },
          ],
        },
      ]);
      assert.equal(group.versions[1].resources[0].subresources, undefined);
      // CRD groups come after every built-in one (priority 1000).
      const names = (await aggregated("/apis")).items.map((g: Json) => g.metadata.name);
      assert.ok(names.indexOf(GROUP) > names.indexOf("storagemigration.k8s.io"));

      const before = (await api.get("/apis", { accept: CLIENT_GO })).headers.get("etag");
      const current = await api.get(`${CRDS}/gadgets.${GROUP}`);
      current.body.spec.versions[1].served = false;
      current.body.spec.names.shortNames = ["gd", "gdg"];
      const updated = await api.put(`${CRDS}/gadgets.${GROUP}`, current.body);
      assert.equal(updated.status, 200, updated.text);
      await eventually(
        "the CRD's change in aggregated discovery",
        async () => {
          const g = groupOf(await aggregated("/apis"), GROUP);
          return g?.versions.length === 1 && g.versions[0].resources[0].shortNames.length === 2;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      assert.notEqual((await api.get("/apis", { accept: CLIENT_GO })).headers.get("etag"), before);
    } finally {
      await api.delete(`${CRDS}/gadgets.${GROUP}`);
    }
    await eventually(
      "the CRD's group gone from aggregated discovery",
      async () => groupOf(await aggregated("/apis"), GROUP) === undefined,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  });

  test("v2beta1 is no longer served; the nopeer profile is v2's document", async () => {
    const beta = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
    const legacy = await api.get("/apis", { accept: `${beta},application/json` });
    assert.equal(legacy.headers.get("content-type"), "application/json");
    assert.equal(legacy.body.kind, "APIGroupList");
    const refused = await api.get("/api", { accept: beta });
    assert.equal(refused.status, 406);
    assert.equal(
      refused.body.message,
      "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    );
    const nopeer = await api.get("/apis", { accept: `${V2};profile=nopeer` });
    assert.equal(nopeer.body.kind, "APIGroupDiscoveryList");
  });
});

describe("legacy discovery, negotiated", () => {
  test("in protobuf when that comes first, the core documents without an apiVersion included", async () => {
    for (const path of ["/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1"]) {
      const pb = await getBytes(path, { accept: `${PROTOBUF}, */*` });
      assert.equal(pb.headers.get("content-type"), PROTOBUF, path);
      const decoded = decodeProtobuf(pb.bytes, { apiVersion: "", kind: "" });
      const json = await api.get(path);
      // kube's envelope names no apiVersion for these either; JSON leaves it out.
      if (decoded.apiVersion === "") delete decoded.apiVersion;
      // The address a client reached the server by may differ between two requests' views.
      delete decoded.serverAddressByClientCIDRs;
      delete json.body.serverAddressByClientCIDRs;
      assert.deepEqual(decoded, json.body, path);
    }
  });

  test("go-restful's 406 where go-restful serves (/api, /api/v1, a built-in group version), kube's elsewhere", async () => {
    for (const path of ["/api", "/api/v1", "/apis/apps/v1"]) {
      const r = await api.get(path, { accept: "text/plain" });
      assert.equal(r.status, 406, path);
      assert.match(
        r.body.message,
        /^406: Not Acceptable\n\nAvailable representations: application\/json, /,
        path,
      );
    }
    for (const path of ["/apis", "/apis/apps"]) {
      const r = await api.get(path, { accept: "text/plain" });
      assert.equal(r.status, 406, path);
      assert.match(r.body.message, /^only the following media types are accepted: /, path);
    }
  });
});
