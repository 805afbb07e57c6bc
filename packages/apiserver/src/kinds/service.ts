// Services: type ClusterIP by default with an address and node ports reserved as kube's
// allocators reserve them (service-allocation.ts: an IPAddress object per ClusterIP), IP family
// fields as kube's initIPFamilyFields sets them on a single-stack IPv4 cluster, port protocol and
// targetPort defaults, and the required ports.
import { isIP } from "node:net";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { labelCauses } from "../object/meta.js";
import { dns1123LabelErrors } from "../object/names.js";
import { createAsSystem, deleteAsSystem } from "../object/system-writes.js";
import { portNameErrors, portNumberErrors } from "./pod.js";
import type { ServerContext } from "../handlers/context.js";
import { type ApiError, cause, internalError, invalid } from "../status.js";
import {
  AllocationError,
  ClusterIPAllocator,
  IPADDRESS_STORE,
  ipAddressFor,
  NodePortAllocations,
} from "./service-allocation.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

const SERVICES = { group: "", resource: "services", kind: "Service" };

/** kube's allocators' refusal: a 422 on the field, as its Store's BeginCreate/BeginUpdate answers. */
function refused(obj: Obj, field: string, value: string, why: string): ApiError {
  const name = String((obj.metadata as Obj | undefined)?.name ?? "");
  return invalid(SERVICES, name, [
    { reason: "FieldValueInvalid", message: `Invalid value: ${value}: ${why}`, field },
  ]);
}

const isHeadless = (spec: Obj) => spec.clusterIP === "None";
const hasSelector = (spec: Obj) =>
  spec.selector !== null && typeof spec.selector === "object" && Object.keys(spec.selector).length > 0;

const IP_FAMILIES = ["IPv4", "IPv6"];
const IP_FAMILY_POLICIES = ["PreferDualStack", "RequireDualStack", "SingleStack"];

/** IsValidIPForLegacyField with StrictIPCIDRValidation (beta, on in 1.37). */
export function legacyIPErrors(value: string): string[] {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(value);
  if (v4) {
    if (v4.slice(1).some((o) => Number(o) > 255))
      return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"];
    return v4.slice(1).some((o) => o.length > 1 && o.startsWith("0")) ? ["must not have leading 0s"] : [];
  }
  if (isIP(value) !== 6) return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"];
  return /^::ffff:(\d{1,3}\.){3}\d{1,3}$/i.test(value) ? ["must not be an IPv4-mapped IPv6 address"] : [];
}

/** kube's ValidateServiceClusterIPsRelatedFields, as initIPFamilyFields calls it first. */
function clusterIPsRelatedCauses(spec: Obj, oldSpec: Obj | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const ips = Array.isArray(spec.clusterIPs) ? (spec.clusterIPs as unknown[]) : [];
  const clusterIP = typeof spec.clusterIP === "string" ? spec.clusterIP : "";
  if (clusterIP !== "") {
    if (ips.length === 0) causes.push(cause.required("spec.clusterIPs"));
    else if (ips[0] !== clusterIP)
      causes.push(cause.invalid("spec.clusterIPs", ips, "first value must match `clusterIP`"));
  } else if (ips.length !== 0) {
    causes.push(cause.invalid("spec.clusterIPs", ips, "must be empty when `clusterIP` is not specified"));
  }
  const seen = new Set<unknown>();
  (Array.isArray(spec.ipFamilies) ? (spec.ipFamilies as unknown[]) : []).forEach((f, i) => {
    if (!IP_FAMILIES.includes(f as string))
      causes.push(cause.notSupported(`spec.ipFamilies[${i}]`, f, IP_FAMILIES));
    if (seen.has(f)) causes.push(cause.duplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  const policy = spec.ipFamilyPolicy;
  if (policy !== undefined && policy !== null && !IP_FAMILY_POLICIES.includes(policy as string)) {
    causes.push(cause.notSupported("spec.ipFamilyPolicy", policy, IP_FAMILY_POLICIES));
  }
  const existing = Array.isArray(oldSpec?.clusterIPs) ? (oldSpec.clusterIPs as unknown[]) : [];
  let invalidIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === "None") {
      if (ips.length > 1) {
        invalidIPs = true;
        causes.push(cause.invalid("spec.clusterIPs", ips, "'None' must be the first and only value"));
      }
      return;
    }
    if (existing.includes(ip)) return;
    for (const m of legacyIPErrors(String(ip))) {
      invalidIPs = true;
      causes.push(cause.invalid(`spec.clusterIPs[${i}]`, ip, m));
    }
  });
  if (ips.length > 2) causes.push(cause.invalid("spec.clusterIPs", ips, "may only hold up to 2 values"));
  if (invalidIPs) return causes;
  const isV6 = (ip: unknown) => typeof ip === "string" && ip.includes(":");
  if (ips.length > 1 && isV6(ips[0]) === isV6(ips[1])) {
    causes.push(cause.invalid("spec.clusterIPs", ips, "may specify no more than one IP for each IP family"));
  }
  const families = Array.isArray(spec.ipFamilies) ? (spec.ipFamilies as unknown[]) : [];
  if (!isHeadless(spec)) {
    ips.forEach((ip, i) => {
      if (i >= families.length) return;
      if (families[i] === "IPv4" && isV6(ip))
        causes.push(
          cause.invalid(
            `spec.clusterIPs[${i}]`,
            ip,
            `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``,
          ),
        );
      if (families[i] === "IPv6" && !isV6(ip))
        causes.push(
          cause.invalid(
            `spec.clusterIPs[${i}]`,
            ip,
            `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``,
          ),
        );
    });
  }
  return causes;
}

/**
 * kube's initIPFamilyFields on a cluster whose only family is IPv4 (envtest's single-stack
 * range): the policy defaults to SingleStack (RequireDualStack for a headless Service without a
 * selector, which lists both families whatever the cluster), the families follow the addresses,
 * and what needs a second family is refused.
 */
function initIPFamilyFields(obj: Obj, spec: Obj, oldSpec: Obj | undefined): void {
  if (spec.type === "ExternalName") return;
  if (spec.ipFamilyPolicy === undefined || spec.ipFamilyPolicy === null) {
    if (oldSpec?.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
    else spec.ipFamilyPolicy = isHeadless(spec) && !hasSelector(spec) ? "RequireDualStack" : "SingleStack";
  }
  const name = String((obj.metadata as Obj | undefined)?.name ?? "");
  const related = clusterIPsRelatedCauses(spec, oldSpec);
  if (related.length > 0) throw invalid(SERVICES, name, related);
  const causes: StatusCause[] = [];
  const ips = Array.isArray(spec.clusterIPs) ? (spec.clusterIPs as unknown[]) : [];
  const families = Array.isArray(spec.ipFamilies) ? [...(spec.ipFamilies as unknown[])] : [];
  if (spec.ipFamilyPolicy === "SingleStack") {
    if (ips.length === 2) {
      causes.push(
        cause.invalid(
          "spec.ipFamilyPolicy",
          spec.ipFamilyPolicy,
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
        ),
      );
    }
    if (families.length === 2) {
      causes.push(
        cause.invalid(
          "spec.ipFamilyPolicy",
          spec.ipFamilyPolicy,
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
        ),
      );
    }
  }
  for (let i = 0; i < ips.length; i++) {
    const ip = ips[i];
    if (ip === "None") break;
    const family = typeof ip === "string" && ip.includes(":") ? "IPv6" : "IPv4";
    if (i < families.length) continue;
    if (family === "IPv6") {
      causes.push(cause.invalid(`spec.clusterIPs[${i}]`, ips, "IPv6 is not configured on this cluster"));
    } else families.push(family);
  }
  if (causes.length > 0) throw invalid(SERVICES, name, causes);
  if (isHeadless(spec) && !hasSelector(spec)) {
    if (families.length === 0) families.push("IPv4");
    if (families.length < 2 && spec.ipFamilyPolicy !== "SingleStack") {
      families.push(families[0] === "IPv4" ? "IPv6" : "IPv4");
    }
    spec.ipFamilies = families;
    return;
  }
  if (spec.ipFamilyPolicy === "RequireDualStack") {
    causes.push(
      cause.invalid(
        "spec.ipFamilyPolicy",
        spec.ipFamilyPolicy,
        "this cluster is not configured for dual-stack services",
      ),
    );
  }
  families.forEach((f, i) => {
    if (f !== "IPv4")
      causes.push(cause.invalid(`spec.ipFamilies[${i}]`, f, "not configured on this cluster"));
  });
  if (causes.length > 0) throw invalid(SERVICES, name, causes);
  if (families.length === 0) families.push("IPv4");
  spec.ipFamilies = families;
}

/** The ClusterIPs a Service holds: its addresses, none when headless. */
function heldAddresses(spec: Obj | undefined): string[] {
  const ips = Array.isArray(spec?.clusterIPs) ? (spec.clusterIPs as unknown[]) : [spec?.clusterIP];
  return ips.filter((ip): ip is string => typeof ip === "string" && ip !== "" && ip !== "None");
}

/** Releases addresses as kube's allocator does: their IPAddresses are deleted, whoever they name. */
function release(server: ServerContext, ips: readonly string[]): void {
  for (const ip of ips) {
    if (server.storage.get(IPADDRESS_STORE, ip))
      deleteAsSystem(server, "networking.k8s.io", "ipaddresses", ip);
  }
}

/**
 * The cluster IP of a Service becoming one that holds addresses (kube's allocClusterIPs): the
 * one asked for, reserved, or the next free one; none for headless Services. Each address is
 * reserved by writing its IPAddress (not under a dry run); what is written is returned.
 */
function allocateAddresses(obj: Obj, spec: Obj, server: ServerContext, dryRun: boolean): string[] {
  const requested = typeof spec.clusterIP === "string" ? spec.clusterIP : "";
  if (requested !== "None") {
    const allocator = new ClusterIPAllocator(server.storage);
    try {
      if (requested === "") spec.clusterIP = allocator.allocateNext(dryRun);
      else allocator.allocate(requested, dryRun);
    } catch (e) {
      if (!(e instanceof AllocationError)) throw e;
      const asked = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [requested];
      if (requested === "" && e.message === "range is full") {
        throw internalError(
          `failed to allocate a serviceIP for Service ${JSON.stringify(String((obj.metadata as Obj)?.name ?? ""))}: ${e.message}`,
        );
      }
      if (requested === "") {
        throw refused(obj, "spec.clusterIPs", JSON.stringify(asked), `failed to allocate IP: ${e.message}`);
      }
      throw refused(
        obj,
        "spec.clusterIPs",
        JSON.stringify(asked),
        `failed to allocate IP ${requested}: ${e.message}`,
      );
    }
  }
  spec.clusterIPs = [spec.clusterIP];
  if (dryRun || spec.clusterIP === "None") return [];
  const meta = obj.metadata as Obj;
  const ip = spec.clusterIP as string;
  createAsSystem(
    server,
    "networking.k8s.io",
    "ipaddresses",
    ipAddressFor(ip, String(meta.namespace ?? ""), String(meta.name ?? "")),
    "kube-apiserver",
  );
  return [ip];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const externallyAccessible = (spec: Obj) =>
  exposedOnNodes(spec) ||
  (spec.type === "ClusterIP" && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
const needsHealthCheckNodePort = (spec: Obj) =>
  spec.type === "LoadBalancer" && spec.externalTrafficPolicy === "Local";

/**
 * kube's dropTypeDependentFields: what a Service of its old type needed and its new type does
 * not goes, unless the update changed it itself.
 */
function dropTypeDependentFields(spec: Obj, oldSpec: Obj): void {
  if (oldSpec.type !== "ExternalName" && spec.type === "ExternalName") {
    if (spec.clusterIP === oldSpec.clusterIP && same(spec.clusterIPs, oldSpec.clusterIPs)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (same(spec.ipFamilies, oldSpec.ipFamilies)) delete spec.ipFamilies;
    if (spec.ipFamilyPolicy === oldSpec.ipFamilyPolicy) delete spec.ipFamilyPolicy;
  }
  const ports = Array.isArray(spec.ports) ? (spec.ports as Obj[]) : [];
  const nodePorts = (ps: unknown) => (Array.isArray(ps) ? ps.map((p: Obj) => p?.nodePort ?? 0) : []);
  if (exposedOnNodes(oldSpec) && !exposedOnNodes(spec) && same(nodePorts(ports), nodePorts(oldSpec.ports))) {
    for (const p of ports) if (p && typeof p === "object") delete p.nodePort;
  }
  if (
    needsHealthCheckNodePort(oldSpec) &&
    !needsHealthCheckNodePort(spec) &&
    spec.healthCheckNodePort === oldSpec.healthCheckNodePort
  ) {
    delete spec.healthCheckNodePort;
  }
  if (oldSpec.type === "LoadBalancer" && spec.type !== "LoadBalancer") {
    if (
      spec.allocateLoadBalancerNodePorts !== undefined &&
      spec.allocateLoadBalancerNodePorts === oldSpec.allocateLoadBalancerNodePorts
    ) {
      delete spec.allocateLoadBalancerNodePorts;
    }
    if (spec.loadBalancerClass === oldSpec.loadBalancerClass) delete spec.loadBalancerClass;
  }
  if (
    externallyAccessible(oldSpec) &&
    !externallyAccessible(spec) &&
    spec.externalTrafficPolicy === oldSpec.externalTrafficPolicy
  ) {
    delete spec.externalTrafficPolicy;
  }
}

/** kube's dry-run PortAllocationOperation.AllocateNext: one above the highest taken, or 32769. */
const dryRunPort = (taken: number[]) => (taken.length === 0 ? 32768 : Math.max(...taken)) + 1;

/** An update keeps the addresses the Service holds (they are immutable) and its IP family fields. */
function keepAddresses(obj: Obj, spec: Obj, oldSpec: Obj | undefined): void {
  // normalizeClusterIPs: a changed clusterIP beside unchanged clusterIPs is what an old client
  // meant; clusterIPs follow it (and validation refuses the change).
  if (
    oldSpec &&
    spec.clusterIP !== undefined &&
    spec.clusterIP !== oldSpec.clusterIP &&
    JSON.stringify(spec.clusterIPs) === JSON.stringify(oldSpec.clusterIPs)
  ) {
    if (spec.clusterIP) spec.clusterIPs = [spec.clusterIP];
    else delete spec.clusterIPs;
  }
  if (oldSpec?.clusterIP && spec.clusterIP === undefined) spec.clusterIP = oldSpec.clusterIP;
  if (oldSpec?.clusterIPs && spec.clusterIPs === undefined) spec.clusterIPs = oldSpec.clusterIPs;
  if (spec.clusterIP !== undefined) spec.clusterIPs ??= [spec.clusterIP];
  initIPFamilyFields(obj, spec, oldSpec);
}

const exposedOnNodes = (spec: Obj) => spec.type === "NodePort" || spec.type === "LoadBalancer";
const allocatesNodePorts = (spec: Obj) =>
  spec.type === "NodePort" || (spec.type === "LoadBalancer" && spec.allocateLoadBalancerNodePorts !== false);

/**
 * Node ports for a NodePort or LoadBalancer Service, as kube's initNodePorts (create) and
 * updateNodePorts (update) reserve them: the ones asked for, else the next free; ports of one
 * number share a node port. On an update, what the Service held already stays its own.
 */
function allocateNodePorts(
  obj: Obj,
  spec: Obj,
  server: ServerContext,
  key: string | undefined,
  dryRun: boolean,
) {
  if (!exposedOnNodes(spec) || !Array.isArray(spec.ports)) return;
  const allocations = new NodePortAllocations(server.storage, key);
  const byPort = new Map<unknown, number>();
  const taken: number[] = [];
  const ports = spec.ports as Obj[];
  ports.forEach((p, i) => {
    if (!p || typeof p !== "object") return;
    const asked = typeof p.nodePort === "number" ? p.nodePort : 0;
    if (asked === 0 && !allocatesNodePorts(spec)) return;
    const shared = byPort.get(p.port);
    if (shared !== undefined && (asked === 0 || asked === shared)) {
      p.nodePort = shared;
      return;
    }
    // On a create, a later port of the same number may name the node port this one shares.
    const named =
      asked !== 0 || key !== undefined
        ? asked
        : ((ports.find((o) => o?.port === p.port && typeof o.nodePort === "number" && o.nodePort !== 0)
            ?.nodePort as number | undefined) ?? 0);
    try {
      if (named === 0) p.nodePort = dryRun ? dryRunPort(taken) : allocations.allocateNextPort();
      else {
        allocations.allocatePort(named, dryRun);
        p.nodePort = named;
      }
      taken.push(p.nodePort as number);
    } catch (e) {
      if (!(e instanceof AllocationError)) throw e;
      throw refused(obj, `spec.ports[${i}].nodePort`, String(named), e.message);
    }
    if (shared === undefined) byPort.set(p.port, p.nodePort as number);
  });
}

/** SetDefaults_Service: a load balancer's ingress with an ip and no ipMode is a VIP. */
function defaultIngressIPMode(obj: Obj): void {
  const ingress = ((obj.status as Obj | undefined)?.loadBalancer as Obj | undefined)?.ingress;
  if (!Array.isArray(ingress)) return;
  for (const i of ingress as (Obj | null)[])
    if (i && typeof i.ip === "string" && i.ip !== "" && (i.ipMode === undefined || i.ipMode === null))
      i.ipMode = "VIP";
}

export const serviceBehaviour: KindBehaviour = {
  defaults(obj, { old, server, dryRun }) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.type ??= "ClusterIP";
    spec.sessionAffinity ??= "None";
    // SetDefaults_Service: no affinity has no config; a client-IP one sticks for three hours.
    if (spec.sessionAffinity === "None") delete spec.sessionAffinityConfig;
    else if (spec.sessionAffinity === "ClientIP") {
      const config = spec.sessionAffinityConfig as Obj | undefined;
      const clientIP = config?.clientIP as Obj | undefined;
      if (clientIP?.timeoutSeconds === undefined || clientIP.timeoutSeconds === null)
        spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
    }
    if (Array.isArray(spec.ports)) {
      for (const p of spec.ports as Obj[]) {
        if (!p || typeof p !== "object") continue;
        p.protocol ??= "TCP";
        // SetDefaults_Service: a targetPort of 0 or "" is the port.
        // (A port left out is Go's 0, which validation then refuses in both places.)
        if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === "")
          p.targetPort = p.port ?? 0;
      }
    }
    if (old) dropTypeDependentFields(spec, (old.spec ?? {}) as Obj);
    if (spec.type === "LoadBalancer") defaultIngressIPMode(obj);
    if (spec.type === "ExternalName") {
      // clusterIP is omitempty: an ExternalName Service's "" is not stored. kube defaulted
      // internalTrafficPolicy for ExternalName Services once and drops it when it reads them.
      if (spec.clusterIP === "") delete spec.clusterIP;
      delete spec.internalTrafficPolicy;
      return;
    }
    spec.internalTrafficPolicy ??= "Cluster";
    if (exposedOnNodes(spec)) spec.externalTrafficPolicy ??= "Cluster";
    if (spec.type === "LoadBalancer") spec.allocateLoadBalancerNodePorts ??= true;
    // On a create, addresses come after the field manager (created()); an update keeps them,
    // unless the Service had none (an ExternalName one), which it gets as it is committed.
    if (old) {
      const oldSpec = old.spec as Obj | undefined;
      if (oldSpec?.type !== "ExternalName") keepAddresses(obj, spec, oldSpec);
      keepNodePorts(spec, oldSpec);
      const meta = old.metadata as Obj;
      const key = meta.namespace ? `${meta.namespace}/${meta.name}` : String(meta.name);
      allocateNodePorts(obj, spec, server, key, dryRun === true);
    }
  },
  created(obj, { server, dryRun }) {
    const spec = obj.spec as Obj;
    let held: string[] = [];
    if (spec.type !== "ExternalName") {
      // normalizeClusterIPs: an old client's clusterIP alone is its clusterIPs too.
      const asked = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
      if (typeof spec.clusterIP === "string" && spec.clusterIP !== "" && asked.length === 0) {
        spec.clusterIPs = [spec.clusterIP];
      }
      initIPFamilyFields(obj, spec, undefined);
      held = allocateAddresses(obj, spec, server, dryRun === true);
    }
    try {
      allocateNodePorts(obj, spec, server, undefined, dryRun === true);
    } catch (e) {
      release(server, held);
      throw e;
    }
    return { revert: () => release(server, held) };
  },
  updating(obj, old, { server, dryRun }) {
    const spec = (obj.spec ?? {}) as Obj;
    const oldSpec = (old.spec ?? {}) as Obj;
    if (oldSpec.type === "ExternalName" && spec.type !== "ExternalName") {
      initIPFamilyFields(obj, spec, undefined);
      const held = allocateAddresses(obj, spec, server, dryRun === true);
      return { revert: () => release(server, held) };
    }
    if (oldSpec.type !== "ExternalName" && spec.type === "ExternalName") {
      return { committed: () => release(server, heldAddresses(oldSpec)) };
    }
    return undefined;
  },
  removed(obj, { server }) {
    release(server, heldAddresses(obj.spec as Obj | undefined));
  },
  validate(obj, old) {
    const spec = (obj.spec ?? {}) as Obj;
    const headless = spec.clusterIP === "None";
    if (
      spec.type !== "ExternalName" &&
      !headless &&
      (!Array.isArray(spec.ports) || spec.ports.length === 0)
    ) {
      return [cause.required("spec.ports")];
    }
    const causes = servicePortCauses(spec);
    if (spec.type === "ExternalName" && !spec.externalName) causes.push(cause.required("spec.externalName"));
    // validateServiceExternalTrafficPolicy: only a Service reachable from outside has one.
    const external = exposedOnNodes(spec) || (Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
    if (!external && spec.externalTrafficPolicy)
      causes.push(
        cause.invalid(
          "spec.externalTrafficPolicy",
          spec.externalTrafficPolicy,
          "may only be set for externally-accessible services",
        ),
      );
    // ValidateServiceUpdate: the addresses, once set, stay (but for a change to or from ExternalName).
    const oldSpec = (old?.spec ?? {}) as Obj;
    if (old && oldSpec.type !== "ExternalName" && spec.type !== "ExternalName") {
      const was = Array.isArray(oldSpec.clusterIPs) ? (oldSpec.clusterIPs as unknown[]) : [];
      const now = Array.isArray(spec.clusterIPs) ? (spec.clusterIPs as unknown[]) : [];
      was.forEach((ip, i) => {
        if (i < now.length && now[i] !== ip)
          causes.push(cause.invalid(`spec.clusterIPs[${i}]`, now, "may not change once set"));
      });
    }
    return causes;
  },
};

const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];

/** ValidateService's checks of the type, the selector and each port (validateServicePort). */
function servicePortCauses(spec: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!spec.type) causes.push(cause.required("spec.type"));
  else if (!SERVICE_TYPES.includes(spec.type as string))
    causes.push(cause.notSupported("spec.type", spec.type, SERVICE_TYPES));
  causes.push(...labelCauses(spec.selector, "spec.selector"));
  const ports = Array.isArray(spec.ports) ? (spec.ports as Obj[]) : [];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const port = (p ?? {}) as Obj;
    const at = `spec.ports[${i}]`;
    const name = typeof port.name === "string" ? port.name : "";
    if (ports.length > 1 && name === "") causes.push(cause.required(`${at}.name`));
    else if (name !== "") {
      for (const msg of dns1123LabelErrors(name)) causes.push(cause.invalid(`${at}.name`, name, msg));
      if (names.has(name)) causes.push(cause.duplicate(`${at}.name`, name));
      names.add(name);
    }
    for (const msg of portNumberErrors(port.port ?? 0))
      causes.push(cause.invalid(`${at}.port`, port.port ?? 0, msg));
    if (!port.protocol) causes.push(cause.required(`${at}.protocol`));
    else if (!PROTOCOLS.includes(port.protocol as string))
      causes.push(cause.notSupported(`${at}.protocol`, port.protocol, PROTOCOLS));
    const target = port.targetPort;
    if (typeof target === "number") {
      for (const msg of portNumberErrors(target)) causes.push(cause.invalid(`${at}.targetPort`, target, msg));
    } else if (typeof target === "string") {
      for (const msg of portNameErrors(target)) causes.push(cause.invalid(`${at}.targetPort`, target, msg));
    }
  });
  // Two ports with the same number and protocol (ValidateService's ports map, keyed by a
  // ServicePort holding only those two: kube prints that struct).
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const port = (p ?? {}) as Obj;
    const key = {
      Name: "",
      Protocol: port.protocol ?? "",
      AppProtocol: null,
      Port: port.port ?? 0,
      TargetPort: 0,
      NodePort: 0,
    };
    const id = `${key.Port}/${key.Protocol}`;
    if (seen.has(id)) causes.push(cause.duplicate(`spec.ports[${i}]`, key));
    seen.add(id);
  });
  return causes;
}

/** An update that leaves a port's nodePort out keeps the one allocated (same port and protocol). */
function keepNodePorts(spec: Obj, oldSpec: Obj | undefined): void {
  if (!exposedOnNodes(spec) || !Array.isArray(spec.ports) || !Array.isArray(oldSpec?.ports)) return;
  for (const p of spec.ports as Obj[]) {
    if (!p || typeof p !== "object" || p.nodePort !== undefined) continue;
    const was = (oldSpec.ports as Obj[]).find(
      (o) => o?.port === p.port && (o?.protocol ?? "TCP") === p.protocol,
    );
    if (typeof was?.nodePort === "number") p.nodePort = was.nodePort;
  }
}
