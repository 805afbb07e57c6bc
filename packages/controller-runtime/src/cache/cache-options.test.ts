import assert from "node:assert/strict";
import { test } from "node:test";
import { kinds } from "../api/index.js";
import { bothSelectorsFor, resolveCacheOptions } from "./cache-options.js";
import { ALL_OTHER_NAMESPACES, namespacesOf } from "./namespaces.js";

type GVK = { group: string; version: string; kind: string };

test("a kind's informer selects by its own selector, the user's selectorFor and the ring's together", () => {
  const user = (kind: { kind: string }) => (kind.kind === "ConfigMap" ? "team=a" : undefined);
  const ring = (kind: { kind: string }) => (kind.kind !== "Secret" ? "shard=r1" : undefined);
  const opts = resolveCacheOptions({
    byObject: [{ kind: kinds.ConfigMap, labelSelector: "app=web" }],
    selectorFor: bothSelectorsFor(ring, user),
  });
  const selected = (k: GVK) =>
    String(opts.forKind({ group: k.group, version: k.version, kind: k.kind }).labelSelector ?? "");
  assert.equal(selected(kinds.ConfigMap), "app=web,shard=r1,team=a");
  assert.equal(selected(kinds.Pod), "shard=r1");
  assert.equal(selected(kinds.Secret), "");
  assert.equal(bothSelectorsFor(undefined, user), user);
  assert.equal(bothSelectorsFor(ring, undefined), ring);
});

// controller-runtime's defaulting_test.go, case by case: a namespace's settings come from its own
// entry, then the kind's byObject entry, then the cache's entry of the namespace, then the
// cache's defaults.
const labels = (o: { labelSelector?: unknown }) => String(o.labelSelector ?? "");
const podIn = (opts: Parameters<typeof resolveCacheOptions>[0]) =>
  resolveCacheOptions(opts).forKind(kinds.Pod);

test("byObject namespaces default from the kind's entry before the cache's namespace entry", () => {
  const pod = podIn({
    byObject: [{ kind: kinds.Pod, namespaces: { default: {} }, labelSelector: "from=by-object" }],
    defaultNamespaces: { default: { labelSelector: "from=default-namespaces" } },
    defaultLabelSelector: "from=default-label-selector",
  });
  assert.deepEqual(Object.keys(pod.namespaces), ["default"]);
  assert.equal(labels(pod.namespaces.default), "from=by-object");
});

test("byObject namespaces default from the cache's namespace entry, then from the cache's defaults", () => {
  const fromNamespace = podIn({
    byObject: [{ kind: kinds.Pod, namespaces: { default: {} } }],
    defaultNamespaces: { default: { labelSelector: "from=default-namespaces" } },
    defaultLabelSelector: "from=default-label-selector",
  });
  assert.equal(labels(fromNamespace.namespaces.default), "from=default-namespaces");
  const fromDefaults = podIn({
    byObject: [{ kind: kinds.Pod, namespaces: { default: {} } }],
    defaultLabelSelector: "from=default-label-selector",
  });
  assert.equal(labels(fromDefaults.namespaces.default), "from=default-label-selector");
});

test("a byObject entry without namespaces takes the cache's, with its own settings under theirs", () => {
  const copied = podIn({
    byObject: [{ kind: kinds.Pod }],
    defaultNamespaces: { default: { labelSelector: "from=default-namespaces" } },
  });
  assert.equal(labels(copied.namespaces.default), "from=default-namespaces");
  const own = podIn({
    byObject: [{ kind: kinds.Pod, labelSelector: "from=pod" }],
    defaultNamespaces: { default: {} },
  });
  assert.equal(labels(own.namespaces.default), "from=pod");
  // An empty map (or list) is all namespaces, whatever the cache's.
  const all = podIn({ byObject: [{ kind: kinds.Pod, namespaces: {} }], defaultNamespaces: ["default"] });
  assert.deepEqual(all.namespaces, {});
});

test("a namespace entry's own selector is kept, an everything selector included; lists are maps of empty entries", () => {
  const pod = podIn({
    defaultNamespaces: { default: { labelSelector: "" }, other: {} },
    defaultLabelSelector: "from=default-label-selector",
    syncPeriodMs: 5_000,
  });
  assert.equal(labels(pod.namespaces.default), "");
  assert.equal(labels(pod.namespaces.other), "from=default-label-selector");
  assert.equal(pod.namespaces.other.syncPeriodMs, 5_000);
  const listed = podIn({ defaultNamespaces: ["a", "b"], defaultFieldSelector: "spec.nodeName=n" });
  assert.deepEqual(Object.keys(listed.namespaces), ["a", "b"]);
  assert.equal(String(listed.namespaces.a.fieldSelector), "spec.nodeName=n");
});

test("namespaces set for a cluster-scoped kind are refused, naming the kind", () => {
  assert.throws(() => resolveCacheOptions({ byObject: [{ kind: kinds.Namespace, namespaces: ["a"] }] }), {
    name: "TypeError",
    message: /Namespace \(v1\) is cluster-scoped.*namespaces/,
  });
});

test("namespacesOf names the namespaces watched, or none when all are", () => {
  assert.deepEqual(namespacesOf(undefined), []);
  assert.deepEqual(namespacesOf(["a", "b"]), ["a", "b"]);
  assert.deepEqual(namespacesOf({ a: {}, b: { labelSelector: "x=y" } }), ["a", "b"]);
  assert.deepEqual(namespacesOf({ a: {}, [ALL_OTHER_NAMESPACES]: {} }), []);
});
