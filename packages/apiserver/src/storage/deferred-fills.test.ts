// Fills deferred to the storage's first use: nothing is written before, a read of a store a fill
// names runs that fill alone, any other use runs all that are left, in order, and a fill that
// touches a store it may not fails at once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Storage } from "./store.js";

const RBAC = "rbac.authorization.k8s.io/clusterroles";
const obj = (name: string) => ({ kind: "Thing", apiVersion: "v1", metadata: { name } });

function filled(): { storage: Storage; ran: string[] } {
  const storage = new Storage();
  const ran: string[] = [];
  storage.fillOnFirstUse(() => {
    ran.push("system");
    storage.put("/namespaces", obj("default"));
  });
  storage.fillOnFirstUse(() => {
    ran.push("policy");
    storage.put(RBAC, obj("cluster-admin"));
  }, [RBAC]);
  return { storage, ran };
}

test("a read of a store a fill names runs that fill alone; the next other use runs the rest", () => {
  const { storage, ran } = filled();
  assert.deepEqual(ran, [], "nothing before the first use");
  assert.equal(storage.get(RBAC, "cluster-admin")?.name, "cluster-admin");
  assert.deepEqual(ran, ["policy"]);
  assert.equal(storage.list(RBAC).length, 1, "the policy's store, read again, runs nothing more");
  assert.deepEqual(ran, ["policy"]);
  assert.equal(storage.list("/namespaces").length, 1);
  assert.deepEqual(ran, ["policy", "system"]);
  assert.equal(storage.resourceVersion, 3);
});

test("a write, or the storage's resourceVersion, runs every fill in the order added", () => {
  const { storage, ran } = filled();
  assert.equal(storage.resourceVersion, 3, "both fills' writes counted");
  assert.deepEqual(ran, ["system", "policy"]);
  const other = filled();
  other.storage.put("/configmaps", obj("mine"));
  assert.deepEqual(other.ran, ["system", "policy"]);
  assert.equal(other.storage.get("/configmaps", "mine")?.rv, 4, "the first write comes after the fills'");
  const viewed = filled();
  assert.equal(
    viewed.storage.view("/namespaces", undefined)?.rv,
    3,
    "a view shows the storage after its fills",
  );
});

test("a fill naming its object runs on a get of that object or a list of its store, not a get of another", () => {
  const storage = new Storage();
  const ran: string[] = [];
  for (const name of ["a", "b"]) {
    storage.fillOnFirstUse(
      () => {
        ran.push(name);
        storage.put(RBAC, obj(name));
      },
      [RBAC],
      name,
    );
  }
  assert.equal(storage.get(RBAC, "b")?.name, "b");
  assert.equal(storage.get(RBAC, "c"), undefined);
  assert.deepEqual(ran, ["b"]);
  assert.deepEqual(
    storage.list(RBAC).map((o) => o.name),
    ["a", "b"],
  );
  assert.deepEqual(ran, ["b", "a"]);
});

test("a fill touching a store it may not is an internal error", () => {
  const storage = new Storage();
  storage.fillOnFirstUse(() => storage.put("/namespaces", obj("default")), [RBAC]);
  assert.throws(() => storage.list(RBAC), /internal error: a deferred storage fill used \/namespaces/);
  const unnamed = new Storage();
  unnamed.fillOnFirstUse(() => unnamed.put(RBAC, obj("x")));
  unnamed.fillOnFirstUse(() => {}, [RBAC]);
  assert.throws(() => unnamed.resourceVersion, /used rbac.authorization.k8s.io\/clusterroles/);
});
