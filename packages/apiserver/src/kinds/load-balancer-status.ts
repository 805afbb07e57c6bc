// Load balancer statuses, a Service's and an Ingress', as kube checks them
// (ValidateLoadBalancerStatus, ValidateIngressLoadBalancerStatus): ingress IPs that are IPs
// (those already stored may stay), hostnames that are DNS names and no addresses, a Service's
// ipMode with its ip only, and ingress only on a LoadBalancer Service.
import { isIP } from "node:net";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import { legacyIPErrors } from "./service.js";
import type { StatusRule } from "./workload-status.js";

const IP_MODES = ["Proxy", "VIP"];

/** The IPs of an old load balancer status: a write may keep one its rules would refuse now. */
const ingressIPs = (lb: unknown): string[] =>
  (((lb as Obj | undefined)?.ingress as (Obj | null)[] | undefined) ?? [])
    .map((i) => i?.ip)
    .filter((ip): ip is string => typeof ip === "string" && ip !== "");

/** A load balancer ingress' ip and hostname, a Service's and an Ingress' alike. */
function ingressAddressCauses(ingress: Obj, at: string, kept: string[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const ip = typeof ingress.ip === "string" ? ingress.ip : "";
  if (ip !== "" && !kept.includes(ip))
    for (const m of legacyIPErrors(ip)) causes.push(cause.invalid(`${at}.ip`, ip, m));
  return causes;
}

/** netutils.ParseIPSloppy: an IPv4 address (leading zeros too) or an IPv6 one. */
function parsesAsIP(value: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(value);
  if (v4) return v4.slice(1).every((o) => Number(o) <= 255);
  return isIP(value) === 6;
}

/** A load balancer ingress' hostname: a DNS name, not an address. */
function hostnameCauses(ingress: Obj, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const hostname = typeof ingress.hostname === "string" ? ingress.hostname : "";
  if (hostname === "") return causes;
  for (const m of dns1123SubdomainErrors(hostname)) causes.push(cause.invalid(`${at}.hostname`, hostname, m));
  if (parsesAsIP(hostname))
    causes.push(cause.invalid(`${at}.hostname`, hostname, "must be a DNS name, not an IP address"));
  return causes;
}

export const serviceStatus: StatusRule = (s, old, obj) => {
  const lb = (s.loadBalancer ?? {}) as Obj;
  const ingresses = Array.isArray(lb.ingress) ? (lb.ingress as (Obj | null)[]) : [];
  const path = "status.loadBalancer.ingress";
  if ((obj.spec as Obj | undefined)?.type !== "LoadBalancer" && ingresses.length > 0)
    return [cause.forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")];
  const kept = ingressIPs(old.loadBalancer);
  const causes: StatusCause[] = [];
  ingresses.forEach((ingress0, i) => {
    const ingress = ingress0 ?? {};
    const at = `${path}[${i}]`;
    causes.push(...ingressAddressCauses(ingress, at, kept));
    const ip = typeof ingress.ip === "string" ? ingress.ip : "";
    const mode = ingress.ipMode;
    if (mode === undefined || mode === null) {
      if (ip !== "") causes.push(cause.required(`${at}.ipMode`, "must be specified when `ip` is set"));
    } else if (ip === "")
      causes.push(cause.forbidden(`${at}.ipMode`, "may not be specified when `ip` is not set"));
    else if (!IP_MODES.includes(String(mode)))
      causes.push(cause.notSupported(`${at}.ipMode`, mode, IP_MODES));
    causes.push(...hostnameCauses(ingress, at));
  });
  return causes;
};

export const ingressStatus: StatusRule = (s, old) => {
  const lb = (s.loadBalancer ?? {}) as Obj;
  const ingresses = Array.isArray(lb.ingress) ? (lb.ingress as (Obj | null)[]) : [];
  const kept = ingressIPs(old.loadBalancer);
  const causes: StatusCause[] = [];
  ingresses.forEach((ingress0, i) => {
    const at = `status.loadBalancer.ingress[${i}]`;
    causes.push(...ingressAddressCauses(ingress0 ?? {}, at, kept));
    causes.push(...hostnameCauses(ingress0 ?? {}, at));
  });
  return causes;
};
