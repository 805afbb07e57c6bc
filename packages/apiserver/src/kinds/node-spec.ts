// A Node's pod CIDRs as kube takes them: podCIDR and podCIDRs[0] kept in step (the singular
// field wins, as conversion to the internal type makes it), each a CIDR, one per family, and
// fixed once set (ValidateNode, ValidateNodeUpdate).
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { isIP } from "node:net";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.map((x) => (typeof x === "string" ? x : "")) : [];

/** Convert_v1_NodeSpec_To_core_NodeSpec and back: podCIDRs follows podCIDR, podCIDR is podCIDRs[0]. */
export function syncPodCIDRs(obj: Obj): void {
  const spec = obj.spec as Obj | undefined;
  if (!spec || typeof spec !== "object") return;
  const one = typeof spec.podCIDR === "string" ? spec.podCIDR : "";
  const many = strings(spec.podCIDRs);
  if (one !== "" && (many.length === 0 || many[0] !== one)) spec.podCIDRs = [one];
  else if (one === "" && many.length > 0) spec.podCIDR = many[0];
}

/** IsValidCIDRForLegacyField, as far as a node's CIDRs need it. */
function cidrErrors(value: string): string[] {
  const slash = value.indexOf("/");
  const ip = slash < 0 ? "" : value.slice(0, slash);
  const bits = value.slice(slash + 1);
  const version = isIP(ip);
  if (version === 0 || !/^\d{1,3}$/.test(bits) || Number(bits) > (version === 4 ? 32 : 128))
    return ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"];
  return [];
}

export function podCIDRCauses(obj: Obj, old: Readonly<Obj> | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const cidrs = strings((obj.spec as Obj | undefined)?.podCIDRs);
  cidrs.forEach((c, i) => {
    for (const m of cidrErrors(c)) causes.push(cause.invalid(`spec.podCIDRs[${i}]`, c, m));
  });
  if (cidrs.length > 1) {
    const families = cidrs.map((c) => isIP(c.split("/")[0]));
    if (cidrs.length > 2 || !(families.includes(4) && families.includes(6)))
      causes.push(
        cause.invalid("spec.podCIDRs", cidrs, "may specify no more than one CIDR for each IP family"),
      );
  }
  const before = strings((old?.spec as Obj | undefined)?.podCIDRs);
  const fixed = 'node updates may not change podCIDR except from "" to valid';
  if (before.length > 0) {
    if (before.length !== cidrs.length) causes.push(cause.forbidden("spec.podCIDRs", fixed));
    else
      for (const [i, c] of before.entries())
        if (c !== cidrs[i]) causes.push(cause.forbidden("spec.podCIDRs", fixed));
  }
  return causes;
}
