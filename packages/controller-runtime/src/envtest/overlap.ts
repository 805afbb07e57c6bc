// expectNoOverlap(): the check a leader-election or sharding test makes on its ledger: no two
// holders ran the same thing at once.

/** One period during which `holder` ran `key` (a leader's term, a reconcile of an object). */
export interface LedgerEntry {
  readonly key: string;
  readonly holder: string;
  readonly start: number;
  /** Undefined while it still runs. */
  readonly end?: number;
}

/** Thrown by expectNoOverlap with the first two periods that overlap. */
export class OverlapError extends Error {
  override readonly name = "OverlapError";
  readonly code = "ERR_ENVTEST_OVERLAP";
  constructor(
    readonly first: LedgerEntry,
    readonly second: LedgerEntry,
  ) {
    super(
      `${first.holder} and ${second.holder} both ran ${first.key}: ` +
        `[${first.start.toFixed(1)}, ${first.end?.toFixed(1) ?? "still running"}] and ` +
        `[${second.start.toFixed(1)}, ${second.end?.toFixed(1) ?? "still running"}]`,
    );
  }
}

/** Throws an OverlapError when two periods of one key overlap; returns how many keys were checked. */
export function expectNoOverlap(ledger: Iterable<LedgerEntry>): number {
  const byKey = new Map<string, LedgerEntry[]>();
  for (const e of ledger) {
    let list = byKey.get(e.key);
    if (!list) {
      list = [];
      byKey.set(e.key, list);
    }
    list.push(e);
  }
  for (const list of byKey.values()) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1]!;
      const cur = list[i]!;
      if (prev.end === undefined || prev.end > cur.start) throw new OverlapError(prev, cur);
    }
  }
  return byKey.size;
}
