// The check controller-runtime's decoder makes when it decodes a request's object into the Go type
// of the webhook's kind.
import type { KubeObject, Kind } from "../../api/index.js";
import { errored } from "./response.js";
import type { AdmissionResponse } from "./types.js";

/** An errored (400) response when `obj` is missing or of another kind than `kind`, else undefined. */
export function objectKindMismatch(
  kind: Kind,
  obj: KubeObject | undefined,
  field = "object",
): AdmissionResponse | undefined {
  if (typeof obj !== "object" || obj === null || Array.isArray(obj)) {
    return errored(400, `the admission request has no ${field} (expected a ${kind.kind})`);
  }
  // Objects without apiVersion/kind are taken as given, as Go's decoder takes them.
  if ((obj.kind && obj.kind !== kind.kind) || (obj.apiVersion && obj.apiVersion !== kind.apiVersion)) {
    return errored(
      400,
      `the admission request's ${field} is ${obj.apiVersion}, Kind=${obj.kind}; this webhook expects ` +
        `${kind.apiVersion}, Kind=${kind.kind}`,
    );
  }
  return undefined;
}
