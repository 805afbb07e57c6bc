// The StorageBucket controller: reconciles every bucket once per probe interval (a ticker feeding
// a channel source) and whenever its spec changes. Each reconcile probes the bucket and records
// the finding in status.conditions, with an Event when the finding changes.
import { deepCopy, findStatusCondition, setStatusCondition, type DeepReadonly } from "controller-runtime/api";
import type { Client } from "controller-runtime/client";
import { mergeFrom } from "controller-runtime/client";
import { controllerManagedBy } from "controller-runtime/builder";
import type { GenericEvent } from "controller-runtime/event";
import { enqueueRequestsFromMapFunc } from "controller-runtime/handler";
import type { Manager } from "controller-runtime/manager";
import { generationChanged } from "controller-runtime/predicate";
import type { EventRecorder } from "controller-runtime/recorder";
import {
  type ReconcileContext,
  type Reconciler,
  type Request,
  requestOf,
} from "controller-runtime/reconcile";
import { isNotFound } from "controller-runtime/rest";
import { newChannel } from "controller-runtime/source";
import { conditionAvailable, StorageBucket } from "./api.js";
import { headBucket } from "./probe.js";
import { newTicker } from "./ticker.js";

export interface StorageBucketControllerOptions {
  /** How often every bucket is probed. */
  probeIntervalMs: number;
  /**
   * Share the buckets with the other replicas of the Manager's ring (it needs the `sharding`
   * option), each probing its own. Default: false (the leader probes them all).
   */
  sharded?: boolean;
}

export class StorageBucketReconciler implements Reconciler {
  constructor(
    private readonly client: Client,
    private readonly recorder: EventRecorder,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async reconcile(req: Request, { signal, logger }: ReconcileContext): Promise<void> {
    let bucket: DeepReadonly<StorageBucket>;
    try {
      bucket = await this.client.get(StorageBucket, req, { signal });
    } catch (err) {
      if (isNotFound(err)) return; // deleted: nothing outside the cluster to clean up
      throw err;
    }
    const spec = bucket.spec;
    if (!spec) return;

    const found = await headBucket(spec.endpoint, spec.bucketName, {
      timeoutMs: (spec.probe?.timeoutSeconds ?? 5) * 1000,
      signal,
    });
    const generation = bucket.metadata?.generation;
    const previous = findStatusCondition(bucket.status?.conditions, conditionAvailable);
    const updated = deepCopy(bucket);
    updated.status = { ...updated.status, observedGeneration: generation };
    updated.status.conditions ??= [];
    const changed = setStatusCondition(
      updated.status.conditions,
      { type: conditionAvailable, ...found, observedGeneration: generation },
      this.now(),
    );
    // Most probes find what the last one found: write nothing then, and the API server and
    // the other watchers of StorageBuckets are spared an update every interval.
    if (!changed && bucket.status?.observedGeneration === generation) return;

    await this.client.status().patch(updated, mergeFrom(bucket));
    logger.info("bucket probed", { available: found.status, reason: found.reason });

    if (previous?.status !== found.status || previous?.reason !== found.reason) {
      this.recorder.event(
        bucket,
        found.status === "True" ? "Normal" : "Warning",
        found.reason,
        found.message,
      );
    }
  }
}

/** Adds the controller and its ticker to `mgr`, as kubebuilder's SetupWithManager. */
export function setupStorageBucketController(
  mgr: Manager,
  client: Client,
  opts: StorageBucketControllerOptions,
): void {
  // Outside events enter through a channel: the ticker sends, the controller's source reads.
  const ticks = newChannel<GenericEvent>();
  mgr.add(newTicker(ticks, opts.probeIntervalMs, { leaderElected: !opts.sharded }));

  // A tick is about no object in particular: it stands for every bucket, listed from the cache.
  const everyBucket = enqueueRequestsFromMapFunc(async (_obj, { signal }) => {
    const buckets = await mgr.getCache().list(StorageBucket, { signal });
    return buckets.items.map(requestOf);
  });

  controllerManagedBy(mgr)
    // Our own status writes bump no generation: they must not trigger another probe.
    .for(StorageBucket, { predicates: [generationChanged()], sharded: opts.sharded ?? false })
    .watches(ticks, everyBucket)
    .complete(new StorageBucketReconciler(client, mgr.getEventRecorderFor("storagebucket-controller")));
}
