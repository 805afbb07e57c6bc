// Writes shared by the Client and its subresource clients: find the object's resource from its
// apiVersion and kind, send, return what the server answered. Nothing here changes its arguments.
import { type Kind, type KubeObject, parseAPIVersion } from "../../api/index.js";
import { type RESTClient, resourceOf, type WriteOptions as RestWriteOptions } from "../../rest/index.js";
import { FieldOwnerRequiredError, MissingKindError, MissingNameError } from "../errors.js";
import type { KindResolver } from "./kind-resolver.js";
import type { ApplyOptions, PatchOptions, ResolvedClientOptions, WriteOptions } from "../options.js";
import type { Patch } from "../patch.js";
import type { WriteLedger } from "./write-ledger.js";
import type { DeepReadonly } from "../../api/index.js";

/** Where an object lives: its kind's descriptor, namespace (for namespaced kinds) and name. */
export interface Target {
  kind: Kind;
  namespace: string | undefined;
  name: string;
}

/** Refuses a namespaced kind without a namespace: the server would answer a confusing 404. */
export function checkNamespace(kind: Kind, namespace: string | undefined, name: string, verb: string): void {
  if (kind.namespaced && !namespace) {
    throw new TypeError(
      `${verb}: ${kind.kind} is namespaced, but no namespace was given for "${name}"; set metadata.namespace (or the key's namespace)`,
    );
  }
}

export class Writer {
  readonly #rest: RESTClient;
  readonly #opts: ResolvedClientOptions;
  readonly #kinds: KindResolver;
  /** Where writes are remembered for read-your-writes; undefined when reads do not wait. */
  readonly ledger: WriteLedger | undefined;

  constructor(rest: RESTClient, opts: ResolvedClientOptions, kinds: KindResolver, ledger?: WriteLedger) {
    this.#rest = rest;
    this.#opts = opts;
    this.#kinds = kinds;
    this.ledger = ledger;
  }

  /** Remembers what a write produced, for the cached reads that follow it. */
  #written<R extends KubeObject>(target: Target, opts: WriteOptions, result: R): R {
    if (this.ledger && !opts.dryRun)
      this.ledger.recordWrite(target.kind, target.namespace, target.name, result);
    return result;
  }

  kindOfObject(obj: DeepReadonly<KubeObject>, verb: string, signal: AbortSignal | undefined): Promise<Kind> {
    if (!obj.apiVersion || !obj.kind) return Promise.reject(new MissingKindError(verb, obj.metadata?.name));
    return this.#kinds.kindFor({ ...parseAPIVersion(obj.apiVersion), kind: obj.kind }, signal);
  }

  /** The kind, namespace and name of an existing object `verb` addresses. */
  async target(
    obj: DeepReadonly<KubeObject>,
    verb: string,
    signal: AbortSignal | undefined,
  ): Promise<Target> {
    const kind = await this.kindOfObject(obj, verb, signal);
    const name = obj.metadata?.name;
    if (!name) throw new MissingNameError(verb, kind.kind);
    const namespace = kind.namespaced ? obj.metadata?.namespace : undefined;
    checkNamespace(kind, namespace, name, verb);
    return { kind, namespace, name };
  }

  writeOptions(opts: WriteOptions): RestWriteOptions {
    return {
      dryRun: opts.dryRun,
      fieldManager: opts.fieldOwner ?? this.#opts.fieldOwner,
      fieldValidation: opts.fieldValidation ?? this.#opts.fieldValidation,
      signal: opts.signal,
    };
  }

  async create<T extends KubeObject>(
    obj: T,
    subresource: string | undefined,
    opts: WriteOptions,
  ): Promise<T> {
    const kind = await this.kindOfObject(obj, "create", opts.signal);
    if (!obj.metadata?.name && !obj.metadata?.generateName) throw new MissingNameError("create", kind.kind);
    const namespace = kind.namespaced ? obj.metadata?.namespace : undefined;
    const name = obj.metadata?.name ?? obj.metadata?.generateName ?? "";
    checkNamespace(kind, namespace, name, "create");
    const created = await this.#rest.create(resourceOf(kind), obj, {
      ...this.writeOptions(opts),
      namespace,
      subresource,
    });
    return this.#written({ kind, namespace, name }, opts, created);
  }

  async update<T extends KubeObject, R extends KubeObject>(
    obj: T,
    subresource: string | undefined,
    body: KubeObject,
    opts: WriteOptions,
  ): Promise<R> {
    const verb = subresource ? `${subresource} update` : "update";
    const target = await this.target(obj, verb, opts.signal);
    const { kind, namespace, name } = target;
    const updated = await this.#rest.update(resourceOf(kind), body as R, {
      ...this.writeOptions(opts),
      namespace,
      name,
      subresource,
    });
    return this.#written(target, opts, updated);
  }

  async patch<T extends KubeObject>(
    obj: T,
    subresource: string | undefined,
    patch: Patch,
    opts: PatchOptions,
  ): Promise<T> {
    const verb = subresource ? `${subresource} patch` : "patch";
    const target = await this.target(obj, verb, opts.signal);
    const { kind, namespace, name } = target;
    const rest = this.writeOptions(opts);
    if (patch.type === "apply" && !rest.fieldManager) throw new FieldOwnerRequiredError(verb);
    const patched = await this.#rest.patch<T>(resourceOf(kind), name, patch.data(obj), {
      ...rest,
      patchType: patch.type,
      force: patch.type === "apply" ? opts.force : undefined,
      namespace,
      subresource,
    });
    return this.#written(target, opts, patched);
  }

  async apply(config: KubeObject, subresource: string | undefined, opts: ApplyOptions): Promise<KubeObject> {
    const verb = subresource ? `${subresource} apply` : "apply";
    const target = await this.target(config, verb, opts.signal);
    const { kind, namespace, name } = target;
    const rest = this.writeOptions(opts);
    if (!rest.fieldManager) throw new FieldOwnerRequiredError(verb);
    const applied = await this.#rest.patch<KubeObject>(resourceOf(kind), name, config, {
      ...rest,
      patchType: "apply",
      force: opts.force,
      namespace,
      subresource,
    });
    return this.#written(target, opts, applied);
  }
}
