// AdmissionReview bodies: the request kube-apiserver sends (v1 or v1beta1, the first version the
// webhook accepts) and the checks it makes on the answer (VerifyAdmissionResponse).
import { randomUUID } from "node:crypto";
import type { ResourceDefinition } from "../registry/index.js";
import type { Obj } from "../storage/index.js";
import type { AdmissionAttributes, VerifiedResponse } from "./types.js";
import { stringifyJson } from "../object/deep-json.js";

export const supportedReviewVersions = ["v1", "v1beta1"] as const;

/** The AdmissionReview version to send: the webhook's first that the server speaks. */
export function pickReviewVersion(accepted: readonly string[]): "v1" | "v1beta1" | undefined {
  for (const v of accepted) if (v === "v1" || v === "v1beta1") return v;
  return undefined;
}

export interface ReviewRequest {
  uid: string;
  body: string;
}

/**
 * The request of an AdmissionReview without its uid and objects: what a webhook is told of the
 * call, and what its matchConditions see as `request`. `def` is the version it asked for.
 */
export function admissionRequest(attrs: AdmissionAttributes, def: ResourceDefinition): Obj {
  return {
    kind: { group: def.group, version: def.version, kind: def.kind },
    resource: { group: def.group, version: def.version, resource: def.plural },
    ...(attrs.subresource ? { subResource: attrs.subresource } : {}),
    requestKind: { group: attrs.def.group, version: attrs.def.version, kind: attrs.def.kind },
    requestResource: { group: attrs.def.group, version: attrs.def.version, resource: attrs.def.plural },
    ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
    operation: attrs.operation,
    userInfo: { username: attrs.user.name, groups: attrs.user.groups },
    dryRun: attrs.dryRun,
    options: attrs.options,
  };
}

/** The AdmissionReview for one webhook: `def` is the version it asked for (matchPolicy). */
export function admissionReview(
  version: "v1" | "v1beta1",
  attrs: AdmissionAttributes,
  def: ResourceDefinition,
  object: Readonly<Obj> | undefined,
  oldObject: Readonly<Obj> | undefined,
): ReviewRequest {
  const uid = randomUUID();
  const { dryRun, options, ...head } = admissionRequest(attrs, def);
  // The field order of kube's AdmissionRequest: uid first, the objects before dryRun and options.
  const request: Obj = {
    uid,
    ...head,
    object: object ?? null,
    oldObject: oldObject ?? null,
    dryRun,
    options,
  };
  const review = { kind: "AdmissionReview", apiVersion: `admission.k8s.io/${version}`, request };
  return { uid, body: stringifyJson(review) };
}

/** An answer that could not be decoded: kube reports it as a failed call ("failed to call webhook"). */
export class UndecodableResponseError extends Error {
  override readonly name = "UndecodableResponseError";
}

/** An answer that decoded but breaks the protocol ("received invalid webhook response"). */
export class InvalidResponseError extends Error {
  override readonly name = "InvalidResponseError";
}

function decode(body: Buffer): Obj {
  const text = body.toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new UndecodableResponseError(
      `couldn't get version/kind; json parse error: ${(e as Error).message}`,
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new UndecodableResponseError(
      `couldn't get version/kind; json parse error: cannot unmarshal ${Array.isArray(parsed) ? "array" : typeof parsed} into Go value of type struct`,
    );
  }
  const obj = parsed as Obj;
  if (typeof obj.kind !== "string" || obj.kind === "") {
    throw new UndecodableResponseError(`Object 'Kind' is missing in '${text.slice(0, 512)}'`);
  }
  return obj;
}

function patchBytes(value: unknown): Buffer | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
    throw new UndecodableResponseError("illegal base64 data in response.patch");
  }
  const bytes = Buffer.from(value, "base64");
  return bytes.length > 0 ? bytes : undefined;
}

/** Checks an answer to the review `uid` as kube does; throws one of the two errors above. */
export function verifyAdmissionResponse(
  version: "v1" | "v1beta1",
  uid: string,
  mutating: boolean,
  body: Buffer,
): VerifiedResponse {
  const review = decode(body);
  // kube decodes the answer into the review type it sent; the other AdmissionReview version is a
  // known type with no conversion between the two, so the call itself fails.
  const other = version === "v1" ? "v1beta1" : "v1";
  if (review.apiVersion === `admission.k8s.io/${other}` && review.kind === "AdmissionReview") {
    throw new UndecodableResponseError(
      `converting (${other}.AdmissionReview) to (${version}.AdmissionReview): unknown conversion`,
    );
  }
  const response = review.response as Obj | undefined | null;
  const patch = patchBytes(response?.patch);
  if (response === undefined || response === null || typeof response !== "object") {
    throw new InvalidResponseError("webhook response was absent");
  }
  const warnings = Array.isArray(response.warnings)
    ? response.warnings.filter((w): w is string => typeof w === "string")
    : [];
  const result = (response.status ?? undefined) as Obj | undefined;
  const allowed = response.allowed === true;
  if (version === "v1beta1") {
    // v1beta1 answers were never checked for uid or kind; a patch is always a JSON patch.
    return {
      allowed,
      patch: mutating ? patch : undefined,
      patchType: patch && mutating ? "JSONPatch" : "",
      result,
      warnings,
    };
  }
  if (response.uid !== uid) {
    throw new InvalidResponseError(`expected response.uid="${uid}", got "${String(response.uid ?? "")}"`);
  }
  if (review.apiVersion !== "admission.k8s.io/v1" || review.kind !== "AdmissionReview") {
    throw new InvalidResponseError(
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gvkText(review)}`,
    );
  }
  const patchType = response.patchType;
  if (mutating) {
    if (patch && (patchType === undefined || patchType === null)) {
      throw new InvalidResponseError("webhook returned response.patch but not response.patchType");
    }
    if (!patch && patchType !== undefined && patchType !== null) {
      throw new InvalidResponseError("webhook returned response.patchType but not response.patch");
    }
    if (patch && patchType === "") {
      throw new InvalidResponseError(`webhook returned invalid response.patchType of ""`);
    }
    return { allowed, patch, patchType: typeof patchType === "string" ? patchType : "", result, warnings };
  }
  if (patch) throw new InvalidResponseError("validating webhook may not return response.patch");
  if (patchType !== undefined && patchType !== null) {
    throw new InvalidResponseError("validating webhook may not return response.patchType");
  }
  return { allowed, patch: undefined, patchType: "", result, warnings };
}

function gvkText(review: Obj): string {
  const apiVersion = String(review.apiVersion ?? "");
  const slash = apiVersion.indexOf("/");
  const gv = slash < 0 ? `/${apiVersion}` : apiVersion;
  return `${gv}, Kind=${String(review.kind ?? "")}`;
}
