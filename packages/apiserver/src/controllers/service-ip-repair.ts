// What kube-apiserver's own controllers keep true of Service addresses (kube 1.37):
// - the default ServiceCIDR `kubernetes` (defaultservicecidr controller) exists, holding the
//   service range, Ready; deleted, it is made again by its next 10 s sync;
// - the ipallocator repair controller (repairip.go): a Service whose address has no IPAddress
//   gets it again when the Service is written, on start and every 3 minutes; an IPAddress of
//   the allocator naming no Service is deleted once it is 60 s old.
import type { ManagedFieldsEntry } from "kubernetes-types/meta/v1.js";
import type { ServerContext } from "../handlers/context.js";
import {
  ALLOCATOR_NAME,
  DEFAULT_SERVICE_CIDR_NAME,
  IPADDRESS_STORE,
  ipAddressFor,
  MANAGED_BY,
  SERVICE_CIDR,
  SERVICE_CIDR_STORE,
  serviceRanges,
  ipv4ToNumber,
} from "../kinds/service-allocation.js";
import { createAsSystem, deleteAsSystem } from "../object/system-writes.js";
import type { Obj } from "../storage/index.js";

/** kube's defaultservicecidr interval and its repairLoopInterval. */
const CIDR_SYNC_MS = 10_000;
const REPAIR_MS = 3 * 60_000;
/** How long an IPAddress of the allocator may name no Service (repairip's grace period). */
const LEAK_GRACE_MS = 60_000;

/** The managedFields of the status kube's default ServiceCIDR controller applies. */
const cidrStatusFields = (time: string): ManagedFieldsEntry[] => [
  {
    manager: "kubernetes-service-cidr-controller",
    operation: "Apply",
    apiVersion: "networking.k8s.io/v1",
    time,
    fieldsType: "FieldsV1",
    fieldsV1: {
      "f:status": {
        "f:conditions": {
          'k:{"type":"Ready"}': {
            ".": {},
            "f:lastTransitionTime": {},
            "f:message": {},
            "f:status": {},
            "f:type": {},
          },
        },
      },
    },
    subresource: "status",
  },
];

export class ServiceIPRepair {
  readonly #server: () => ServerContext;
  readonly #signal: AbortSignal;
  readonly #onError: (err: unknown) => void;
  /** IPAddresses of the allocator found naming no Service, by name: when they were created. */
  readonly #suspects = new Map<string, number>();
  #leakTimer: NodeJS.Timeout | undefined;

  constructor(server: () => ServerContext, signal: AbortSignal, onError: (err: unknown) => void) {
    this.#server = server;
    this.#signal = signal;
    this.#onError = onError;
    signal.addEventListener("abort", () => clearTimeout(this.#leakTimer), { once: true });
  }

  /** Makes the default ServiceCIDR if it is missing (a fresh server, or one deleted it). */
  ensureDefaultServiceCIDR(): void {
    const server = this.#server();
    if (server.storage.get(SERVICE_CIDR_STORE, DEFAULT_SERVICE_CIDR_NAME)) return;
    const cidr: Obj = {
      kind: "ServiceCIDR",
      apiVersion: "networking.k8s.io/v1",
      metadata: { name: DEFAULT_SERVICE_CIDR_NAME },
      spec: { cidrs: [SERVICE_CIDR] },
      status: {
        conditions: [
          {
            type: "Ready",
            status: "True",
            lastTransitionTime: "",
            reason: "",
            message: "Kubernetes default Service CIDR is ready",
          },
        ],
      },
    };
    createAsSystem(server, "networking.k8s.io", "servicecidrs", cidr, "kube-apiserver", (time) => {
      ((cidr.status as Obj).conditions as Obj[])[0].lastTransitionTime = time;
      return cidrStatusFields(time);
    });
  }

  /** Once the server serves: the first repair, then kube's loops. */
  start(): void {
    this.#guard(() => {
      this.ensureDefaultServiceCIDR();
      this.#repairAll();
    });
    const cidrLoop = setInterval(() => this.#guard(() => this.ensureDefaultServiceCIDR()), CIDR_SYNC_MS);
    const repairLoop = setInterval(() => this.#guard(() => this.#repairAll()), REPAIR_MS);
    cidrLoop.unref();
    repairLoop.unref();
    this.#signal.addEventListener(
      "abort",
      () => {
        clearInterval(cidrLoop);
        clearInterval(repairLoop);
      },
      { once: true },
    );
  }

  /** A Service was written: its addresses get their IPAddresses back (syncService). */
  serviceWritten(svc: Readonly<Obj>): void {
    this.#guard(() => this.#syncService(svc));
  }

  /** An IPAddress was written: one of the allocator's naming no Service is watched (syncIPAddress). */
  ipAddressWritten(ip: Readonly<Obj>): void {
    const meta = (ip.metadata ?? {}) as Obj;
    if ((meta.labels as Obj | undefined)?.[MANAGED_BY] !== ALLOCATOR_NAME) return;
    const created = Date.parse(String(meta.creationTimestamp ?? "")) || this.#server().now().getTime();
    this.#suspects.set(String(meta.name), created);
    this.#scheduleLeakCheck();
  }

  #guard(f: () => void): void {
    if (this.#signal.aborted) return;
    try {
      f();
    } catch (e) {
      this.#onError(e);
    }
  }

  #repairAll(): void {
    const server = this.#server();
    for (const s of server.storage.list("/services")) this.#syncService(s.obj);
    for (const ip of server.storage.list(IPADDRESS_STORE)) this.ipAddressWritten(ip.obj);
  }

  #syncService(svc: Readonly<Obj>): void {
    const server = this.#server();
    const spec = (svc.spec ?? {}) as Obj;
    const meta = (svc.metadata ?? {}) as Obj;
    if (meta.deletionTimestamp === undefined && spec.type === "ExternalName") return;
    const ranges = serviceRanges(server.storage);
    const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
    for (const ip of ips) {
      if (typeof ip !== "string" || ip === "None" || ip === "") continue;
      const n = ipv4ToNumber(ip);
      // Addresses outside every range are reported by kube (an event), not repaired.
      if (n === undefined || !ranges.some((r) => n >= r.first && n <= r.last)) continue;
      if (server.storage.get(IPADDRESS_STORE, ip)) continue;
      createAsSystem(
        server,
        "networking.k8s.io",
        "ipaddresses",
        ipAddressFor(ip, String(meta.namespace ?? ""), String(meta.name ?? "")),
        "kube-apiserver",
      );
    }
  }

  #scheduleLeakCheck(): void {
    if (this.#leakTimer !== undefined || this.#suspects.size === 0 || this.#signal.aborted) return;
    const now = this.#server().now().getTime();
    const due = Math.min(...this.#suspects.values()) + LEAK_GRACE_MS;
    this.#leakTimer = setTimeout(
      () => {
        this.#leakTimer = undefined;
        this.#guard(() => this.#checkLeaks());
        this.#scheduleLeakCheck();
      },
      Math.max(0, due - now) + 100,
    );
    this.#leakTimer.unref();
  }

  /** Deletes the allocator's IPAddresses older than the grace period that name no Service. */
  #checkLeaks(): void {
    const server = this.#server();
    const now = server.now().getTime();
    for (const [name, created] of this.#suspects) {
      const found = server.storage.get(IPADDRESS_STORE, name);
      const ref = ((found?.obj.spec as Obj | undefined)?.parentRef ?? {}) as Obj;
      const owner =
        ref.resource === "services" && !ref.group
          ? server.storage.get("/services", `${String(ref.namespace ?? "")}/${String(ref.name ?? "")}`)
          : undefined;
      const holds =
        owner !== undefined &&
        Array.isArray((owner.obj.spec as Obj | undefined)?.clusterIPs) &&
        ((owner.obj.spec as Obj).clusterIPs as unknown[]).includes(name);
      if (!found || holds) {
        this.#suspects.delete(name);
        continue;
      }
      if (now - created < LEAK_GRACE_MS) continue;
      this.#suspects.delete(name);
      deleteAsSystem(server, "networking.k8s.io", "ipaddresses", name);
    }
  }
}
