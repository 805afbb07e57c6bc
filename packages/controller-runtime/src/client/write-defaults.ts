// Clients around an existing Client that change how it writes, as controller-runtime's
// `NewDryRunClient`, `WithFieldOwner` and `WithFieldValidation`. Reads pass through; so does
// `close()`, which closes the wrapped client (a wrapper owns nothing of its own).
import type { DeepReadonly, KubeObject } from "../api/index.js";
import type { Client, WithWatch } from "./client.js";
import type { DeleteOptions, FieldValidation, WriteOptions } from "./options.js";
import type { SubResourceClient } from "./subresource-client.js";

interface WriteRules {
  /** The options a create, update, patch or apply (of an object or a subresource) is sent with. */
  write<O extends WriteOptions>(opts: O | undefined): O;
  /** The options a delete or deleteAllOf is sent with. */
  del<O extends DeleteOptions>(opts: O | undefined): O;
}

/** `c` with every write's options passed through `rules`; `watch` is kept when `c` has it. */
export function withWriteRules<C extends Client>(c: C, rules: WriteRules): C {
  const sub = (s: SubResourceClient): SubResourceClient => ({
    get: (obj, opts) => s.get(obj, opts),
    create: (obj, body, opts) => s.create(obj, body, rules.write(opts)),
    update: (obj, opts) => s.update(obj, rules.write(opts)),
    patch: (obj, patch, opts) => s.patch(obj, patch, rules.write(opts)),
    apply: (config, opts) => s.apply(config, rules.write(opts)),
  });
  const wrapped: Client = {
    get: ((kind: never, key: never, opts: never) => c.get(kind, key, opts)) as Client["get"],
    list: ((kind: never, opts: never) => c.list(kind, opts)) as Client["list"],
    create: (obj, opts) => c.create(obj, rules.write(opts)),
    update: (obj, opts) => c.update(obj, rules.write(opts)),
    patch: (obj, patch, opts) => c.patch(obj, patch, rules.write(opts)),
    apply: (config, opts) => c.apply(config, rules.write(opts)),
    delete: (obj, opts) => c.delete(obj, rules.del(opts)),
    deleteAllOf: (kind, opts) => c.deleteAllOf(kind, rules.del(opts)),
    status: () => sub(c.status()),
    subResource: (name) => sub(c.subResource(name)),
    kindFor: (obj, opts) => c.kindFor(obj, opts),
    isObjectNamespaced: (obj: DeepReadonly<KubeObject>) => c.isObjectNamespaced(obj),
    close: () => c.close(),
  };
  const watcher = c as Partial<WithWatch>;
  if (typeof watcher.watch === "function") {
    const watch = watcher.watch.bind(c);
    (wrapped as WithWatch).watch = ((kind: never, opts: never) => watch(kind, opts)) as WithWatch["watch"];
  }
  return wrapped as C;
}

/**
 * `c` making every write a dry run (deletes and subresource writes too): validated and admitted,
 * never persisted. A call cannot turn it off (controller-runtime's `NewDryRunClient`).
 */
export function newDryRunClient<C extends Client>(c: C): C {
  return withWriteRules(c, {
    write: (opts) => ({ ...opts, dryRun: true }) as NonNullable<typeof opts>,
    del: (opts) => ({ ...opts, dryRun: true }) as NonNullable<typeof opts>,
  });
}

/**
 * `c` writing with `fieldOwner` as the field manager of every create, update, patch and apply
 * that names none; one named on the call wins (controller-runtime's `WithFieldOwner`).
 */
export function withFieldOwner<C extends Client>(c: C, fieldOwner: string): C {
  if (!fieldOwner) throw new TypeError("withFieldOwner: give a field owner (e.g. your controller's name)");
  return withWriteRules(c, {
    write: (opts) => ({ ...opts, fieldOwner: opts?.fieldOwner ?? fieldOwner }) as NonNullable<typeof opts>,
    del: (opts) => opts ?? ({} as NonNullable<typeof opts>),
  });
}

/**
 * `c` sending `fieldValidation` with every create, update, patch and apply that names none; one
 * named on the call wins (controller-runtime's `WithFieldValidation`).
 */
export function withFieldValidation<C extends Client>(c: C, fieldValidation: FieldValidation): C {
  if (!["Strict", "Warn", "Ignore"].includes(fieldValidation)) {
    throw new RangeError(
      `withFieldValidation: ${JSON.stringify(fieldValidation)} is not a field validation; use "Strict", "Warn" or "Ignore"`,
    );
  }
  return withWriteRules(c, {
    write: (opts) =>
      ({ ...opts, fieldValidation: opts?.fieldValidation ?? fieldValidation }) as NonNullable<typeof opts>,
    del: (opts) => opts ?? ({} as NonNullable<typeof opts>),
  });
}
