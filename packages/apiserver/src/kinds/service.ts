// Services: type ClusterIP by default with an address and node ports reserved as kube's
// allocators reserve them (service-allocation.ts), port protocol and targetPort defaults, and
// the required ports.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { labelCauses } from "../object/meta.js";
import { dns1123LabelErrors } from "../object/names.js";
import { portNameErrors, portNumberErrors } from "./pod.js";
import type { ServerContext } from "../handlers/context.js";
import { type ApiError, cause, invalid } from "../status.js";
import { AllocationError, ServiceAllocations } from "./service-allocation.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

/** kube's allocators' refusal: a 422 on the field, as its Store's BeginCreate/BeginUpdate answers. */
function refused(obj: Obj, field: string, value: string, why: string): ApiError {
  const name = String((obj.metadata as Obj | undefined)?.name ?? "");
  return invalid({ group: "", resource: "services", kind: "Service" }, name, [
    { reason: "FieldValueInvalid", message: `Invalid value: ${value}: ${why}`, field },
  ]);
}

/**
 * The cluster IP of a new Service (kube's allocClusterIPs): the one asked for, reserved, or the
 * next free one; none for ExternalName and headless Services.
 */
function allocateAddresses(obj: Obj, spec: Obj, server: ServerContext, dryRun: boolean): void {
  // normalizeClusterIPs: clusterIP and clusterIPs[0] are one value.
  if ((spec.clusterIP === undefined || spec.clusterIP === "") && Array.isArray(spec.clusterIPs)) {
    spec.clusterIP = spec.clusterIPs[0];
  }
  const requested = typeof spec.clusterIP === "string" ? spec.clusterIP : "";
  if (requested !== "None") {
    const allocations = new ServiceAllocations(server.storage);
    if (requested === "") spec.clusterIP = allocations.allocateNextIP(dryRun);
    else {
      try {
        allocations.allocateIP(requested, dryRun);
      } catch (e) {
        if (!(e instanceof AllocationError)) throw e;
        const asked = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [requested];
        throw refused(
          obj,
          "spec.clusterIPs",
          JSON.stringify(asked),
          `failed to allocate IP ${requested}: ${e.message}`,
        );
      }
    }
  }
  spec.clusterIPs = [spec.clusterIP];
  if (spec.clusterIP !== "None") {
    spec.ipFamilies ??= ["IPv4"];
    spec.ipFamilyPolicy ??= "SingleStack";
  }
}

/** kube's dry-run PortAllocationOperation.AllocateNext: one above the highest taken, or 32769. */
const dryRunPort = (taken: number[]) => (taken.length === 0 ? 32768 : Math.max(...taken)) + 1;

/** An update keeps the addresses the Service holds (they are immutable). */
function keepAddresses(spec: Obj, oldSpec: Obj | undefined): void {
  if (oldSpec?.clusterIP && spec.clusterIP === undefined) spec.clusterIP = oldSpec.clusterIP;
  if (oldSpec?.clusterIPs && spec.clusterIPs === undefined) spec.clusterIPs = oldSpec.clusterIPs;
  spec.clusterIPs ??= [spec.clusterIP];
  if (spec.clusterIP !== "None") {
    spec.ipFamilies ??= ["IPv4"];
    spec.ipFamilyPolicy ??= "SingleStack";
  }
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
  const allocations = new ServiceAllocations(server.storage, key);
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

export const serviceBehaviour: KindBehaviour = {
  defaults(obj, { old, server, dryRun }) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.type ??= "ClusterIP";
    spec.sessionAffinity ??= "None";
    if (Array.isArray(spec.ports)) {
      for (const p of spec.ports as Obj[]) {
        if (!p || typeof p !== "object") continue;
        p.protocol ??= "TCP";
        // SetDefaults_Service: a targetPort of 0 or "" is the port.
        if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === "") p.targetPort = p.port;
      }
    }
    if (spec.type === "ExternalName") return;
    spec.internalTrafficPolicy ??= "Cluster";
    if (exposedOnNodes(spec)) spec.externalTrafficPolicy ??= "Cluster";
    if (spec.type === "LoadBalancer") spec.allocateLoadBalancerNodePorts ??= true;
    // On a create, addresses come after the field manager (created()); an update keeps them.
    if (old) {
      keepAddresses(spec, old.spec as Obj | undefined);
      keepNodePorts(spec, old.spec as Obj | undefined);
      const meta = old.metadata as Obj;
      const key = meta.namespace ? `${meta.namespace}/${meta.name}` : String(meta.name);
      allocateNodePorts(obj, spec, server, key, dryRun === true);
    }
  },
  created(obj, { server, dryRun }) {
    const spec = obj.spec as Obj;
    if (spec.type !== "ExternalName") allocateAddresses(obj, spec, server, dryRun === true);
    allocateNodePorts(obj, spec, server, undefined, dryRun === true);
  },
  validate(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    const headless = spec.clusterIP === "None";
    if (
      spec.type !== "ExternalName" &&
      !headless &&
      (!Array.isArray(spec.ports) || spec.ports.length === 0)
    ) {
      return [cause.required("spec.ports")];
    }
    return servicePortCauses(spec);
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
