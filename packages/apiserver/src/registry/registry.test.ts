// The registry's answers about groups, which the router asks on every request under /apis/.
import assert from "node:assert/strict";
import { test } from "node:test";
import { builtinResources, Registry } from "./index.js";

test("servesGroup agrees with groups() as a CRD's versions come and go", () => {
  const registry = new Registry(builtinResources());
  const listed = (group: string) => registry.groups().some((g) => g.name === group);
  for (const group of ["apps", "coordination.k8s.io", "apiextensions.k8s.io", "", "nosuch.example.com"])
    assert.equal(registry.servesGroup(group), listed(group), group);
  assert.equal(registry.servesGroup("apps"), true);
  assert.equal(registry.servesGroup("nosuch.example.com"), false);

  const deployment = registry.lookup("apps", "v1", "deployments")!;
  const v1 = { ...deployment, group: "widgets.example.com", kind: "Widget", plural: "widgets", crdName: "w" };
  const v2 = { ...v1, version: "v2" };
  registry.add(v1);
  registry.add(v2);
  assert.equal(registry.servesGroup("widgets.example.com"), true);
  registry.remove(v1);
  // One version left: still served.
  assert.equal(registry.servesGroup("widgets.example.com"), true);
  assert.equal(listed("widgets.example.com"), true);
  registry.remove(v2);
  assert.equal(registry.servesGroup("widgets.example.com"), false);
  assert.equal(listed("widgets.example.com"), false);
});
