// Endpoints as kube's validateEndpointSubsets checks them: each subset has addresses, each
// address a usable IP (not unspecified, loopback or link-local) and a valid hostname, each port a
// number, a protocol and (beside others) a name.
import { isIP } from "node:net";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { dns1123LabelErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { portNumberErrors } from "./pod.js";

const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const list = (v: unknown) => (Array.isArray(v) ? (v as unknown[]) : []);

/** ValidateNonSpecialIP: an address a Service may route to. */
function specialIpErrors(ip: string): string[] {
  const version = isIP(ip);
  if (version === 0) return ["must be a valid IP address"];
  const v4 = version === 4 ? ip.split(".").map(Number) : undefined;
  const lower = ip.toLowerCase();
  if (v4 ? v4.every((n) => n === 0) : lower === "::") return ["may not be unspecified (0.0.0.0, ::)"];
  if (v4 ? v4[0] === 127 : lower === "::1")
    return ["may not be in the loopback range (127.0.0.0/8, ::1/128)"];
  if (v4 ? v4[0] === 169 && v4[1] === 254 : /^fe[89ab]/.test(lower)) {
    return ["may not be in the link-local range (169.254.0.0/16, fe80::/10)"];
  }
  if (v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : lower.startsWith("ff02:")) {
    return ["may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"];
  }
  return [];
}

function addressCauses(raw: unknown, at: string): StatusCause[] {
  const a = (raw ?? {}) as Obj;
  const ip = typeof a.ip === "string" ? a.ip : "";
  const causes: StatusCause[] = [];
  if (isIP(ip) === 0)
    causes.push(
      cause.invalid(`${at}.ip`, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"),
    );
  if (typeof a.hostname === "string" && a.hostname !== "") {
    for (const msg of dns1123LabelErrors(a.hostname))
      causes.push(cause.invalid(`${at}.hostname`, a.hostname, msg));
  }
  for (const msg of specialIpErrors(ip)) causes.push(cause.invalid(`${at}.ip`, ip, msg));
  return causes;
}

function portCauses(raw: unknown, requireName: boolean, at: string): StatusCause[] {
  const p = (raw ?? {}) as Obj;
  const causes: StatusCause[] = [];
  const name = typeof p.name === "string" ? p.name : "";
  if (requireName && name === "") causes.push(cause.required(`${at}.name`));
  else if (name !== "")
    for (const msg of dns1123LabelErrors(name)) causes.push(cause.invalid(`${at}.name`, name, msg));
  for (const msg of portNumberErrors(p.port ?? 0)) causes.push(cause.invalid(`${at}.port`, p.port ?? 0, msg));
  if (!p.protocol) causes.push(cause.required(`${at}.protocol`));
  else if (!PROTOCOLS.includes(p.protocol as string))
    causes.push(cause.notSupported(`${at}.protocol`, p.protocol, PROTOCOLS));
  return causes;
}

export const endpointsBehaviour: KindBehaviour = {
  defaults(obj) {
    for (const s of list(obj.subsets)) for (const p of list((s as Obj)?.ports)) (p as Obj).protocol ??= "TCP";
  },
  validate(obj) {
    const causes: StatusCause[] = [];
    list(obj.subsets).forEach((raw, i) => {
      const s = (raw ?? {}) as Obj;
      const at = `subsets[${i}]`;
      if (list(s.addresses).length === 0 && list(s.notReadyAddresses).length === 0) {
        causes.push(cause.required(at, "must specify `addresses` or `notReadyAddresses`"));
      }
      const addresses = list(s.addresses);
      for (let j = 0; j < addresses.length; j++)
        causes.push(...addressCauses(addresses[j], `${at}.addresses[${j}]`));
      const notReady = list(s.notReadyAddresses);
      for (let j = 0; j < notReady.length; j++) {
        causes.push(...addressCauses(notReady[j], `${at}.notReadyAddresses[${j}]`));
      }
      const ports = list(s.ports);
      for (let j = 0; j < ports.length; j++)
        causes.push(...portCauses(ports[j], ports.length > 1, `${at}.ports[${j}]`));
    });
    return causes;
  },
};
