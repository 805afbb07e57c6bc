// The ClusterIPs and NodePorts Services hold, as kube-apiserver's allocators keep them: ClusterIPs
// from the service CIDR envtest gives kube-apiserver (--service-cluster-ip-range=10.0.0.0/24),
// NodePorts from the default --service-node-port-range 30000-32767. The registry is rebuilt from
// the stored Services on every use (kube's repair loops, without their delay): what a restart
// finds in storage is allocated, and what a delete removes is free again.
import type { Obj } from "../storage/index.js";

/** envtest's --service-cluster-ip-range (src/envtest/control-plane.ts). */
export const SERVICE_CIDR = "10.0.0.0/24";
const CIDR_BASE = 10 << 24;
const CIDR_SIZE = 256;
/** kube's calculateRangeOffset for a /24: dynamic addresses come from above it first. */
const RANGE_OFFSET = 16;

/** kube-apiserver's DefaultServiceNodePortRange. */
export const NODE_PORT_BASE = 30000;
export const NODE_PORT_SIZE = 2768;
const NODE_PORT_RANGE = `${NODE_PORT_BASE}-${NODE_PORT_BASE + NODE_PORT_SIZE - 1}`;

/** Why an allocation failed, in kube's allocators' words. */
export class AllocationError extends Error {}

interface StorageLike {
  list(store: string): { key: string; obj: Readonly<Obj> }[];
}

/** What the stored Services hold, but for the one at `exceptKey` (the Service being updated). */
export class ServiceAllocations {
  readonly ips = new Set<string>();
  readonly ports = new Set<number>();

  constructor(storage: StorageLike, exceptKey?: string) {
    for (const s of storage.list("/services")) {
      if (s.key === exceptKey) continue;
      const spec = (s.obj.spec ?? {}) as Obj;
      const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP];
      for (const ip of ips) if (typeof ip === "string" && ip !== "" && ip !== "None") this.ips.add(ip);
      for (const p of (spec.ports as Obj[] | undefined) ?? []) {
        if (typeof p?.nodePort === "number" && p.nodePort !== 0) this.ports.add(p.nodePort);
      }
      const health = spec.healthCheckNodePort;
      if (typeof health === "number" && health !== 0) this.ports.add(health);
    }
  }

  /**
   * Reserves `ip` (kube's MetaAllocator.AllocateService). A dry run checks the range only, as
   * kube's dry-run allocator does.
   */
  allocateIP(ip: string, dryRun: boolean): void {
    const n = ipv4ToNumber(ip);
    // servicecidr.PrefixContainsIP: the network and broadcast addresses are not in the CIDR.
    const usable = n !== undefined && n > CIDR_BASE && n < CIDR_BASE + CIDR_SIZE - 1;
    if (!usable && !dryRun)
      throw new AllocationError("the provided network does not match the current range");
    if (!usable) {
      throw new AllocationError(
        `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`,
      );
    }
    if (dryRun) return;
    if (this.ips.has(ip)) throw new AllocationError("provided IP is already allocated");
    this.ips.add(ip);
  }

  /**
   * A free address: at random above the range offset, then below it, as kube's allocator
   * chooses. A dry run answers the network's address without looking, as kube's does.
   */
  allocateNextIP(dryRun: boolean): string {
    if (dryRun) return numberToIPv4(CIDR_BASE);
    const pick = (from: number, to: number): string | undefined => {
      const free: number[] = [];
      for (let i = from; i <= to; i++) if (!this.ips.has(numberToIPv4(CIDR_BASE + i))) free.push(i);
      if (free.length === 0) return undefined;
      return numberToIPv4(CIDR_BASE + free[Math.floor(Math.random() * free.length)]);
    };
    const ip = pick(RANGE_OFFSET + 1, CIDR_SIZE - 2) ?? pick(1, RANGE_OFFSET);
    if (ip === undefined) throw new AllocationError("range is full");
    this.ips.add(ip);
    return ip;
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

function ipv4ToNumber(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

function numberToIPv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}
