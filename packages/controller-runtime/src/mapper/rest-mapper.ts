// The RESTMapper: kind ⇄ resource and scope, from discovery. Lazy like controller-runtime's
// (≥ 0.15) mapper: a group is read the first time one of its kinds is asked for, then cached;
// a miss reads the group again, once, so a CRD installed after start is found. Concurrent
// misses on one group share that read.
import type { APIResource } from "kubernetes-types/meta/v1.js";
import type { GroupVersionKind, GroupVersionResource } from "../api/index.js";
import { abortable } from "../rest/index.js";
import { type DiscoveryClient, fetchGroupVersions, fetchResources } from "./discovery.js";
import { NoKindMatchError, NoResourceMatchError } from "./errors.js";

export interface GroupKind {
  /** "" for the core group. */
  group: string;
  kind: string;
}

/** A resource named by group and plural (or singular) name, with or without a version. */
export interface PartialResource {
  group: string;
  version?: string;
  /** `deployments`, `deployment`: plural, singular or lower-case kind. */
  resource: string;
}

/** How a kind is reached: its resource and whether it lives in namespaces. */
export interface RESTMapping {
  gvk: GroupVersionKind;
  resource: GroupVersionResource;
  namespaced: boolean;
}

export interface MapperCallOptions {
  /** Stops waiting (a shared discovery read goes on for the other callers). Default: none. */
  signal?: AbortSignal;
}

export interface RESTMapper {
  /**
   * The mapping of a kind in `version`, or, without one, in the group's preferred version,
   * else the first other version (in the server's priority order) that serves it.
   * Rejects with a `NoKindMatchError` when, even after reading the group again, none does.
   */
  restMapping(gk: GroupKind, version?: string, opts?: MapperCallOptions): Promise<RESTMapping>;
  /** Every version's mapping of the kind, preferred version first. */
  restMappings(gk: GroupKind, versions?: string[], opts?: MapperCallOptions): Promise<RESTMapping[]>;
  /** The kind served at a resource; rejects with a `NoResourceMatchError`. */
  kindFor(resource: PartialResource, opts?: MapperCallOptions): Promise<GroupVersionKind>;
  /** The fully qualified resource (preferred version when none is given); rejects with a `NoResourceMatchError`. */
  resourceFor(resource: PartialResource, opts?: MapperCallOptions): Promise<GroupVersionResource>;
  /** Whether objects of the kind live in namespaces. */
  isNamespaced(gvk: GroupVersionKind, opts?: MapperCallOptions): Promise<boolean>;
  /** Forgets everything read; the next lookups read discovery again. */
  reset(): void;
  /** Forgets what was read of `group` (a CRD of it came or went); its next lookup reads discovery again. */
  resetGroup(group: string): void;
}

export interface RESTMapperOptions {
  /** Time limit of each discovery request, in ms. Default: 32000 (kubectl's). */
  timeoutMs?: number;
}

interface GroupState {
  /** Served versions, preferred first, then the others in the server's order. */
  versions: string[];
  resources: Map<string, APIResource[]>;
}

/** Creates a lazy RESTMapper over `client` (a `RESTClient`). Reads nothing until asked. */
export function newRESTMapper(client: DiscoveryClient, options: RESTMapperOptions = {}): RESTMapper {
  const timeoutMs = options.timeoutMs ?? 32_000;
  const groups = new Map<string, GroupState>();
  const reading = new Map<string, Promise<GroupState>>();
  let generation = 0;

  async function read(group: string): Promise<GroupState> {
    const gv = await fetchGroupVersions(client, group, timeoutMs);
    const state: GroupState = { versions: [], resources: new Map() };
    if (gv) {
      const ordered = [gv.preferred, ...gv.versions.filter((v) => v !== gv.preferred)];
      const lists = await Promise.all(ordered.map((v) => fetchResources(client, group, v, timeoutMs)));
      ordered.forEach((v, i) => {
        const list = lists[i];
        if (list === undefined) return;
        state.versions.push(v);
        state.resources.set(v, list);
      });
    }
    return state;
  }

  /** Reads the group, sharing a read already under way; its result replaces the cache. */
  function reload(group: string, signal: AbortSignal | undefined): Promise<GroupState> {
    let pending = reading.get(group);
    if (!pending) {
      const gen = generation;
      pending = read(group)
        .then((state) => {
          if (gen === generation) groups.set(group, state);
          return state;
        })
        .finally(() => reading.delete(group));
      pending.catch(() => {}); // a caller that gave up must not leave it unhandled
      reading.set(group, pending);
    }
    return abortable(pending, signal);
  }

  /** Runs `find` on the cached group, then once more on a fresh read if it found nothing. */
  async function lookup<T>(
    group: string,
    find: (state: GroupState) => T | undefined,
    signal: AbortSignal | undefined,
  ): Promise<T | undefined> {
    signal?.throwIfAborted();
    const cached = groups.get(group);
    const hit = cached && find(cached);
    if (hit !== undefined && hit !== false) return hit;
    return find(await reload(group, signal));
  }

  function mappingsIn(state: GroupState, gk: GroupKind, versions: string[] | undefined): RESTMapping[] {
    const out: RESTMapping[] = [];
    for (const version of versions && versions.length > 0 ? versions : state.versions) {
      const r = state.resources.get(version)?.find((x) => x.kind === gk.kind);
      if (r) {
        out.push({
          gvk: { group: gk.group, version, kind: gk.kind },
          resource: { group: gk.group, version, resource: r.name },
          namespaced: r.namespaced,
        });
      }
    }
    return out;
  }

  function resourceIn(
    state: GroupState,
    p: PartialResource,
  ): { version: string; r: APIResource } | undefined {
    const wanted = p.resource.toLowerCase();
    for (const version of p.version ? [p.version] : state.versions) {
      const r = state.resources
        .get(version)
        ?.find((x) => x.name === wanted || x.singularName === wanted || x.kind.toLowerCase() === wanted);
      if (r) return { version, r };
    }
    return undefined;
  }

  const mapper: RESTMapper = {
    async restMapping(gk, version, opts = {}) {
      const versions = version ? [version] : undefined;
      const found = await lookup(gk.group, (s) => mappingsIn(s, gk, versions)[0], opts.signal);
      if (!found) throw new NoKindMatchError(gk.group, gk.kind, versions);
      return found;
    },

    async restMappings(gk, versions, opts = {}) {
      const found = await lookup(
        gk.group,
        (s) => {
          const all = mappingsIn(s, gk, versions);
          return all.length > 0 ? all : undefined;
        },
        opts.signal,
      );
      if (!found) throw new NoKindMatchError(gk.group, gk.kind, versions);
      return found;
    },

    async kindFor(p, opts = {}) {
      const found = await lookup(p.group, (s) => resourceIn(s, p), opts.signal);
      if (!found) throw new NoResourceMatchError(p.group, p.resource, p.version);
      return { group: p.group, version: found.version, kind: found.r.kind };
    },

    async resourceFor(p, opts = {}) {
      const found = await lookup(p.group, (s) => resourceIn(s, p), opts.signal);
      if (!found) throw new NoResourceMatchError(p.group, p.resource, p.version);
      return { group: p.group, version: found.version, resource: found.r.name };
    },

    async isNamespaced(gvk, opts = {}) {
      return (await mapper.restMapping(gvk, gvk.version, opts)).namespaced;
    },

    reset() {
      generation++;
      groups.clear();
      reading.clear();
    },

    resetGroup(group) {
      // A read of the group under way must not store what it read before the change.
      generation++;
      groups.delete(group);
      reading.delete(group);
    },
  };
  return mapper;
}
