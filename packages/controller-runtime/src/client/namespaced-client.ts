// A Client held to one namespace, as controller-runtime's `NewNamespacedClient`: objects of
// namespaced kinds without a namespace get it, reads and lists of namespaced kinds happen in it,
// and an object (or key) naming another namespace is refused before anything is sent.
// Cluster-scoped kinds pass through unchanged (lists of them too, as v0.23 fixed).
import type { Kind, KubeObject, ObjectKey } from "../api/index.js";
import type { ApplyInput } from "./apply-configuration.js";
import type { Client, KindName, WithWatch } from "./client.js";
import { NamespaceMismatchError } from "./errors.js";
import { isKind } from "./internal/kube-client.js";
import type { SubResourceClient } from "./subresource-client.js";

/**
 * `c` held to `namespace`. `close()` closes `c`. With `c` a `WithWatch`, watches of namespaced
 * kinds happen in `namespace` too.
 */
export function newNamespacedClient<C extends Client>(c: C, namespace: string): C {
  if (!namespace) throw new TypeError("newNamespacedClient: give a namespace");
  const namespaced = async (ref: Kind | KindName, signal?: AbortSignal) =>
    (isKind(ref) ? ref : await c.kindFor(ref, { signal })).namespaced;

  /** `obj` in the client's namespace (a copy when it had none), or a NamespaceMismatchError. */
  async function place<T extends KubeObject>(obj: T, verb: string): Promise<T> {
    const own = obj.metadata?.namespace;
    if (own && own !== namespace) throw new NamespaceMismatchError(verb, obj.metadata?.name, own, namespace);
    if (own || !(await c.isObjectNamespaced(obj))) return obj;
    return { ...obj, metadata: { ...obj.metadata, namespace } };
  }

  const sub = (s: SubResourceClient, name: string): SubResourceClient => ({
    get: async (obj, opts) => s.get(await place(obj, `${name} get`), opts),
    create: async (obj, body, opts) => s.create(await place(obj, `${name} create`), body, opts),
    update: async (obj, opts) => s.update(await place(obj, `${name} update`), opts),
    patch: async (obj, patch, opts) => s.patch(await place(obj, `${name} patch`), patch, opts),
    apply: async (config, opts) => s.apply(await placeConfig(config, `${name} apply`), opts),
  });

  async function placeConfig<T extends KubeObject>(
    config: ApplyInput<T>,
    verb: string,
  ): Promise<ApplyInput<T>> {
    return (await place(config as unknown as KubeObject, verb)) as unknown as ApplyInput<T>;
  }

  const wrapped: Client = {
    get: (async (ref: Kind | KindName, key: ObjectKey, opts?: { signal?: AbortSignal }) => {
      if (await namespaced(ref, opts?.signal)) {
        if (key.namespace && key.namespace !== namespace) {
          throw new NamespaceMismatchError("get", key.name, key.namespace, namespace);
        }
        key = { ...key, namespace };
      }
      return c.get(ref as Kind, key, opts);
    }) as Client["get"],
    list: (async (ref: Kind | KindName, opts?: Parameters<Client["list"]>[1]) => {
      // As Go: the client's namespace replaces any other the call names.
      if (await namespaced(ref, opts?.signal)) opts = { ...opts, inNamespace: namespace };
      return c.list(ref as Kind, opts);
    }) as Client["list"],
    create: async (obj, opts) => c.create(await place(obj, "create"), opts),
    update: async (obj, opts) => c.update(await place(obj, "update"), opts),
    patch: async (obj, patch, opts) => c.patch(await place(obj, "patch"), patch, opts),
    apply: async (config, opts) => c.apply(await placeConfig(config, "apply"), opts),
    delete: async (obj, opts) => c.delete(await place(obj, "delete"), opts),
    deleteAllOf: async (ref, opts) => {
      if (await namespaced(ref, opts?.signal)) opts = { ...opts, inNamespace: namespace };
      return c.deleteAllOf(ref, opts);
    },
    status: () => sub(c.status(), "status"),
    subResource: (name) => sub(c.subResource(name), name),
    kindFor: (obj, opts) => c.kindFor(obj, opts),
    isObjectNamespaced: (obj) => c.isObjectNamespaced(obj),
    close: () => c.close(),
  };
  const watcher = c as Partial<WithWatch>;
  if (typeof watcher.watch === "function") {
    const watch = watcher.watch.bind(c);
    (wrapped as WithWatch).watch = (async (
      ref: Kind | KindName,
      opts?: Parameters<WithWatch["watch"]>[1],
    ) => {
      if (await namespaced(ref, opts?.signal)) opts = { ...opts, inNamespace: namespace };
      return watch(ref as Kind, opts);
    }) as WithWatch["watch"];
  }
  return wrapped as C;
}
