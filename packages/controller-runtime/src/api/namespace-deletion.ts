// The conditions kube's namespace controller keeps on a terminating namespace
// (pkg/controller/namespace/deletion/status_condition_utils.go): all five types every pass, each
// "ok" (False) unless the pass found otherwise; a condition's lastTransitionTime moves only when
// its status does. Shared by the embedded API server's namespace controller and envtest's
// simulated one, which meet no discovery or parsing failures: only what remains and the
// finalizers holding it can be True.

/** A condition as the namespace's status holds it. */
type Obj = Record<string, unknown>;

/** What a pass left: per `resource.group`, how many objects; per finalizer, how many hold it. */
export interface ContentTotals {
  remaining: Map<string, number>;
  finalizers: Map<string, number>;
}

const TYPES = [
  "NamespaceDeletionDiscoveryFailure",
  "NamespaceDeletionGroupVersionParsingFailure",
  "NamespaceDeletionContentFailure",
  "NamespaceContentRemaining",
  "NamespaceFinalizersRemaining",
] as const;

const OK: Record<(typeof TYPES)[number], { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: {
    reason: "ResourcesDiscovered",
    message: "All resources successfully discovered",
  },
  NamespaceDeletionGroupVersionParsingFailure: {
    reason: "ParsedGroupVersions",
    message: "All legacy kube types successfully parsed",
  },
  NamespaceDeletionContentFailure: {
    reason: "ContentDeleted",
    message: "All content successfully deleted, may be waiting on finalization",
  },
  NamespaceContentRemaining: { reason: "ContentRemoved", message: "All content successfully removed" },
  NamespaceFinalizersRemaining: {
    reason: "ContentHasNoFinalizers",
    message: "All content-preserving finalizers finished",
  },
};

/** metav1.Time: RFC 3339 in seconds. */
const timeText = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

/**
 * `existing` conditions brought up to date with a pass that left `totals` (undefined: a pass that
 * stopped at the Pods, which kube ends without counting, so every condition reads "ok").
 */
export function namespaceConditions(
  existing: readonly Obj[],
  totals: ContentTotals | undefined,
  now: Date,
): Obj[] {
  const found = new Map<string, { status: string; reason: string; message: string }>();
  if (totals && totals.remaining.size > 0) {
    const what = [...totals.remaining].map(([r, n]) => `${r} has ${n} resource instances`).sort();
    found.set("NamespaceContentRemaining", {
      status: "True",
      reason: "SomeResourcesRemain",
      message: `Some resources are remaining: ${what.join(", ")}`,
    });
  }
  if (totals && totals.finalizers.size > 0) {
    const what = [...totals.finalizers].map(([f, n]) => `${f} in ${n} resource instances`).sort();
    found.set("NamespaceFinalizersRemaining", {
      status: "True",
      reason: "SomeFinalizersRemain",
      message: `Some content in the namespace has finalizers remaining: ${what.join(", ")}`,
    });
  }
  const out = existing.map((c) => ({ ...c }));
  for (const type of TYPES) {
    const want = found.get(type) ?? { status: "False", ...OK[type] };
    const old = out.find((c) => c.type === type);
    if (!old) {
      out.push({
        type,
        status: want.status,
        lastTransitionTime: timeText(now),
        reason: want.reason,
        message: want.message,
      });
      continue;
    }
    if (old.status !== want.status) old.lastTransitionTime = timeText(now);
    Object.assign(old, want);
  }
  return out;
}

/** Whether two condition lists say the same (the time of a transition included). */
export function sameConditions(a: readonly Obj[], b: readonly Obj[]): boolean {
  return (
    a.length === b.length &&
    a.every((c, i) => {
      const d = b[i]!;
      return (
        c.type === d.type &&
        c.status === d.status &&
        c.reason === d.reason &&
        c.message === d.message &&
        c.lastTransitionTime === d.lastTransitionTime
      );
    })
  );
}
