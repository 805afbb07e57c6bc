// kube-controller-manager's clusterrole-aggregation-controller: a ClusterRole with an
// aggregationRule holds the rules of every other ClusterRole its selectors match (by name order,
// without duplicates). Recomputed a turn after any ClusterRole changes, until nothing moves, so
// `admin` picks up `edit`, which picks up `view`.
import { labelSelectorFromObject } from "controller-runtime/api";
import { Debouncer } from "../controllers/debouncer.js";
import type { Obj, Storage } from "../storage/index.js";
import { rbacStores } from "./rbac.js";
import type { PolicyRule } from "./rules.js";

type Selector = Parameters<typeof labelSelectorFromObject>[0];
type LabelSelector = ReturnType<typeof labelSelectorFromObject>;

/** A ClusterRole as stored or as the bootstrap policy writes it. */
export interface NamedRole {
  name: string;
  obj: Readonly<Obj>;
}

const rulesOf = (obj: Readonly<Obj>) => ((obj.rules as PolicyRule[] | undefined) ?? []) as PolicyRule[];
const labelsOf = (obj: Readonly<Obj>) => ((obj.metadata as Obj).labels ?? {}) as Record<string, string>;

function selectorsOf(obj: Readonly<Obj>): LabelSelector[] | undefined {
  const rule = obj.aggregationRule as { clusterRoleSelectors?: Selector[] } | undefined;
  if (!rule) return undefined;
  const out: LabelSelector[] = [];
  for (const sel of rule.clusterRoleSelectors ?? []) {
    try {
      out.push(labelSelectorFromObject(sel));
    } catch {
      // validation refuses such selectors; one stored before is skipped, as kube skips it
    }
  }
  return out;
}

/**
 * The rules each aggregated ClusterRole should hold: for each of its selectors, the rules of the
 * other roles it matches in name order, without duplicates; worked out again until nothing
 * moves (a role may aggregate aggregated roles).
 */
export function aggregate(roles: readonly NamedRole[]): Map<string, PolicyRule[]> {
  const sorted = [...roles].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const current = new Map(sorted.map((r) => [r.name, rulesOf(r.obj)]));
  const aggregated = sorted.flatMap((r) => {
    const selectors = selectorsOf(r.obj);
    return selectors ? [{ name: r.name, selectors }] : [];
  });
  const result = new Map<string, PolicyRule[]>();
  for (let pass = 0; pass <= aggregated.length; pass++) {
    let changed = false;
    for (const { name, selectors } of aggregated) {
      const out: PolicyRule[] = [];
      const seen = new Set<string>();
      for (const selector of selectors) {
        for (const r of sorted) {
          if (r.name === name || !selector.matches(labelsOf(r.obj))) continue;
          for (const policy of current.get(r.name) ?? []) {
            const key = JSON.stringify(policy);
            if (seen.has(key)) continue;
            seen.add(key);
            out.push(policy);
          }
        }
      }
      if (JSON.stringify(out) !== JSON.stringify(current.get(name))) {
        current.set(name, out);
        changed = true;
      }
      result.set(name, out);
    }
    if (!changed) break;
  }
  return result;
}

export class ClusterRoleAggregator {
  readonly #storage: Storage;
  readonly #debouncer: Debouncer<string>;

  constructor(storage: Storage, signal: AbortSignal, onError: (err: unknown) => void) {
    this.#storage = storage;
    this.#debouncer = new Debouncer(() => this.sync(), signal, onError);
    storage.addWatcher(rbacStores.clusterRoles, { deliver: () => this.#debouncer.add("all") });
  }

  /** Brings every aggregated ClusterRole up to date now. */
  sync(): void {
    const roles = this.#storage.list(rbacStores.clusterRoles);
    const wanted = aggregate(roles);
    for (const role of roles) {
      const rules = wanted.get(role.name);
      if (rules === undefined || JSON.stringify(rules) === JSON.stringify(rulesOf(role.obj))) continue;
      // Go's field order: rules before aggregationRule.
      const { aggregationRule, ...next } = JSON.parse(role.json) as Obj;
      this.#storage.put(rbacStores.clusterRoles, { ...next, rules, aggregationRule });
    }
  }
}
