// Subresources (`status`, `scale`, `eviction`, ...), as controller-runtime's SubResourceClient.
import type { DeepReadonly, KubeObject, Unstructured } from "../api/index.js";
import type { ApplyInput } from "./apply-configuration.js";
import type { ApplyOptions, CreateOptions, GetOptions, PatchOptions, UpdateOptions } from "./options.js";
import type { Patch } from "./patch.js";

export interface SubResourceUpdateOptions extends UpdateOptions {
  /** Send this body instead of the object itself (a `Scale` for `scale`). Default: the object. */
  body?: KubeObject;
}

/** Reads and writes one subresource of the objects it is given. Arguments are never changed. */
export interface SubResourceClient {
  /** The subresource of `obj` (`scale` answers a `Scale`). Always from the API server. */
  get<S extends KubeObject = Unstructured>(obj: DeepReadonly<KubeObject>, opts?: GetOptions): Promise<S>;
  /** POSTs `body` to the subresource of `obj`: `subResource("eviction").create(pod, eviction)`. */
  create<S extends KubeObject = Unstructured>(
    obj: DeepReadonly<KubeObject>,
    body: KubeObject,
    opts?: CreateOptions,
  ): Promise<S>;
  /** PUTs `obj` (or `opts.body`) to the subresource: `status().update(obj)` changes only the status. */
  update<T extends KubeObject, R extends KubeObject = T>(
    obj: T | DeepReadonly<T>,
    opts?: SubResourceUpdateOptions,
  ): Promise<R>;
  /** Patches the subresource of `obj` with `patch.data(obj)`. */
  patch<T extends KubeObject>(obj: T | DeepReadonly<T>, patch: Patch, opts?: PatchOptions): Promise<T>;
  /** Server-side apply to the subresource: `status().apply(config, { fieldOwner })`. */
  apply<T extends KubeObject = Unstructured>(config: ApplyInput<T>, opts?: ApplyOptions): Promise<T>;
}
