// The leader election record: what a lock stores, independent of the resource holding it, as
// client-go's `resourcelock.LeaderElectionRecord`. For a Lease it maps onto `spec`.
import type { LeaseSpec } from "kubernetes-types/coordination/v1.js";

export interface LeaderElectionRecord {
  /** Who holds the lock; `""` when it was released. */
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** Wall-clock time the holder acquired the lock. */
  acquireTime: Date;
  /** Wall-clock time the holder last renewed the lock. */
  renewTime: Date;
  /** How many times the lock changed holder. */
  leaderTransitions: number;
}

/**
 * A `metav1.MicroTime` as the API server writes it: `2006-01-02T15:04:05.000000Z`. JavaScript
 * dates carry milliseconds, so the last three digits are zeros.
 */
export function formatMicroTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** Parses a MicroTime (or any RFC 3339 time); an absent or unparsable value gives the epoch. */
export function parseMicroTime(s: string | undefined): Date {
  if (!s) return new Date(0);
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? new Date(0) : d;
}

/** The Lease spec holding `r`. */
export function recordToLeaseSpec(r: LeaderElectionRecord): LeaseSpec {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    acquireTime: formatMicroTime(r.acquireTime),
    renewTime: formatMicroTime(r.renewTime),
    leaseTransitions: r.leaderTransitions,
  };
}

/** The record a Lease spec holds; absent fields read as zero values, as client-go does. */
export function leaseSpecToRecord(spec: LeaseSpec | undefined): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? "",
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: parseMicroTime(spec?.acquireTime),
    renewTime: parseMicroTime(spec?.renewTime),
    leaderTransitions: spec?.leaseTransitions ?? 0,
  };
}

/**
 * A canonical string of a record, to tell whether the lock changed since we last looked (client-go
 * compares the raw bytes of the record for the same purpose).
 */
export function recordFingerprint(r: LeaderElectionRecord): string {
  return JSON.stringify([
    r.holderIdentity,
    r.leaseDurationSeconds,
    r.acquireTime.getTime(),
    r.renewTime.getTime(),
    r.leaderTransitions,
  ]);
}
