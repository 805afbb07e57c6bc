// A CertificateSigningRequest's status as kube checks it on every update (validateConditions and
// validateCertificateSigningRequestUpdate): each condition typed once, Approved, Denied and Failed
// only True, Approved and Denied not both, none of the three removed; Approved and Denied added or
// changed only through /approval; the certificate set only through /status, once, as PEM
// CERTIFICATE blocks. What the stored request already breaks is tolerated, as kube tolerates it.
import { X509Certificate } from "node:crypto";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { jsonEqual } from "../object/deep-json.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";

const TRUE_ONLY = new Set(["Approved", "Denied", "Failed"]);
const STATUSES = ["False", "True", "Unknown"];

const conditionsOf = (o: Readonly<Obj> | undefined): Obj[] => {
  const c = (o?.status as Obj | undefined)?.conditions;
  return Array.isArray(c) ? (c as (Obj | null)[]).map((x) => x ?? {}) : [];
};
const certificateOf = (o: Readonly<Obj> | undefined): string => {
  const c = (o?.status as Obj | undefined)?.certificate;
  return typeof c === "string" ? c : "";
};

/** validateCertificate: PEM CERTIFICATE blocks without headers, each an X.509 certificate. */
function certificateError(base64: string): string | undefined {
  if (base64 === "") return undefined;
  const text = Buffer.from(base64, "base64").toString("latin1");
  const blocks = [...text.matchAll(/-----BEGIN ([^-]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  for (const [, type, body] of blocks) {
    if (type !== "CERTIFICATE")
      return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(type)}`;
    if (/^[\w-]+:/m.test(body)) return "no PEM block headers are permitted";
    try {
      new X509Certificate(Buffer.from(body.replace(/\s+/g, ""), "base64"));
    } catch (e) {
      return `x509: malformed certificate: ${(e as Error).message}`;
    }
  }
  return blocks.length === 0 ? "must contain at least one CERTIFICATE PEM block" : undefined;
}

export function certificateSigningRequestStatusCauses(
  obj: Obj,
  old: Readonly<Obj> | undefined,
  subresource: string,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const conditions = conditionsOf(obj);
  const before = conditionsOf(old);
  const types = (list: Obj[]) => list.map((c) => (typeof c.type === "string" ? c.type : ""));
  const oldTypes = types(before);
  const allowEmptyType = oldTypes.includes("");
  const allowDuplicates = new Set(oldTypes).size !== oldTypes.length;
  const allowBoth = oldTypes.includes("Approved") && oldTypes.includes("Denied");
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditions.forEach((c, i) => {
    const at = `status.conditions[${i}]`;
    const type = typeof c.type === "string" ? c.type : "";
    if (!allowEmptyType && type === "") causes.push(cause.required(`${at}.type`));
    const allowed = TRUE_ONLY.has(type) ? ["True"] : STATUSES;
    const status = typeof c.status === "string" ? c.status : "";
    if (status === "") causes.push(cause.required(`${at}.status`));
    else if (!allowed.includes(status)) causes.push(cause.notSupported(`${at}.status`, status, allowed));
    if (!allowBoth && (type === "Approved" || type === "Denied")) {
      if (type === "Approved") approved = true;
      else denied = true;
      if (approved && denied)
        causes.push(
          cause.invalid("status.conditions", type, "Approved and Denied conditions are mutually exclusive"),
        );
    }
    if (!allowDuplicates && seen.has(type)) causes.push(cause.duplicate(`${at}.type`, type));
    seen.add(type);
  });
  if (!old) return causes;
  const ofType = (list: Obj[], t: string) => list.filter((c) => c.type === t);
  for (const t of ["Approved", "Denied", "Failed"])
    if (ofType(conditions, t).length < ofType(before, t).length)
      causes.push(
        cause.forbidden(
          "status.conditions",
          `updates may not remove a condition of type ${JSON.stringify(t)}`,
        ),
      );
  if (subresource !== "approval") {
    for (const t of ["Approved", "Denied"]) {
      const now = ofType(conditions, t);
      const then = ofType(before, t);
      if (now.length > then.length)
        causes.push(
          cause.forbidden(
            "status.conditions",
            `updates may not add a condition of type ${JSON.stringify(t)}`,
          ),
        );
      else if (now.length === then.length && !jsonEqual(now, then))
        causes.push(
          cause.forbidden(
            "status.conditions",
            `updates may not modify a condition of type ${JSON.stringify(t)}`,
          ),
        );
    }
  }
  const certificate = certificateOf(obj);
  const oldCertificate = certificateOf(old);
  if (certificate !== oldCertificate) {
    if (subresource !== "status")
      causes.push(cause.forbidden("status.certificate", "updates may not set certificate content"));
    else if (oldCertificate !== "")
      causes.push(
        cause.forbidden("status.certificate", "updates may not modify existing certificate content"),
      );
    // allowArbitraryCertificate: a stored certificate kube would refuse lets any through.
    const error = certificateError(oldCertificate) === undefined ? certificateError(certificate) : undefined;
    if (error) causes.push(cause.invalid("status.certificate", "<certificate data>", error));
  }
  return causes;
}
