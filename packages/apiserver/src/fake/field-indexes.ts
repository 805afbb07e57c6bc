// Field indexes of the fake client (controller-runtime's fake `WithIndex`): a reconciler lists by
// an indexed field (`matchingFields: { "spec.node": name }`) as it does through the Manager's
// cache. The API server knows only its own field selectors, so terms on an indexed field are
// taken out of the request and matched here with the index's function; the rest go to the server,
// which answers them (or refuses them) as it always does.
import {
  fieldSelectorFromRequirements,
  type FieldRequirement,
  type GroupVersionKind,
  type Kind,
  type KubeList,
  type KubeObject,
  parseAPIVersion,
  parseFieldSelector,
} from "controller-runtime/api";
import { IndexConflictError, type IndexerFunc } from "controller-runtime/cache";
import type { KindName, ListOptions, WithWatch } from "controller-runtime/client";
import type { DeepReadonly } from "controller-runtime/api";

const gvkKey = (gvk: GroupVersionKind) => `${gvk.group}/${gvk.version}/${gvk.kind}`;

function gvkOf(ref: Kind | KindName): GroupVersionKind {
  if ("group" in ref && "version" in ref) return { group: ref.group, version: ref.version, kind: ref.kind };
  return { ...parseAPIVersion(ref.apiVersion), kind: ref.kind };
}

/** The registered indexes, by kind and field. */
export class FieldIndexes {
  readonly #byKind = new Map<string, Map<string, IndexerFunc>>();

  get size(): number {
    return this.#byKind.size;
  }

  add<T extends KubeObject>(kind: Kind<T>, field: string, extract: IndexerFunc<T>): void {
    if (!field)
      throw new TypeError(`withIndex: give the field to index ${kind.kind} by (e.g. "spec.nodeName")`);
    if (typeof extract !== "function") {
      throw new TypeError(
        `withIndex: the index of ${kind.kind} by ${field} needs a function returning its values`,
      );
    }
    const key = gvkKey(kind);
    let fields = this.#byKind.get(key);
    if (!fields) {
      fields = new Map();
      this.#byKind.set(key, fields);
    }
    if (fields.has(field)) {
      throw new IndexConflictError(
        `withIndex: ${kind.kind} (${kind.apiVersion}) is already indexed by ${JSON.stringify(field)}; register each field once`,
      );
    }
    fields.set(field, extract as IndexerFunc);
  }

  /**
   * Lists through `client`, the terms on indexed fields matched here. Without any, the list is
   * the client's own.
   */
  async list(
    client: WithWatch,
    ref: Kind | KindName,
    opts: ListOptions = {},
  ): Promise<KubeList<DeepReadonly<KubeObject>>> {
    const fields = this.#byKind.get(gvkKey(gvkOf(ref)));
    if (!fields) return client.list(ref, opts);
    const terms: FieldRequirement[] = Object.entries(opts.matchingFields ?? {}).map(([field, value]) => ({
      field,
      op: "=",
      value,
    }));
    if (opts.fieldSelector !== undefined) {
      const sel =
        typeof opts.fieldSelector === "string" ? parseFieldSelector(opts.fieldSelector) : opts.fieldSelector;
      terms.push(...sel.requirements);
    }
    const indexed = terms.filter((t) => fields.has(t.field));
    if (indexed.length === 0) return client.list(ref, opts);
    for (const t of indexed) {
      if (t.op === "!=") {
        throw new TypeError(
          `list of ${ref.kind}: the index of ${t.field} answers exact matches only, not "${t.field}!=${t.value}"; ` +
            "filter the items yourself",
        );
      }
    }
    if (opts.limit !== undefined || opts.continue !== undefined) {
      throw new TypeError(
        `list of ${ref.kind}: the fake client matches the indexed field ${indexed[0]!.field} itself and does not page ` +
          "those lists; list without limit and continue",
      );
    }
    const rest = terms.filter((t) => !fields.has(t.field));
    const list = await client.list(ref, {
      ...opts,
      matchingFields: undefined,
      fieldSelector: rest.length > 0 ? fieldSelectorFromRequirements(rest).toString() : undefined,
    });
    list.items = list.items.filter((item) =>
      indexed.every((t) => fields.get(t.field)!(item).includes(t.value)),
    );
    return list;
  }
}
