import assert from "node:assert/strict";
import { test } from "node:test";
import { kinds } from "../api/index.js";
import { bothSelectorsFor, resolveCacheOptions } from "./cache-options.js";

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
