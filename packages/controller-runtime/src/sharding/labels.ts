// The labels sharding writes, readable with kubectl: `kubectl get cm -L shard.controller-runtime.io/<ring>`
// shows each object's shard.
import type { DeepReadonly, KubeObject } from "../api/index.js";

/** On each object of a sharded kind: the identity of the replica that reconciles it. */
export const shardLabel = (ring: string) => `shard.controller-runtime.io/${ring}`;
/**
 * Written by earlier versions' coordinators on an object being moved: the shard it goes to. Its
 * shard finishes with it, then writes that shard in its own place (`"true"`: it removes both
 * labels, and the coordinator assigns the object again). Shards now hand objects over without it
 * (hand-over.ts) but still answer it, so that a ring can be upgraded one replica at a time.
 */
export const drainLabel = (ring: string) => `drain.shard.controller-runtime.io/${ring}`;
/** On each replica's Lease: the ring it belongs to. */
export const RING_LABEL = "sharding.controller-runtime.io/ring";

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Why `ring` or `identity` cannot be used, or undefined: both name a Lease (`<ring>-<identity>`)
 * and appear in labels, so both are DNS labels (lower case) and the ring a label name part.
 */
export function namingError(ring: string, identity: string): string | undefined {
  if (!NAME.test(ring) || ring.length > 40) {
    return `sharding: ring ${JSON.stringify(ring)} must be at most 40 lower-case letters, digits and '-', starting and ending with a letter or digit`;
  }
  if (!NAME.test(identity) || identity.length > 63) {
    return `sharding: identity ${JSON.stringify(identity)} must be at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit`;
  }
  return undefined;
}

export function labelsOf(obj: DeepReadonly<KubeObject>): Readonly<Record<string, string>> {
  return obj.metadata?.labels ?? {};
}

/** A label key as a JSON pointer segment (RFC 6901: `~` and `/` escaped). */
export function pointer(label: string): string {
  return `/metadata/labels/${label.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}
