import type { ApplyInput } from "../apply-configuration.js";
// A subresource client: the Writer's verbs with a subresource, plus get and create, which
// address the subresource of an object with a body of another kind (a Scale, an Eviction).
import type { DeepReadonly, KubeObject, Unstructured } from "../../api/index.js";
import { type RESTClient, queryString, resourceOf, resourcePath } from "../../rest/index.js";
import type { ApplyOptions, CreateOptions, GetOptions, PatchOptions } from "../options.js";
import type { Patch } from "../patch.js";
import type { SubResourceClient, SubResourceUpdateOptions } from "../subresource-client.js";
import type { Writer } from "./writer.js";

export class SubResource implements SubResourceClient {
  readonly #rest: RESTClient;
  readonly #writer: Writer;
  readonly #name: string;

  constructor(rest: RESTClient, writer: Writer, name: string) {
    this.#rest = rest;
    this.#writer = writer;
    this.#name = name;
  }

  async get<S extends KubeObject>(obj: DeepReadonly<KubeObject>, opts: GetOptions = {}): Promise<S> {
    const { kind, namespace, name } = await this.#writer.target(obj, `${this.#name} get`, opts.signal);
    return this.#rest.get<S>(resourceOf(kind), name, {
      namespace,
      subresource: this.#name,
      signal: opts.signal,
    });
  }

  async create<S extends KubeObject>(
    obj: DeepReadonly<KubeObject>,
    body: KubeObject,
    opts: CreateOptions = {},
  ): Promise<S> {
    const { kind, namespace, name } = await this.#writer.target(obj, `${this.#name} create`, opts.signal);
    const w = this.#writer.writeOptions(opts);
    const path = resourcePath(resourceOf(kind), { namespace, name, subresource: this.#name });
    return this.#rest.request<S>({
      method: "POST",
      path:
        path +
        queryString({
          dryRun: w.dryRun ? "All" : undefined,
          fieldManager: w.fieldManager,
          fieldValidation: w.fieldValidation,
        }),
      body,
      signal: opts.signal,
    });
  }

  update<T extends KubeObject, R extends KubeObject = T>(
    obj: T | DeepReadonly<T>,
    opts: SubResourceUpdateOptions = {},
  ): Promise<R> {
    return this.#writer.update<T, R>(obj as T, this.#name, opts.body ?? (obj as T), opts);
  }

  patch<T extends KubeObject>(obj: T | DeepReadonly<T>, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return this.#writer.patch(obj as T, this.#name, patch, opts);
  }

  apply<T extends KubeObject = Unstructured>(config: ApplyInput<T>, opts: ApplyOptions = {}): Promise<T> {
    return this.#writer.apply(config as KubeObject, this.#name, opts) as Promise<T>;
  }
}
