// The Lease lock: a `coordination.k8s.io/v1` Lease holds the record in its spec, as client-go's
// `resourcelock.LeaseLock`. Reads are a GET; creation a POST (a concurrent creator loses with
// 409 AlreadyExists); every write after that is a PUT of the whole Lease carrying the
// resourceVersion last seen, so of two candidates racing for an expired lease exactly one wins.
import type { Lease } from "kubernetes-types/coordination/v1.js";
import { kinds } from "../api/index.js";
import { isNotFound, type RESTClient, resourceOf } from "../rest/index.js";
import { defaultIdentity } from "./identity.js";
import type { LockReading, ResourceLock } from "./lock.js";
import {
  type LeaderElectionRecord,
  leaseSpecToRecord,
  recordFingerprint,
  recordToLeaseSpec,
} from "./record.js";

const LEASES = resourceOf(kinds.Lease);

export interface LeaseLockOptions {
  /** The REST client writes go through. Required. */
  client: RESTClient;
  /** Namespace of the Lease. Required. */
  namespace: string;
  /** Name of the Lease (controller-runtime's `leaderElectionID`). Required. */
  name: string;
  /** Our holder identity, unique per replica. Default: `defaultIdentity()` (hostname_uuid). */
  identity?: string;
  /** Labels put on the Lease when this lock creates or updates it (others are kept). Default: none. */
  labels?: Record<string, string>;
}

/** A lock on the Lease `namespace/name`. Does no I/O until the elector calls it. */
export function newLeaseLock(opts: LeaseLockOptions): ResourceLock {
  if (!opts.namespace || !opts.name) {
    throw new TypeError("newLeaseLock: namespace and name of the Lease are required");
  }
  return new LeaseLock(opts, opts.identity ?? defaultIdentity());
}

class LeaseLock implements ResourceLock {
  /** The Lease as last read or written: its resourceVersion guards the next update. */
  private lease: Lease | undefined;

  constructor(
    private readonly opts: LeaseLockOptions,
    readonly identity: string,
  ) {}

  describe(): string {
    return `${this.opts.namespace}/${this.opts.name}`;
  }

  async get(signal: AbortSignal): Promise<LockReading | undefined> {
    try {
      this.lease = await this.opts.client.get<Lease>(LEASES, this.opts.name, {
        namespace: this.opts.namespace,
        signal,
      });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    const record = leaseSpecToRecord(this.lease.spec);
    return { record, fingerprint: recordFingerprint(record) };
  }

  async create(record: LeaderElectionRecord, signal: AbortSignal): Promise<void> {
    const lease: Lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { namespace: this.opts.namespace, name: this.opts.name },
      spec: recordToLeaseSpec(record),
    };
    if (this.opts.labels) lease.metadata!.labels = { ...this.opts.labels };
    this.lease = await this.opts.client.create(LEASES, lease, { namespace: this.opts.namespace, signal });
  }

  async update(record: LeaderElectionRecord, signal: AbortSignal): Promise<void> {
    if (!this.lease) {
      throw new Error(`lease ${this.describe()} not read yet: call get() or create() before update()`);
    }
    const lease: Lease = { ...this.lease, spec: recordToLeaseSpec(record) };
    // As client-go: our labels are put back on every update (a Lease made by an older replica,
    // or relabelled by hand, gets them), and labels we do not set are left alone.
    if (this.opts.labels) {
      lease.metadata = { ...lease.metadata, labels: { ...lease.metadata?.labels, ...this.opts.labels } };
    }
    this.lease = await this.opts.client.update(LEASES, lease, { namespace: this.opts.namespace, signal });
  }
}
