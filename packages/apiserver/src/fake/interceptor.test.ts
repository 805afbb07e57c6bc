// Interceptors on the fake client: one that fails `update` once (the retry then goes through), one
// that records every verb and calls through, and what is refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ConfigMap, Pod } from "kubernetes-types/core/v1.js";
import { type KubeObject, kinds } from "controller-runtime/api";
import { applyConfiguration, mergeFrom, retryOnConflict } from "controller-runtime/client";
import { isConflict, StatusError } from "controller-runtime/rest";
import { fakeClientBuilder, type InterceptorFuncs, newInterceptorClient } from "./index.js";
import type { DeepReadonly } from "controller-runtime/api";

const cm = (name: string, data: Record<string, string> = {}): ConfigMap => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default" },
  data,
});

function conflict(name: string): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    reason: "Conflict",
    code: 409,
    message: `Operation cannot be fulfilled on configmaps "${name}": injected`,
  });
}

test("an interceptor that fails update once: the caller's retry goes through to the server", async () => {
  let updates = 0;
  const c = await fakeClientBuilder()
    .withObjects(cm("a", { n: "0" }))
    .withInterceptorFuncs({
      update: (client, obj, opts) => {
        updates++;
        if (updates === 1) return Promise.reject(conflict(obj.metadata?.name ?? ""));
        return client.update(obj, opts);
      },
    })
    .build();
  try {
    await assert.rejects(
      c.update({ ...(await c.get(kinds.ConfigMap, { namespace: "default", name: "a" })), data: { n: "1" } }),
      (err) => isConflict(err),
    );
    const updated = await retryOnConflict(async () => {
      const cur = await c.get(kinds.ConfigMap, { namespace: "default", name: "a" });
      return c.update({ ...cur, data: { n: "2" } });
    });
    assert.equal(updates, 2);
    assert.deepEqual(updated.data, { n: "2" });
    assert.deepEqual((await c.get(kinds.ConfigMap, { namespace: "default", name: "a" })).data, { n: "2" });
  } finally {
    await c.close();
  }
});

test("an interceptor recording every verb, calling through", async () => {
  const calls: string[] = [];
  const key = (o: DeepReadonly<KubeObject>) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name}`;
  const log = <T>(line: string, call: () => T): T => {
    calls.push(line);
    return call();
  };
  const funcs: InterceptorFuncs = {
    get: (c, kind, k, opts) => log(`get ${kind.kind} ${k.namespace}/${k.name}`, () => c.get(kind, k, opts)),
    list: (c, kind, opts) => log(`list ${kind.kind}`, () => c.list(kind, opts)),
    create: (c, obj, opts) => log(`create ${key(obj)}`, () => c.create(obj, opts)),
    update: (c, obj, opts) => log(`update ${key(obj)}`, () => c.update(obj, opts)),
    patch: (c, obj, patch, opts) => log(`patch ${key(obj)}`, () => c.patch(obj, patch, opts)),
    apply: (c, config, opts) => log(`apply ${config.metadata.name}`, () => c.apply(config, opts)),
    delete: (c, obj, opts) => log(`delete ${key(obj)}`, () => c.delete(obj, opts)),
    deleteAllOf: (c, kind, opts) => log(`deleteAllOf ${kind.kind}`, () => c.deleteAllOf(kind, opts)),
    watch: (c, kind, opts) => log(`watch ${kind.kind}`, () => c.watch(kind, opts)),
    subResourceGet: (c, sub, obj, opts) =>
      log(`get ${sub} ${key(obj)}`, () => c.subResource(sub).get(obj, opts)),
    subResourceUpdate: (c, sub, obj, opts) =>
      log(`update ${sub} ${key(obj)}`, () => c.subResource(sub).update(obj, opts)),
    subResourcePatch: (c, sub, obj, patch, opts) =>
      log(`patch ${sub} ${key(obj)}`, () => c.subResource(sub).patch(obj, patch, opts)),
    subResourceApply: (c, sub, config, opts) =>
      log(`apply ${sub} ${config.metadata.name}`, () => c.subResource(sub).apply(config, opts)),
    subResourceCreate: (c, sub, obj, body, opts) =>
      log(`create ${sub} ${key(obj)}`, () => c.subResource(sub).create(obj, body, opts)),
  };
  const c = await fakeClientBuilder().withInterceptorFuncs(funcs).build();
  try {
    const w = await c.watch(kinds.ConfigMap, { inNamespace: "default" });
    const a = await c.create(cm("a"));
    const got = await c.get(kinds.ConfigMap, { namespace: "default", name: "a" });
    await c.list(kinds.ConfigMap, { inNamespace: "default" });
    const updated = await c.update({ ...got, data: { k: "1" } });
    await c.patch({ ...updated, data: { k: "2" } }, mergeFrom(updated));
    await c.apply(applyConfiguration(kinds.ConfigMap, { metadata: { name: "b", namespace: "default" } }), {
      fieldOwner: "test",
    });
    const pod = await c.create<Pod>({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: "default" },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    });
    await c.status().get(pod);
    const running = await c.status().update({ ...pod, status: { phase: "Running" } });
    await c.status().patch({ ...running, status: { ...running.status, reason: "x" } }, mergeFrom(running));
    await c.status().apply(
      applyConfiguration(kinds.Pod, {
        metadata: { name: "p", namespace: "default" },
        status: { message: "m" },
      }),
      { fieldOwner: "test", force: true },
    );
    await c.subResource("eviction").create(pod, {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "p", namespace: "default" },
    });
    await c.delete(a);
    await c.deleteAllOf(kinds.ConfigMap, { inNamespace: "default" });
    assert.equal((await w.next()).value?.type, "ADDED", "the watch went through");
    await w.return();
    assert.deepEqual(calls, [
      "watch ConfigMap",
      "create default/a",
      "get ConfigMap default/a",
      "list ConfigMap",
      "update default/a",
      "patch default/a",
      "apply b",
      "create default/p",
      "get status default/p",
      "update status default/p",
      "patch status default/p",
      "apply status p",
      "create eviction default/p",
      "delete default/a",
      "deleteAllOf ConfigMap",
    ]);
  } finally {
    await c.close();
  }
});

test("subResource replaces the whole subresource client, status() included", async () => {
  const names: string[] = [];
  const c = await fakeClientBuilder()
    .withObjects(cm("a"))
    .withInterceptorFuncs({
      subResource: (client, name) => {
        names.push(name);
        return client.subResource(name);
      },
    })
    .build();
  try {
    c.status();
    c.subResource("scale");
    assert.deepEqual(names, ["status", "scale"]);
  } finally {
    await c.close();
  }
});

test("verbs without a function, kindFor and close go to the client underneath", async () => {
  const c = await fakeClientBuilder().withObjects(cm("a")).build();
  const wrapped = newInterceptorClient(c, {});
  assert.equal((await wrapped.get(kinds.ConfigMap, { namespace: "default", name: "a" })).metadata?.name, "a");
  assert.equal((await wrapped.kindFor(cm("x"))).plural, "configmaps");
  assert.equal(await wrapped.isObjectNamespaced(cm("x")), true);
  await wrapped.close();
  await assert.rejects(c.get(kinds.ConfigMap, { namespace: "default", name: "a" }), /fake client is closed/);
});

test("a name that is no verb, or a value that is no function, is refused naming it", () => {
  assert.throws(
    () => fakeClientBuilder().withInterceptorFuncs({ updat: () => {} } as unknown as InterceptorFuncs),
    /"updat" is not a verb that can be intercepted; use one of get, list/,
  );
  assert.throws(
    () => fakeClientBuilder().withInterceptorFuncs({ get: "x" } as unknown as InterceptorFuncs),
    /get must be a function, got string/,
  );
});
