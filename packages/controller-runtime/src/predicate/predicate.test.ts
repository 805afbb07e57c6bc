import assert from "node:assert/strict";
import { test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { parseLabelSelector } from "../api/index.js";
import {
  and,
  annotationChanged,
  funcs,
  generationChanged,
  labelChanged,
  labelSelector,
  newPredicateFuncs,
  not,
  or,
  resourceVersionChanged,
} from "./index.js";

function obj(meta: Record<string, unknown>): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "ns", ...meta } };
}

test("generationChanged drops status-only updates and passes spec changes, creates, deletes and generic events", () => {
  const p = generationChanged();
  assert.equal(p.update({ objectOld: obj({ generation: 1 }), objectNew: obj({ generation: 1 }) }), false);
  assert.equal(p.update({ objectOld: obj({ generation: 1 }), objectNew: obj({ generation: 2 }) }), true);
  assert.equal(p.create({ object: obj({}) }), true);
  assert.equal(p.delete({ object: obj({}), deleteStateUnknown: false }), true);
  assert.equal(p.generic({}), true);
});

test("resourceVersionChanged drops resyncs", () => {
  const p = resourceVersionChanged();
  const o = obj({ resourceVersion: "5" });
  assert.equal(p.update({ objectOld: o, objectNew: o }), false);
  assert.equal(p.update({ objectOld: o, objectNew: obj({ resourceVersion: "6" }) }), true);
});

test("labelChanged and annotationChanged compare the maps, treating absent as empty", () => {
  const l = labelChanged();
  assert.equal(l.update({ objectOld: obj({}), objectNew: obj({ labels: {} }) }), false);
  assert.equal(
    l.update({ objectOld: obj({ labels: { a: "1" } }), objectNew: obj({ labels: { a: "1" } }) }),
    false,
  );
  assert.equal(
    l.update({ objectOld: obj({ labels: { a: "1" } }), objectNew: obj({ labels: { a: "2" } }) }),
    true,
  );
  assert.equal(
    l.update({ objectOld: obj({ labels: { a: "1" } }), objectNew: obj({ labels: { b: "1" } }) }),
    true,
  );
  const a = annotationChanged();
  assert.equal(a.update({ objectOld: obj({}), objectNew: obj({ annotations: { x: "y" } }) }), true);
  assert.equal(
    a.update({ objectOld: obj({ annotations: { x: "y" } }), objectNew: obj({ annotations: { x: "y" } }) }),
    false,
  );
});

test("labelSelector filters every event by the object's labels; an object-less generic event passes", () => {
  const p = labelSelector(parseLabelSelector("app=web"));
  assert.equal(p.create({ object: obj({ labels: { app: "web" } }) }), true);
  assert.equal(p.create({ object: obj({ labels: { app: "db" } }) }), false);
  assert.equal(p.update({ objectOld: obj({ labels: { app: "web" } }), objectNew: obj({}) }), false);
  assert.equal(p.delete({ object: obj({ labels: { app: "web" } }), deleteStateUnknown: true }), true);
  assert.equal(p.generic({ object: obj({}) }), false);
  assert.equal(p.generic({}), true);
});

test("funcs passes what it does not define; and, or, not combine", () => {
  const onlyCreates = funcs({ update: () => false, delete: () => false, generic: () => false });
  assert.equal(onlyCreates.create({ object: obj({}) }), true);
  assert.equal(onlyCreates.update({ objectOld: obj({}), objectNew: obj({}) }), false);
  const named = (n: string) => newPredicateFuncs((o) => o.metadata?.name === n);
  const e = { object: obj({}) }; // name "a"
  assert.equal(and(named("a"), named("b")).create(e), false);
  assert.equal(or(named("a"), named("b")).create(e), true);
  assert.equal(not(named("a")).create(e), false);
  assert.equal(and().create(e), true);
  assert.equal(or().create(e), false);
});
