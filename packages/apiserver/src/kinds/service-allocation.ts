// The ClusterIPs and NodePorts Services hold, as kube-apiserver 1.37's allocators keep them.
// ClusterIPs: the IPAddress allocator (MultiCIDRServiceAllocator, GA, without the old bitmap's
// dual write): every address a Service holds is an IPAddress object (networking.k8s.io/v1) named
// by it, created before the Service is stored and deleted once the Service is gone; an address
// is free exactly when no IPAddress names it (one created by hand blocks it too), and addresses
// come from the ServiceCIDRs (the default `kubernetes` one holds envtest's
// --service-cluster-ip-range, 10.0.0.0/24). NodePorts: the default --service-node-port-range
// 30000-32767, rebuilt from the stored Services on every use (kube's bitmap and repair loop,
// without their delay): what a restart finds in storage is allocated, and what a delete removes
// is free again.
import type { Obj } from "../storage/index.js";

/** envtest's --service-cluster-ip-range (src/envtest/control-plane.ts): the default ServiceCIDR. */
export const SERVICE_CIDR = "10.0.0.0/24";
/** The default ServiceCIDR kube-apiserver keeps (defaultservicecidr.DefaultServiceCIDRName). */
export const DEFAULT_SERVICE_CIDR_NAME = "kubernetes";
export const IPADDRESS_STORE = "networking.k8s.io/ipaddresses";
export const SERVICE_CIDR_STORE = "networking.k8s.io/servicecidrs";
/** The label kube's allocator marks its IPAddresses with, and its value (ipallocator.ControllerName). */
export const MANAGED_BY = "ipaddress.kubernetes.io/managed-by";
export const ALLOCATOR_NAME = "ipallocator.k8s.io";
export const IP_FAMILY_LABEL = "ipaddress.kubernetes.io/ip-family";

/** kube-apiserver's DefaultServiceNodePortRange. */
export const NODE_PORT_BASE = 30000;
export const NODE_PORT_SIZE = 2768;
const NODE_PORT_RANGE = `${NODE_PORT_BASE}-${NODE_PORT_BASE + NODE_PORT_SIZE - 1}`;

/** Why an allocation failed, in kube's allocators' words. */
export class AllocationError extends Error {}

interface StorageLike {
  list(store: string): { key: string; obj: Readonly<Obj> }[];
  get(store: string, key: string): { obj: Readonly<Obj> } | undefined;
}

/** An IPv4 range an allocator serves: its usable addresses and where dynamic picks start. */
interface Range {
  cidr: string;
  network: number;
  /** The first and last usable addresses (the network and broadcast addresses are not). */
  first: number;
  last: number;
  /** calculateRangeOffset: dynamic addresses come from above first + offset before below it. */
  offset: number;
  ready: boolean;
}

function ipv4Range(cidr: string, ready: boolean): Range | undefined {
  const slash = cidr.indexOf("/");
  const network = ipv4ToNumber(cidr.slice(0, slash));
  const bits = Number(cidr.slice(slash + 1));
  if (network === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return undefined;
  const size = 2 ** (32 - bits);
  // Go's netutils: /31 and /32 keep every address; wider ranges lose network and broadcast.
  const first = bits >= 31 ? network : network + 1;
  const last = bits >= 31 ? network + size - 1 : network + size - 2;
  const offset = size <= 16 ? 0 : Math.min(256, Math.max(16, Math.floor(size / 16)));
  return { cidr, network, first, last, offset, ready };
}

/**
 * The IPv4 ranges of the stored ServiceCIDRs (kube's MetaAllocator keeps one allocator per
 * CIDR of the cluster's family): ready unless their Ready condition is False or they are being
 * deleted. The default ServiceCIDR comes first (the one a dry run checks against).
 */
export function serviceRanges(storage: StorageLike): Range[] {
  const byCidr = new Map<string, Range>();
  const cidrs = storage.list(SERVICE_CIDR_STORE).sort((a, b) => {
    const rank = (k: string) => (k === DEFAULT_SERVICE_CIDR_NAME ? 0 : 1);
    return rank(a.key) - rank(b.key) || a.key.localeCompare(b.key);
  });
  for (const { obj } of cidrs) {
    const meta = (obj.metadata ?? {}) as Obj;
    const conditions = ((obj.status as Obj | undefined)?.conditions ?? []) as Obj[];
    const readyCondition = Array.isArray(conditions)
      ? conditions.find((c) => c?.type === "Ready")
      : undefined;
    const ready =
      (readyCondition === undefined || readyCondition.status === "True") && !meta.deletionTimestamp;
    const list = (obj.spec as Obj | undefined)?.cidrs;
    for (const cidr of Array.isArray(list) ? list : []) {
      if (typeof cidr !== "string" || !cidr.includes(".")) continue;
      const known = byCidr.get(cidr);
      if (known) known.ready ||= ready;
      else {
        const range = ipv4Range(cidr, ready);
        if (range) byCidr.set(cidr, range);
      }
    }
  }
  return [...byCidr.values()];
}

/**
 * ClusterIP choices for one Service (kube's MetaAllocator): which addresses a create takes. The
 * IPAddress objects themselves are written by the caller (the Service's kind), after the choice.
 */
export class ClusterIPAllocator {
  readonly #storage: StorageLike;
  readonly #ranges: Range[];
  /** Chosen in this request, not yet written. */
  readonly #chosen = new Set<string>();

  constructor(storage: StorageLike) {
    this.#storage = storage;
    this.#ranges = serviceRanges(storage);
  }

  #taken(ip: string): boolean {
    return this.#chosen.has(ip) || this.#storage.get(IPADDRESS_STORE, ip) !== undefined;
  }

  /**
   * Reserves `ip` (AllocateService): a ready range must hold it, and no IPAddress may name it. A
   * dry run checks only the first range's bounds, as kube's dry-run allocator does.
   */
  allocate(ip: string, dryRun: boolean): void {
    const n = ipv4ToNumber(ip);
    if (dryRun) {
      const range = this.#ranges[0];
      if (!range) throw new AllocationError("allocator not ready");
      if (n === undefined || n < range.first || n > range.last) {
        throw new AllocationError(
          `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${range.cidr}`,
        );
      }
      return;
    }
    // servicecidr.PrefixContainsIP: the network and broadcast addresses are in no range.
    const inRange = n !== undefined && this.#ranges.some((r) => r.ready && n >= r.first && n <= r.last);
    if (!inRange) throw new AllocationError("the provided network does not match the current range");
    if (this.#taken(ip)) throw new AllocationError("provided IP is already allocated");
    this.#chosen.add(ip);
  }

  /**
   * A free address (AllocateNextService): from a random point above the range's offset,
   * upwards and around, then below the offset likewise. A dry run answers the first range's
   * network address without looking, as kube's does.
   */
  allocateNext(dryRun: boolean): string {
    if (dryRun) {
      const range = this.#ranges[0];
      if (!range) throw new AllocationError("allocator not ready");
      return numberToIPv4(range.network);
    }
    // kube iterates its allocators in Go's map order: any of them.
    const ranges = this.#ranges.filter((r) => r.ready);
    for (let i = ranges.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [ranges[i], ranges[j]] = [ranges[j], ranges[i]];
    }
    for (const range of ranges) {
      const upper = this.#scan(range.first + range.offset, range.last);
      const ip = upper ?? this.#scan(range.first, range.first + range.offset - 1);
      if (ip !== undefined) {
        this.#chosen.add(ip);
        return ip;
      }
    }
    throw new AllocationError("range is full");
  }

  /** The first free address from a random start in [from, to], wrapping around. */
  #scan(from: number, to: number): string | undefined {
    const size = to - from + 1;
    if (size <= 0) return undefined;
    const start = Math.floor(Math.random() * size);
    for (let i = 0; i < size; i++) {
      const ip = numberToIPv4(from + ((start + i) % size));
      if (!this.#taken(ip)) return ip;
    }
    return undefined;
  }
}

/** The NodePorts the stored Services hold, but for the one at `exceptKey` (the Service being updated). */
export class NodePortAllocations {
  readonly ports = new Set<number>();

  constructor(storage: StorageLike, exceptKey?: string) {
    for (const s of storage.list("/services")) {
      if (s.key === exceptKey) continue;
      const spec = (s.obj.spec ?? {}) as Obj;
      for (const p of (spec.ports as Obj[] | undefined) ?? []) {
        if (typeof p?.nodePort === "number" && p.nodePort !== 0) this.ports.add(p.nodePort);
      }
      const health = spec.healthCheckNodePort;
      if (typeof health === "number" && health !== 0) this.ports.add(health);
    }
  }

  /** Reserves `port` (kube's PortAllocationOperation.Allocate); a dry run only looks it up. */
  allocatePort(port: number, dryRun: boolean): void {
    const inRange = port >= NODE_PORT_BASE && port < NODE_PORT_BASE + NODE_PORT_SIZE;
    if (!inRange && !dryRun) {
      throw new AllocationError(
        `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_RANGE}`,
      );
    }
    if (this.ports.has(port)) throw new AllocationError("provided port is already allocated");
    this.ports.add(port);
  }

  /** A free node port, at random. */
  allocateNextPort(): number {
    if (this.ports.size >= NODE_PORT_SIZE) throw new AllocationError("range is full");
    let port: number;
    do port = NODE_PORT_BASE + Math.floor(Math.random() * NODE_PORT_SIZE);
    while (this.ports.has(port));
    this.ports.add(port);
    return port;
  }
}

export function ipv4ToNumber(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

function numberToIPv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** The IPAddress kube's allocator writes for an address a Service holds (newIPAddress). */
export function ipAddressFor(ip: string, namespace: string, name: string): Obj {
  return {
    kind: "IPAddress",
    apiVersion: "networking.k8s.io/v1",
    metadata: {
      name: ip,
      labels: { [IP_FAMILY_LABEL]: ip.includes(":") ? "IPv6" : "IPv4", [MANAGED_BY]: ALLOCATOR_NAME },
    },
    // ParentReference.group is omitempty: the core group is not written.
    spec: { parentRef: { resource: "services", namespace, name } },
  };
}
