// certificates.k8s.io/v1 ClusterTrustBundles and PodCertificateRequests (GA in 1.36): a bundle's
// name tied to its signer and its PEM checked to hold CA certificates only
// (ValidateClusterTrustBundle); a pod certificate request's identity fields, which the kubelet
// fills and kube requires, and its key given one way only.
import { X509Certificate } from "node:crypto";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { signerNameCauses } from "./certificates.js";

const OMITTED = "<value omitted>";

/** ValidateClusterTrustBundleName: named `<signer with / as :>:<name>`, or with no `:` at all. */
function bundleNameCauses(name: string, signer: string): StatusCause[] {
  const invalid = (m: string) => cause.invalid("metadata.name", name, m);
  if (signer === "") {
    if (name.includes(":"))
      return [invalid('ClusterTrustBundle without signer name must not have ":" in its name')];
    return dns1123SubdomainErrors(name).map(invalid);
  }
  const prefix = `${signer.replaceAll("/", ":")}:`;
  if (!name.startsWith(prefix))
    return [invalid(`ClusterTrustBundle for signerName ${signer} must be named with prefix ${prefix}`)];
  return dns1123SubdomainErrors(name.slice(prefix.length)).map(invalid);
}

/** What is wrong with one PEM block of a trust bundle, if anything. */
function blockProblem(block: string, type: string, body: string): string | undefined {
  if (type !== "CERTIFICATE") return `has bad block type: ${type}`;
  if (/^[\w-]+:/m.test(body)) return "has PEM block headers";
  try {
    if (!new X509Certificate(block).ca) return "does not have the CA bit set";
  } catch {
    return "does not parse as X.509";
  }
  return undefined;
}

/** validateTrustBundle: PEM CERTIFICATE blocks without headers, each an X.509 CA certificate. */
function trustBundleCauses(pem: string): StatusCause[] {
  const at = "spec.trustBundle";
  const causes: StatusCause[] = [];
  const blocks = [...pem.matchAll(/-----BEGIN ([^-]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  const seen = new Set<string>();
  blocks.forEach((b, i) => {
    const problem = blockProblem(b[0], b[1], b[2]);
    if (problem) causes.push(cause.invalid(at, OMITTED, `entry ${i} ${problem}`));
    else seen.add(b[2].replace(/\s/g, ""));
  });
  if (causes.length === 0 && seen.size === 0)
    causes.push(cause.invalid(at, OMITTED, "at least one trust anchor must be provided"));
  return causes;
}

export const clusterTrustBundleBehaviour: KindBehaviour = {
  validate(obj, old) {
    const spec = (obj.spec ?? {}) as Obj;
    const signer = typeof spec.signerName === "string" ? spec.signerName : "";
    const causes = bundleNameCauses(String((obj.metadata as Obj | undefined)?.name ?? ""), signer);
    if (signer !== "") causes.push(...signerNameCauses(signer));
    const bundle = typeof spec.trustBundle === "string" ? spec.trustBundle : "";
    const oldSpec = (old?.spec ?? {}) as Obj;
    // An update that keeps the bundle does not parse it again.
    if (!old || oldSpec.trustBundle !== bundle) causes.push(...trustBundleCauses(bundle));
    if (old && (oldSpec.signerName ?? "") !== signer)
      causes.push(cause.invalid("spec.signerName", signer, "field is immutable"));
    return causes;
  },
};

/** ValidatePodCertificateRequest's checks of the fields a writer gives. */
function podCertificateRequestCauses(spec: Obj): StatusCause[] {
  const str = (k: string) => (typeof spec[k] === "string" ? (spec[k] as string) : "");
  const causes: StatusCause[] = [];
  const signer = str("signerName");
  if (signer === "") causes.push(cause.required("spec.signerName"));
  else causes.push(...signerNameCauses(signer));
  for (const [name, uid] of [
    ["podName", "podUID"],
    ["serviceAccountName", "serviceAccountUID"],
    ["nodeName", "nodeUID"],
  ]) {
    for (const m of dns1123SubdomainErrors(str(name)))
      causes.push(cause.invalid(`spec.${name}`, str(name), m));
    if (str(uid) === "") causes.push(cause.invalid(`spec.${uid}`, "", "must not be empty"));
  }
  const stub = str("stubPKCS10Request") !== "";
  const key = str("pkixPublicKey") !== "" || str("proofOfPossession") !== "";
  if (stub === key) {
    causes.push({
      reason: "FieldValueInvalid",
      message:
        "Invalid value: exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set",
      field: "spec",
    });
  }
  return causes;
}

export const podCertificateRequestBehaviour: KindBehaviour = {
  validate(obj, old) {
    if (old) return [];
    return podCertificateRequestCauses((obj.spec ?? {}) as Obj);
  },
};
