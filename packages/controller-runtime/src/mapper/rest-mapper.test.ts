// The RESTMapper against the embedded API server's discovery documents.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { kinds } from "../api/index.js";
import { newRESTClient, type RawRequestOptions, type RESTClient, resourceOf } from "../rest/index.js";
import type { DiscoveryClient } from "./discovery.js";
import { isNoMatchError, NoKindMatchError, NoResourceMatchError } from "./errors.js";
import { newRESTMapper } from "./rest-mapper.js";
import type { RESTConfig } from "../rest/index.js";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { installCRDs } from "../envtest/index.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const env = testEnvironment();
let config: RESTConfig;
let client: RESTClient;
before(async () => {
  config = await env.start();
  client = newRESTClient(config);
});
after(async () => {
  await client?.close();
  await env.stop();
});

/** The real client, with the discovery paths it was asked for written down. */
function counting(): DiscoveryClient & { paths: string[] } {
  const paths: string[] = [];
  return {
    paths,
    request<T>(opts: RawRequestOptions): Promise<T> {
      paths.push(opts.path);
      return client.request<T>(opts);
    },
  };
}

function widgetCrd(
  group: string,
  kind: string,
  plural: string,
  versions: { name: string; storage: boolean }[],
) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: versions.map((v) => ({
        name: v.name,
        served: true,
        storage: v.storage,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      })),
    },
  };
}

const _crds = resourceOf(kinds.CustomResourceDefinition);

test("maps built-in kinds to their resource and scope", async () => {
  const mapper = newRESTMapper(client);
  assert.deepEqual(await mapper.restMapping({ group: "apps", kind: "Deployment" }), {
    gvk: { group: "apps", version: "v1", kind: "Deployment" },
    resource: { group: "apps", version: "v1", resource: "deployments" },
    namespaced: true,
  });
  const ns = await mapper.restMapping({ group: "", kind: "Namespace" }, "v1");
  assert.deepEqual(ns.resource, { group: "", version: "v1", resource: "namespaces" });
  assert.equal(ns.namespaced, false);
  assert.equal(await mapper.isNamespaced({ group: "", version: "v1", kind: "Pod" }), true);
  assert.equal(
    await mapper.isNamespaced({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole" }),
    false,
  );
  const lease = await mapper.restMapping({ group: "coordination.k8s.io", kind: "Lease" });
  assert.equal(lease.resource.resource, "leases");
});

test("the same kind in two groups maps by group", async () => {
  const mapper = newRESTMapper(client);
  const core = await mapper.restMapping({ group: "", kind: "Event" });
  const events = await mapper.restMapping({ group: "events.k8s.io", kind: "Event" });
  assert.deepEqual(core.resource, { group: "", version: "v1", resource: "events" });
  assert.deepEqual(events.resource, { group: "events.k8s.io", version: "v1", resource: "events" });
});

test("subresources are never mapped", async () => {
  const mapper = newRESTMapper(client);
  assert.equal((await mapper.restMapping({ group: "", kind: "Pod" })).resource.resource, "pods");
  const scale = await mapper.restMappings({ group: "apps", kind: "Scale" }).catch((e: unknown) => e);
  assert.ok(scale instanceof NoKindMatchError, "Scale is only served as deployments/scale");
});

test("kindFor and resourceFor accept plural, singular and lower-case kind", async () => {
  const mapper = newRESTMapper(client);
  for (const resource of ["deployments", "deployment", "Deployment"]) {
    assert.deepEqual(await mapper.kindFor({ group: "apps", resource }), {
      group: "apps",
      version: "v1",
      kind: "Deployment",
    });
  }
  assert.deepEqual(await mapper.resourceFor({ group: "", resource: "configmap" }), {
    group: "",
    version: "v1",
    resource: "configmaps",
  });
  await assert.rejects(mapper.kindFor({ group: "apps", resource: "gizmos" }), NoResourceMatchError);
});

test("reads a group once and then answers from the cache", async () => {
  const d = counting();
  const mapper = newRESTMapper(d);
  await mapper.restMapping({ group: "apps", kind: "Deployment" });
  await mapper.restMapping({ group: "apps", kind: "StatefulSet" });
  await mapper.resourceFor({ group: "apps", resource: "daemonsets" });
  assert.deepEqual(d.paths, ["/apis/apps", "/apis/apps/v1"]);
  await mapper.restMapping({ group: "", kind: "ConfigMap" });
  assert.deepEqual(d.paths.slice(2), ["/api", "/api/v1"]);
  mapper.reset();
  await mapper.restMapping({ group: "apps", kind: "Deployment" });
  assert.equal(d.paths.length, 6);
});

test("a kind whose CRD is installed after start is found after one refresh", async () => {
  const d = counting();
  const mapper = newRESTMapper(d);
  const gk = { group: "late.example.com", kind: "Gadget" };
  const before = await mapper.restMapping(gk).catch((e: unknown) => e);
  assert.ok(before instanceof NoKindMatchError);
  const miss = d.paths.length;
  assert.deepEqual(d.paths, ["/apis/late.example.com"], "an unknown group costs one request");

  // Served once Established (kube-apiserver takes a moment): envtest's installCRDs waits.
  await installCRDs(config, [
    widgetCrd("late.example.com", "Gadget", "gadgets", [
      { name: "v1", storage: true },
    ]) as CustomResourceDefinition,
  ]);
  const found = await mapper.restMapping(gk);
  assert.deepEqual(found, {
    gvk: { group: "late.example.com", version: "v1", kind: "Gadget" },
    resource: { group: "late.example.com", version: "v1", resource: "gadgets" },
    namespaced: true,
  });
  assert.deepEqual(d.paths.slice(miss), ["/apis/late.example.com", "/apis/late.example.com/v1"]);
  await mapper.restMapping(gk);
  assert.equal(d.paths.length, miss + 2, "found kinds are cached");
});

test("a second CRD in an already-read group is found on a miss", async () => {
  // Served once Established (kube-apiserver takes a moment): envtest's installCRDs waits.
  await installCRDs(config, [
    widgetCrd("pair.example.com", "First", "firsts", [
      { name: "v1", storage: true },
    ]) as CustomResourceDefinition,
  ]);
  const mapper = newRESTMapper(client);
  await mapper.restMapping({ group: "pair.example.com", kind: "First" });
  // Served once Established (kube-apiserver takes a moment): envtest's installCRDs waits.
  await installCRDs(config, [
    widgetCrd("pair.example.com", "Second", "seconds", [
      { name: "v1", storage: true },
    ]) as CustomResourceDefinition,
  ]);
  const second = await mapper.restMapping({ group: "pair.example.com", kind: "Second" });
  assert.equal(second.resource.resource, "seconds");
});

test("concurrent misses share one refresh", async () => {
  const d = counting();
  const mapper = newRESTMapper(d);
  // Served once Established (kube-apiserver takes a moment): envtest's installCRDs waits.
  await installCRDs(config, [
    widgetCrd("shared.example.com", "Thing", "things", [
      { name: "v1", storage: true },
    ]) as CustomResourceDefinition,
  ]);
  const all = await Promise.all(
    Array.from({ length: 10 }, () => mapper.restMapping({ group: "shared.example.com", kind: "Thing" })),
  );
  assert.ok(all.every((m) => m.resource.resource === "things"));
  assert.deepEqual(d.paths, ["/apis/shared.example.com", "/apis/shared.example.com/v1"]);
});

test("without a version the preferred one wins; restMappings lists every served version", async () => {
  await installCRDs(config, [
    widgetCrd("multi.example.com", "Dial", "dials", [
      { name: "v1beta1", storage: false },
      { name: "v1", storage: true },
    ]) as CustomResourceDefinition,
  ]);
  const mapper = newRESTMapper(client);
  const preferred = await mapper.restMapping({ group: "multi.example.com", kind: "Dial" });
  assert.equal(preferred.gvk.version, "v1");
  const beta = await mapper.restMapping({ group: "multi.example.com", kind: "Dial" }, "v1beta1");
  assert.equal(beta.resource.version, "v1beta1");
  const versions = (await mapper.restMappings({ group: "multi.example.com", kind: "Dial" })).map(
    (m) => m.gvk.version,
  );
  assert.deepEqual(versions, ["v1", "v1beta1"]);
});

test("NoKindMatchError names the kind and group and points at the CRD", async () => {
  const mapper = newRESTMapper(client);
  const err = await mapper
    .restMapping({ group: "nowhere.example.com", kind: "Ghost" }, "v2")
    .catch((e: unknown) => e);
  assert.ok(err instanceof NoKindMatchError);
  assert.ok(isNoMatchError(err));
  assert.equal(err.code, "ERR_NO_KIND_MATCH");
  assert.equal(err.name, "NoKindMatchError");
  assert.equal(err.group, "nowhere.example.com");
  assert.equal(err.kind, "Ghost");
  assert.deepEqual(err.searchedVersions, ["v2"]);
  assert.match(err.message, /no matches for kind "Ghost" in group "nowhere.example.com" \(version v2\)/);
  assert.match(err.message, /CustomResourceDefinition/);
  const wrongVersion = await mapper
    .restMapping({ group: "apps", kind: "Deployment" }, "v1beta1")
    .catch((e: unknown) => e);
  assert.ok(wrongVersion instanceof NoKindMatchError);
});

test("a discovery failure other than a miss is the caller's error", async () => {
  const d: DiscoveryClient = {
    request: () => Promise.reject(new Error("connection refused")),
  };
  await assert.rejects(
    newRESTMapper(d).restMapping({ group: "apps", kind: "Deployment" }),
    /connection refused/,
  );
});

test("an aborted caller stops waiting without cancelling the shared read", async () => {
  const d = counting();
  const mapper = newRESTMapper(d);
  const ac = new AbortController();
  const gk = { group: "batch", kind: "Job" };
  const abandoned = mapper.restMapping(gk, undefined, { signal: ac.signal });
  const patient = mapper.restMapping(gk);
  ac.abort(new Error("gave up"));
  await assert.rejects(abandoned, /gave up/);
  assert.equal((await patient).resource.resource, "jobs");
  assert.deepEqual(d.paths, ["/apis/batch", "/apis/batch/v1"]);
});
