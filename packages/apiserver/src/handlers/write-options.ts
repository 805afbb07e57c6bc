// A write's options (CreateOptions, UpdateOptions, PatchOptions), checked as a whole before the
// body is read, as kube's handlers check them (apimachinery's ValidateCreateOptions and kin): one
// 422 on the options kind naming every problem, rather than a 400 for the first.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { cause, invalid } from "../status.js";
import type { ResourceRequest } from "./context.js";

export type OptionsKind = "CreateOptions" | "UpdateOptions" | "PatchOptions";

/** apimachinery's FieldManagerMaxLength. */
const FIELD_MANAGER_MAX_BYTES = 128;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** ValidateFieldManager: at most 128 bytes, every character printable. */
function fieldManagerCauses(fieldManager: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_BYTES) {
    causes.push({
      reason: "FieldValueTooLong",
      message: `Too long: may not be more than ${FIELD_MANAGER_MAX_BYTES} bytes`,
      field: "fieldManager",
    });
  }
  // Printable ASCII, what nearly every manager is: nothing to look at character by character.
  if (/^[\x20-\x7e]*$/.test(fieldManager)) return causes;
  let offset = 0;
  for (const ch of fieldManager) {
    if (!PRINTABLE.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
      causes.push(
        cause.invalid("fieldManager", fieldManager, `invalid character U+${code} (at position ${offset})`),
      );
    }
    offset += Buffer.byteLength(ch);
  }
  return causes;
}

/**
 * Refuses the request's options as kube does: for a patch, `force` only with apply and a field
 * manager required with it; then the field manager, dryRun (only "All") and fieldValidation.
 */
export function validateWriteOptions(r: ResourceRequest, kind: OptionsKind, apply = false): void {
  const causes: StatusCause[] = [];
  const fieldManager = r.query.get("fieldManager") ?? "";
  if (kind === "PatchOptions") {
    if (!apply && r.query.has("force"))
      causes.push(cause.forbidden("force", "may not be specified for non-apply patch"));
    if (apply && fieldManager === "")
      causes.push(cause.required("fieldManager", "is required for apply patch"));
  }
  causes.push(...fieldManagerCauses(fieldManager));
  const dryRun = r.query.getAll("dryRun");
  if (dryRun.some((v) => v !== "All")) causes.push(cause.notSupported("dryRun", dryRun, ["All"]));
  const fieldValidation = r.query.get("fieldValidation") ?? "";
  if (!["", "Ignore", "Strict", "Warn"].includes(fieldValidation)) {
    causes.push(cause.notSupported("fieldValidation", fieldValidation, ["", "Ignore", "Strict", "Warn"]));
  }
  if (causes.length > 0) throw invalid({ group: "meta.k8s.io", kind, resource: "" }, "", causes);
}
