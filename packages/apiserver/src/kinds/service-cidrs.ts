// networking.k8s.io/v1 IPAddresses and ServiceCIDRs (GA in 1.33): the objects kube's Service IP
// allocator keeps. An IPAddress is named by its address and points at what holds it; a
// ServiceCIDR holds one range per IP family and may only gain the second family
// (pkg/apis/networking/validation).
import { isIP } from "node:net";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { deepEqual } from "../object/meta.js";
import { dns1123SubdomainErrors, pathSegmentErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

const IMMUTABLE = "field is immutable";

/** An IPv4 address as Go prints it (no leading zeros); IPv6 addresses are taken as written. */
function canonicalIPv4(ip: string): string {
  return ip
    .split(".")
    .map((p) => String(Number(p)))
    .join(".");
}

/** IsValidIP: an address, in canonical form. */
function ipErrors(value: string): string[] {
  const version = isIP(value);
  if (version === 0) return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"];
  if (version === 4 && canonicalIPv4(value) !== value)
    return [`must be in canonical form (${JSON.stringify(canonicalIPv4(value))})`];
  return [];
}

/** IsValidCIDR: an address and prefix length, with no host bits set (IPv4 checked to the bit). */
function cidrErrors(value: string): string[] {
  const slash = value.indexOf("/");
  const ip = value.slice(0, slash);
  const bits = Number(value.slice(slash + 1));
  const version = slash < 0 ? 0 : isIP(ip);
  const max = version === 4 ? 32 : 128;
  if (version === 0 || !/^\d+$/.test(value.slice(slash + 1)) || bits > max)
    return ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"];
  if (version === 4) {
    const n = ip.split(".").reduce((acc, p) => acc * 256 + Number(p), 0);
    const host = bits === 32 ? 0 : n % 2 ** (32 - bits);
    if (host !== 0) return ["must not have bits set beyond the prefix length"];
    if (canonicalIPv4(ip) !== ip)
      return [`must be in canonical form (${JSON.stringify(`${canonicalIPv4(ip)}/${bits}`)})`];
  }
  return [];
}

export const ipAddressBehaviour: KindBehaviour = {
  defaults(obj) {
    // ParentReference.group is omitempty: the core group's "" is not stored.
    const ref = (obj.spec as Obj | undefined)?.parentRef as Obj | undefined;
    if (ref && typeof ref === "object" && ref.group === "") delete ref.group;
  },
  validate(obj, old) {
    const name = String((obj.metadata as Obj | undefined)?.name ?? "");
    const causes = ipErrors(name).map((m) => cause.invalid("metadata.name", name, m));
    // ValidateIPAddressName is ValidateObjectMeta's name function: a generateName must be an address too.
    const generateName = (obj.metadata as Obj | undefined)?.generateName;
    if (typeof generateName === "string" && generateName !== "")
      for (const m of ipErrors(generateName))
        causes.push(cause.invalid("metadata.generateName", generateName, m));
    const spec = (obj.spec ?? {}) as Obj;
    const ref = spec.parentRef as Obj | undefined;
    if (old) {
      if (!deepEqual(ref, (old.spec as Obj | undefined)?.parentRef))
        causes.push(cause.invalid("spec.parentRef", ref ?? null, IMMUTABLE));
    }
    if (!ref || typeof ref !== "object") return [...causes, cause.required("spec.parentRef", "")];
    const at = "spec.parentRef";
    const group = typeof ref.group === "string" ? ref.group : "";
    if (group !== "")
      for (const m of dns1123SubdomainErrors(group)) causes.push(cause.invalid(`${at}.group`, group, m));
    for (const k of ["resource", "name"]) {
      const v = typeof ref[k] === "string" ? (ref[k] as string) : "";
      if (v === "") causes.push(cause.required(`${at}.${k}`, ""));
      else for (const m of pathSegmentErrors(v)) causes.push(cause.invalid(`${at}.${k}`, v, m));
    }
    // kube 1.37.2 does not check parentRef.namespace (validateIPAddressParentReference).
    return causes;
  },
};

function cidrSpecCauses(cidrs: string[]): StatusCause[] {
  const path = "spec.cidrs";
  if (cidrs.length === 0) return [cause.required(path, "at least one CIDR required")];
  if (cidrs.length > 2) return [cause.invalid(path, { cidrs }, "may only hold up to 2 values")];
  const causes: StatusCause[] = [];
  cidrs.forEach((c, i) => {
    for (const m of cidrErrors(c)) causes.push(cause.invalid(`${path}[${i}]`, c, m));
  });
  const family = (c: string) => isIP(c.split("/")[0]);
  if (cidrs.length === 2 && family(cidrs[0]) === family(cidrs[1]) && family(cidrs[0]) !== 0) {
    causes.push(
      cause.invalid(
        path,
        cidrs,
        "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64",
      ),
    );
  }
  return causes;
}

export const serviceCIDRBehaviour: KindBehaviour = {
  validate(obj, old) {
    const list = (o: Readonly<Obj>) => {
      const c = (o.spec as Obj | undefined)?.cidrs;
      return Array.isArray(c) ? c.map(String) : [];
    };
    const cidrs = list(obj);
    if (!old) return cidrSpecCauses(cidrs);
    const was = list(old);
    if (was.length === cidrs.length)
      return cidrs.flatMap((c, i) => (c === was[i] ? [] : [cause.invalid(`spec.cidrs[${i}]`, c, IMMUTABLE)]));
    // A single-family range may gain the other family's.
    if (was.length === 1 && cidrs.length === 2) {
      const causes = cidrs[0] === was[0] ? [] : [cause.invalid("spec.cidrs[0]", cidrs[0], IMMUTABLE)];
      return [...causes, ...cidrSpecCauses(cidrs)];
    }
    return [cause.invalid("spec.cidrs", cidrs, IMMUTABLE)];
  },
};
