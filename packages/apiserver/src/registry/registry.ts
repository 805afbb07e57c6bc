// The registry: which group/version/resources are served right now. Built-ins are fixed at start;
// CustomResourceDefinitions add and remove theirs while the server runs.
import type { ResourceDefinition } from "./resource.js";

/** Where a resource's objects are kept: every version of a group/resource shares one store. */
export function storeNameOf(def: ResourceDefinition): string {
  if (def.storeName !== undefined) return def.storeName;
  // Kept per definition: a joined name is a new string to flatten and hash on every lookup.
  let name = storeNames.get(def);
  if (name === undefined) {
    name = `${def.group}/${def.plural}`;
    storeNames.set(def, name);
  }
  return name;
}

const storeNames = new WeakMap<ResourceDefinition, string>();

export interface ServedGroup {
  name: string;
  /** Served versions, the preferred one first. */
  versions: string[];
}

export class Registry {
  readonly #byGvr = new Map<string, ResourceDefinition>();
  /**
   * The same by group, version and plural: every request looks its resource up, and the path's
   * segments find it without joining them into a new key to hash.
   */
  readonly #nested = new Map<string, Map<string, Map<string, ResourceDefinition>>>();
  // Groups in the order discovery lists them: built-ins first, then CRD groups as they arrive.
  readonly #groupOrder: string[] = [];
  #generation = 0;

  constructor(defs: readonly ResourceDefinition[]) {
    for (const d of defs) this.add(d);
  }

  /** Bumped on every change of what is served: documents built from the registry key on it. */
  get generation(): number {
    return this.#generation;
  }

  add(def: ResourceDefinition): void {
    this.#generation++;
    this.#byGvr.set(`${def.group}/${def.version}/${def.plural}`, def);
    let versions = this.#nested.get(def.group);
    if (!versions) {
      versions = new Map();
      this.#nested.set(def.group, versions);
    }
    let plurals = versions.get(def.version);
    if (!plurals) {
      plurals = new Map();
      versions.set(def.version, plurals);
    }
    plurals.set(def.plural, def);
    if (!this.#groupOrder.includes(def.group)) this.#groupOrder.push(def.group);
  }

  remove(def: ResourceDefinition): void {
    this.#generation++;
    this.#byGvr.delete(`${def.group}/${def.version}/${def.plural}`);
    this.#nested.get(def.group)?.get(def.version)?.delete(def.plural);
  }

  /** Removes every resource a CRD registered. */
  removeCrd(crdName: string): ResourceDefinition[] {
    const removed = this.all().filter((d) => d.crdName === crdName);
    for (const d of removed) this.remove(d);
    return removed;
  }

  lookup(group: string, version: string, plural: string): ResourceDefinition | undefined {
    return this.#nested.get(group)?.get(version)?.get(plural);
  }

  all(): ResourceDefinition[] {
    return [...this.#byGvr.values()];
  }

  inGroupVersion(group: string, version: string): ResourceDefinition[] {
    return this.all().filter((d) => d.group === group && d.version === version);
  }

  /** The kind's definition in any served version, preferring its storage version. */
  byKind(group: string, kind: string): ResourceDefinition | undefined {
    const all = this.all().filter((d) => d.group === group && d.kind === kind);
    return all.find((d) => d.version === d.storageVersion) ?? all[0];
  }

  /**
   * Whether any version of `group` is served: asked by every request under /apis/<group>/, where
   * building groups() (every group's versions, from every definition) cost ~16 µs a request.
   */
  servesGroup(group: string): boolean {
    const versions = this.#nested.get(group);
    if (versions === undefined) return false;
    for (const plurals of versions.values()) if (plurals.size > 0) return true;
    return false;
  }

  groups(): ServedGroup[] {
    const out: ServedGroup[] = [];
    for (const name of this.#groupOrder) {
      const versions = [
        ...new Set(
          this.all()
            .filter((d) => d.group === name)
            .map((d) => d.version),
        ),
      ];
      if (versions.length === 0) continue;
      versions.sort(compareKubeVersions);
      out.push({ name, versions });
    }
    return out;
  }
}

// Kubernetes version priority: GA > beta > alpha, higher numbers first, then other strings.
const versionPattern = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

export function compareKubeVersions(a: string, b: string): number {
  const ma = versionPattern.exec(a);
  const mb = versionPattern.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const rank = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0);
  if (rank(ma) !== rank(mb)) return rank(mb) - rank(ma);
  if (ma[1] !== mb[1]) return Number(mb[1]) - Number(ma[1]);
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}
