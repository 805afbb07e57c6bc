// CertificateSigningRequests: the requester's identity recorded in the spec at create, conditions
// stamped with their times (populateConditionTimestamps), and the request checked to be a PEM
// certificate request. Approval goes through /approval (see object/meta.ts).
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { kubeTime } from "../object/meta.js";
import { dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { cloneJson } from "../object/deep-json.js";
import { certificateSigningRequestStatusCauses } from "./certificate-status.js";

const KEY_USAGES = [
  "any",
  "cert sign",
  "client auth",
  "code signing",
  "content commitment",
  "crl sign",
  "data encipherment",
  "decipher only",
  "digital signature",
  "email protection",
  "encipher only",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "key agreement",
  "key encipherment",
  "microsoft sgc",
  "netscape sgc",
  "ocsp signing",
  "s/mime",
  "server auth",
  "signing",
  "timestamping",
];

/** ValidateSignerName: a domain, a slash, a path; each part valid. */
export function signerNameCauses(name: string): StatusCause[] {
  const at = "spec.signerName";
  const slash = name.indexOf("/");
  if (slash <= 0)
    return [
      cause.invalid(
        at,
        name,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'",
      ),
    ];
  const domain = name.slice(0, slash);
  const path = name.slice(slash + 1);
  const causes = dns1123SubdomainErrors(domain).map((m) => cause.invalid(at, name, m));
  if (path === "" || !/^[A-Za-z0-9._~/-]+$/.test(path)) {
    causes.push(cause.invalid(at, name, "validating path: must be a valid URL path"));
  }
  return causes;
}

function conditionsOf(obj: Readonly<Obj> | undefined): Obj[] {
  const c = (obj?.status as Obj | undefined)?.conditions;
  return Array.isArray(c) ? (c as Obj[]) : [];
}

export const certificateSigningRequestBehaviour: KindBehaviour = {
  defaults(obj, { old, server }) {
    if (!old) return;
    // PrepareForUpdate: a request never changes once made, whatever an update says.
    obj.spec = cloneJson(old.spec ?? {});
    const now = kubeTime(server.now());
    for (const c of conditionsOf(obj)) {
      if (!c || typeof c !== "object") continue;
      if (!c.lastUpdateTime) c.lastUpdateTime = now;
      if (!c.lastTransitionTime) {
        const same = conditionsOf(old).find(
          (o) => o.type === c.type && o.status === c.status && o.lastTransitionTime,
        );
        c.lastTransitionTime = same?.lastTransitionTime ?? now;
      }
    }
  },
  created(obj, { user }) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    if (user) {
      spec.username = user.name;
      if (user.uid) spec.uid = user.uid;
      spec.groups = [...user.groups];
      if (user.extra && Object.keys(user.extra).length > 0) spec.extra = cloneJson(user.extra);
      else delete spec.extra;
    }
    // Nobody creates a request already approved.
    obj.status = {};
  },
  validate(obj, old, _server, subresource) {
    const spec = (obj.spec ?? {}) as Obj;
    const causes = certificateSigningRequestStatusCauses(obj, old, subresource);
    const request =
      typeof spec.request === "string" ? Buffer.from(spec.request, "base64").toString("latin1") : "";
    if (!/^\s*-----BEGIN CERTIFICATE REQUEST-----\r?\n/.test(request)) {
      causes.push(
        cause.invalid("spec.request", spec.request ?? "", "PEM block type must be CERTIFICATE REQUEST"),
      );
    }
    if (!spec.signerName) causes.push(cause.required("spec.signerName"));
    else causes.push(...signerNameCauses(String(spec.signerName)));
    const usages = Array.isArray(spec.usages) ? (spec.usages as unknown[]) : [];
    if (usages.length === 0) causes.push(cause.required("spec.usages"));
    usages.forEach((u, i) => {
      if (!KEY_USAGES.includes(u as string))
        causes.push(cause.notSupported(`spec.usages[${i}]`, u, KEY_USAGES));
    });
    return causes;
  },
};
