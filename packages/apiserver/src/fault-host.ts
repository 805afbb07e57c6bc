// The embedded server as envtest's fault layer acts on it: its storage (Leases to steal, a history
// to compact) and its sockets (to drop).
import type { FaultHost } from "controller-runtime/envtest/faults";
import type { Obj, Storage } from "./storage/index.js";
import { cloneJson } from "./object/deep-json.js";

/** Where the embedded server stores Leases (`storeNameOf` of coordination.k8s.io's leases). */
const LEASES = "coordination.k8s.io/leases";

/** The host of the embedded server: its storage and its sockets. */
export function storageHost(storage: Storage, dropConnections: () => void, now: () => Date): FaultHost {
  return {
    dropConnections,
    getLease: async (namespace, name) => {
      const stored = storage.get(LEASES, `${namespace}/${name}`);
      return stored ? (cloneJson(stored.obj) as Obj) : undefined;
    },
    putLease: async (lease) => {
      storage.put(LEASES, lease);
      return true;
    },
    compact: (rv) => storage.history.compact(rv ?? storage.resourceVersion),
    now,
  };
}
