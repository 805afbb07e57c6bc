// Finding the descriptor (plural, scope) of a kind known by group, version and kind, as
// controller-runtime's client does through its RESTMapper. The built-in kinds are known without
// asking; any other kind goes to the RESTMapper, which reads discovery and reads it again once on a
// miss, so a CRD installed after the client was made is found on first use.
import { defineKind, type GroupVersionKind, type Kind, kinds } from "../../api/index.js";
import type { RESTMapper } from "../../mapper/index.js";

function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

export class KindResolver {
  readonly #mapper: RESTMapper;
  readonly #builtins = new Map<string, Kind>();

  constructor(mapper: RESTMapper) {
    this.#mapper = mapper;
    for (const k of Object.values(kinds) as Kind[]) this.#builtins.set(gvkKey(k), k);
  }

  /** The descriptor of `gvk`; rejects with the mapper's `NoKindMatchError` when the server does not serve it. */
  async kindFor(gvk: GroupVersionKind, signal: AbortSignal | undefined): Promise<Kind> {
    const builtin = this.#builtins.get(gvkKey(gvk));
    if (builtin) return builtin;
    const m = await this.#mapper.restMapping({ group: gvk.group, kind: gvk.kind }, gvk.version, { signal });
    return defineKind({
      group: gvk.group,
      version: gvk.version,
      kind: gvk.kind,
      plural: m.resource.resource,
      namespaced: m.namespaced,
    });
  }
}
