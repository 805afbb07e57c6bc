// kube-controller-manager's clusterrole-aggregation-controller: a ClusterRole with an
// aggregationRule holds the rules of every other ClusterRole its selectors match (by name order,
// without duplicates). Recomputed a turn after any ClusterRole changes, until nothing moves, so
// `admin` picks up `edit`, which picks up `view`.
import { labelSelectorFromObject } from "../../api/labels.js";
import { Debouncer } from "../controllers/debouncer.js";
import type { Obj, Storage, StoredObject } from "../storage/index.js";
import { rbacStores } from "./rbac.js";
import type { PolicyRule } from "./rules.js";

type Selector = Parameters<typeof labelSelectorFromObject>[0];

function aggregatedRules(role: StoredObject, all: readonly StoredObject[]): PolicyRule[] | undefined {
  const rule = (role.obj as Obj).aggregationRule as { clusterRoleSelectors?: Selector[] } | undefined;
  if (!rule) return undefined;
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const sel of rule.clusterRoleSelectors ?? []) {
    let selector: ReturnType<typeof labelSelectorFromObject>;
    try {
      selector = labelSelectorFromObject(sel);
    } catch {
      continue; // validation refuses such selectors; one stored before is skipped, as kube skips it
    }
    const matching = all
      .filter((r) => r.name !== role.name)
      .filter((r) => selector.matches(((r.obj.metadata as Obj).labels ?? {}) as Record<string, string>))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const r of matching) {
      for (const policy of ((r.obj as Obj).rules as PolicyRule[] | undefined) ?? []) {
        const key = JSON.stringify(policy);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(policy);
      }
    }
  }
  return out;
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
    // Each pass can change a role that another aggregates; the roles' count bounds the passes.
    const limit = this.#storage.count(rbacStores.clusterRoles) + 1;
    for (let pass = 0; pass < limit; pass++) {
      let changed = false;
      const all = this.#storage.list(rbacStores.clusterRoles);
      for (const role of all) {
        const rules = aggregatedRules(role, all);
        if (rules === undefined) continue;
        if (JSON.stringify(rules) === JSON.stringify((role.obj as Obj).rules ?? [])) continue;
        // Go's field order: rules before aggregationRule.
        const { aggregationRule, ...next } = JSON.parse(role.json) as Obj;
        this.#storage.put(rbacStores.clusterRoles, { ...next, rules, aggregationRule });
        changed = true;
      }
      if (!changed) return;
    }
  }
}
