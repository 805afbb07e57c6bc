// ConversionReview bodies and the checks apiextensions-apiserver makes on the answer: kind and
// uid, a Success result, one converted object per object sent, each in the desired version with
// the same kind, name, namespace and uid; metadata restored but for labels and annotations.
import { randomUUID } from "node:crypto";
import type { Obj } from "../storage/index.js";
import { cloneJson, stringifyJson } from "../object/deep-json.js";

/** The ConversionReview version to send: the CRD's first that the server speaks. */
export function pickConversionVersion(accepted: readonly string[] | undefined): "v1" | "v1beta1" | undefined {
  for (const v of accepted ?? ["v1beta1"]) if (v === "v1" || v === "v1beta1") return v;
  return undefined;
}

export function conversionReview(
  version: "v1" | "v1beta1",
  desiredAPIVersion: string,
  objects: readonly Readonly<Obj>[],
): { uid: string; body: string } {
  const uid = randomUUID();
  const review = {
    kind: "ConversionReview",
    apiVersion: `apiextensions.k8s.io/${version}`,
    request: { uid, desiredAPIVersion, objects },
  };
  return { uid, body: stringifyJson(review) };
}

/** Reads the converted objects out of an answer; throws an Error worded as kube's. */
export function convertedObjects(version: "v1" | "v1beta1", uid: string, body: Buffer): Obj[] {
  let review: Obj;
  try {
    review = JSON.parse(body.toString("utf8")) as Obj;
  } catch (e) {
    throw new Error(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
  if (review === null || typeof review !== "object" || Array.isArray(review)) {
    throw new Error("couldn't get version/kind; json parse error: not an object");
  }
  if (version === "v1") {
    const gvk = `${String(review.apiVersion ?? "")}, Kind=${String(review.kind ?? "")}`;
    if (review.apiVersion !== "apiextensions.k8s.io/v1" || review.kind !== "ConversionReview") {
      throw new Error(
        `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${gvk}`,
      );
    }
  }
  const response = review.response as Obj | undefined | null;
  if (!response || typeof response !== "object") throw new Error("no response provided");
  if (version === "v1" && response.uid !== uid) {
    throw new Error(`expected response.uid="${uid}", got "${String(response.uid ?? "")}"`);
  }
  const result = (response.result ?? {}) as Obj;
  if (result.status !== "Success") {
    if (typeof result.message === "string" && result.message) throw new Error(result.message);
    throw new Error(`response.result.status was '${String(result.status ?? "")}', not 'Success'`);
  }
  const objects = response.convertedObjects;
  return Array.isArray(objects) ? (objects as Obj[]) : [];
}

/** Checks one converted object against its original and restores its metadata, as kube does. */
export function checkConverted(
  original: Readonly<Obj>,
  converted: Obj,
  desiredAPIVersion: string,
): string | undefined {
  if (converted === null || typeof converted !== "object" || Array.isArray(converted)) return "not an object";
  if (converted.apiVersion !== desiredAPIVersion) {
    return `invalid groupVersion (expected ${desiredAPIVersion}, received ${String(converted.apiVersion ?? "")})`;
  }
  if (converted.kind !== original.kind) {
    return `invalid kind (expected ${String(original.kind)}, received ${String(converted.kind ?? "")})`;
  }
  const before = (original.metadata ?? {}) as Obj;
  const after = converted.metadata as Obj | undefined;
  if (!after || typeof after !== "object") return "missing metadata in converted object";
  for (const f of ["name", "namespace", "uid"] as const) {
    if ((before[f] ?? "") !== (after[f] ?? "")) {
      const what = f === "uid" ? "UID" : f;
      return `must have the same ${what}: ${String(before[f] ?? "")} != ${String(after[f] ?? "")}`;
    }
  }
  const restored = cloneJson(before) as Obj;
  for (const f of ["labels", "annotations"] as const) {
    const value = after[f];
    if (value === undefined || value === null) delete restored[f];
    else restored[f] = value;
  }
  converted.metadata = restored;
  return undefined;
}
