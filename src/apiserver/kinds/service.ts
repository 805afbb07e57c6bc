// Services: type ClusterIP by default with an address allocated from 10.0.0.0/16 (envtest's
// service range), port protocol and targetPort defaults, and the required ports.
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import { validateSecretSize } from "./config-data.js";
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
    // On a create, addresses come after the field manager (created()); an update keeps them.
    if (old) allocateAddresses(spec, old.spec as Obj | undefined, server);
  },
  created(obj, { server }) {
    const spec = obj.spec as Obj;
    if (spec.type !== "ExternalName") allocateAddresses(spec, undefined, server);
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
    return [];
  },
};

export const secretBehaviour: KindBehaviour = {
  defaults(obj) {
    obj.type ??= "Opaque";
    // stringData is write-only: kube merges it into data.
    if (obj.stringData && typeof obj.stringData === "object") {
      const data = ((obj.data ?? {}) as Record<string, string>) ?? {};
      for (const [k, v] of Object.entries(obj.stringData as Record<string, string>)) {
        data[k] = Buffer.from(String(v)).toString("base64");
      }
      obj.data = data;
    }
    delete obj.stringData;
  },
  validate: (obj) => validateSecretSize(obj),
};
