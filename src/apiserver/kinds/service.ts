// Services: type ClusterIP by default with an address allocated from 10.0.0.0/16 (envtest's
// service range), port protocol and targetPort defaults, and the required ports.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { labelCauses } from "../object/meta.js";
import { dns1123LabelErrors } from "../object/names.js";
import { portNameErrors, portNumberErrors } from "./pod.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

function allocate(used: Set<string>): string {
  for (let i = 10; i < 65_534; i++) {
    const ip = `10.0.${i >> 8}.${i & 255}`;
    if (!used.has(ip)) return ip;
  }
  throw new Error("service IP range 10.0.0.0/16 is exhausted");
}

/** The cluster IP (kept, given, or allocated), its list, and the IP family fields. */
function allocateAddresses(
  spec: Obj,
  oldSpec: Obj | undefined,
  server: { storage: { list(store: string): { obj: Readonly<Obj> }[] } },
): void {
  if (oldSpec?.clusterIP && spec.clusterIP === undefined) spec.clusterIP = oldSpec.clusterIP;
  if (spec.clusterIP === undefined || spec.clusterIP === "") {
    const used = new Set<string>();
    for (const s of server.storage.list("/services")) {
      const ip = ((s.obj.spec as Obj | undefined)?.clusterIP as string | undefined) ?? "";
      used.add(ip);
    }
    spec.clusterIP = allocate(used);
  }
  spec.clusterIPs ??= [spec.clusterIP];
  if (spec.clusterIP !== "None") {
    spec.ipFamilies ??= ["IPv4"];
    spec.ipFamilyPolicy ??= "SingleStack";
  }
}

const exposedOnNodes = (spec: Obj) => spec.type === "NodePort" || spec.type === "LoadBalancer";

/** Gives each port of a NodePort or LoadBalancer Service a node port from 30000-32767. */
function allocateNodePorts(
  spec: Obj,
  server: { storage: { list(store: string): { obj: Readonly<Obj> }[] } },
): void {
  if (!exposedOnNodes(spec) || !Array.isArray(spec.ports)) return;
  if (spec.type === "LoadBalancer" && spec.allocateLoadBalancerNodePorts === false) return;
  const used = new Set<number>();
  for (const s of server.storage.list("/services")) {
    for (const p of ((s.obj.spec as Obj | undefined)?.ports as Obj[] | undefined) ?? []) {
      if (typeof p?.nodePort === "number") used.add(p.nodePort);
    }
  }
  for (const p of spec.ports as Obj[]) if (typeof p?.nodePort === "number") used.add(p.nodePort);
  for (const p of spec.ports as Obj[]) {
    if (!p || typeof p !== "object" || typeof p.nodePort === "number") continue;
    if (used.size >= 2768) throw new Error("node port range 30000-32767 is exhausted");
    let port: number;
    do port = 30000 + Math.floor(Math.random() * 2768);
    while (used.has(port));
    used.add(port);
    p.nodePort = port;
  }
}

export const serviceBehaviour: KindBehaviour = {
  defaults(obj, { old, server }) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.type ??= "ClusterIP";
    spec.sessionAffinity ??= "None";
    if (Array.isArray(spec.ports)) {
      for (const p of spec.ports as Obj[]) {
        p.protocol ??= "TCP";
        p.targetPort ??= p.port;
      }
    }
    if (spec.type === "ExternalName") return;
    spec.internalTrafficPolicy ??= "Cluster";
    if (exposedOnNodes(spec)) spec.externalTrafficPolicy ??= "Cluster";
    if (spec.type === "LoadBalancer") spec.allocateLoadBalancerNodePorts ??= true;
    // On a create, addresses come after the field manager (created()); an update keeps them.
    if (old) {
      allocateAddresses(spec, old.spec as Obj | undefined, server);
      keepNodePorts(spec, old.spec as Obj | undefined);
      allocateNodePorts(spec, server);
    }
  },
  created(obj, { server }) {
    const spec = obj.spec as Obj;
    if (spec.type !== "ExternalName") allocateAddresses(spec, undefined, server);
    allocateNodePorts(spec, server);
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
