// Finding a kind's resource (plural) and scope from its group, version and kind, as
// controller-runtime's client does through its RESTMapper. The built-in kinds are known without
// a request; any other kind is looked up in discovery (`/apis/{group}/{version}`), one request per
// group-version, remembered, and asked again once when a kind is missing, so a CRD installed after
// the client was made is found on first use.
// TODO(mapper): when src/mapper lands, accept its RESTMapper here (an adapter to KindMapper).
import type { APIResourceList } from "kubernetes-types/meta/v1.js";
import { defineKind, type GroupVersionKind, type Kind, kinds } from "../api/index.js";
import { NoKindMatchError } from "../cache/index.js";
import { groupVersionPath, isNotFound, type RestClient } from "../rest/index.js";

/** Resolves a kind known by name to its descriptor (plural, scope). */
export interface KindMapper {
  /** The descriptor of `gvk`; rejects with `NoKindMatchError` when the server does not serve it. */
  kindFor(gvk: GroupVersionKind, opts?: { signal?: AbortSignal }): Promise<Kind>;
}

function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

/** The built-in kinds' descriptors by `group/version/kind`. */
function builtinKinds(): Map<string, Kind> {
  const out = new Map<string, Kind>();
  for (const k of Object.values(kinds) as Kind[]) out.set(gvkKey(k), k);
  return out;
}

/** A KindMapper over discovery through `rest`, with the built-in kinds known up front. */
export function discoveryKindMapper(rest: RestClient): KindMapper {
  const builtins = builtinKinds();
  // Per group-version: the resources discovery listed, by kind. Settled lookups only.
  const groupVersions = new Map<string, Promise<Map<string, Kind>>>();

  function fetchGroupVersion(
    gvk: GroupVersionKind,
    signal: AbortSignal | undefined,
  ): Promise<Map<string, Kind>> {
    const key = `${gvk.group}/${gvk.version}`;
    const pending = rest
      .request<APIResourceList>({ path: groupVersionPath(gvk.group, gvk.version), signal })
      .then((list) => {
        const byKind = new Map<string, Kind>();
        for (const r of list.resources) {
          if (r.name.includes("/")) continue; // subresources
          const kind = defineKind({
            group: gvk.group,
            version: gvk.version,
            kind: r.kind,
            plural: r.name,
            namespaced: r.namespaced,
          });
          byKind.set(r.kind, kind);
        }
        return byKind;
      });
    groupVersions.set(key, pending);
    // A failed lookup (a group-version not served yet) is not remembered.
    pending.catch(() => {
      if (groupVersions.get(key) === pending) groupVersions.delete(key);
    });
    return pending;
  }

  async function kindIn(lists: Promise<Map<string, Kind>>, kind: string): Promise<Kind | undefined> {
    try {
      return (await lists).get(kind);
    } catch (err) {
      if (isNotFound(err)) return undefined; // the group-version is not served (yet)
      throw err;
    }
  }

  return {
    async kindFor(gvk, opts = {}) {
      const builtin = builtins.get(gvkKey(gvk));
      if (builtin) return builtin;
      const known = groupVersions.get(`${gvk.group}/${gvk.version}`);
      const found =
        (known && (await kindIn(known, gvk.kind))) ??
        (await kindIn(fetchGroupVersion(gvk, opts.signal), gvk.kind));
      if (!found) throw new NoKindMatchError(gvk, gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version);
      return found;
    },
  };
}
