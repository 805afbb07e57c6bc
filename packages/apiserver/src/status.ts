// Status bodies: every error the server answers is a meta/v1 Status with kube-apiserver's
// reason, code, details and message wording, built here so the wording lives in one place.
import type { Status, StatusCause, StatusDetails } from "kubernetes-types/meta/v1.js";

export type { Status, StatusCause } from "kubernetes-types/meta/v1.js";

/** An error that becomes a Status response: thrown by handlers, caught by the router. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  toStatus(): Status {
    return failureStatus(this.code, this.reason, this.message, this.details);
  }

  /** The error that answers `status` (an injected fault's). */
  static fromStatus(status: Status): ApiError {
    return new ApiError(status.code ?? 500, status.reason ?? "", status.message ?? "", status.details);
  }
}

export function failureStatus(
  code: number,
  reason: string,
  message: string,
  details?: StatusDetails,
): Status {
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
  };
  // StatusReasonUnknown is "", which kube's encoder omits.
  if (reason) status.reason = reason;
  if (details !== undefined) status.details = details;
  status.code = code;
  return status;
}

/** How an error names a resource: `configmaps`, `deployments.apps`, `widgets.example.com`. */
export interface ResourceRef {
  group: string;
  /** The plural resource name. */
  resource: string;
  /** The kind, for `Invalid` errors. */
  kind: string;
}

function qualifiedResource(r: ResourceRef): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

function qualifiedKind(r: ResourceRef): string {
  return r.group ? `${r.kind}.${r.group}` : r.kind;
}

function resourceDetails(r: ResourceRef, name: string): StatusDetails {
  const details: StatusDetails = { name };
  if (r.group) details.group = r.group;
  details.kind = r.resource;
  return details;
}

export function notFound(r: ResourceRef, name: string): ApiError {
  return new ApiError(
    404,
    "NotFound",
    `${qualifiedResource(r)} "${name}" not found`,
    resourceDetails(r, name),
  );
}

export function alreadyExists(r: ResourceRef, name: string): ApiError {
  return new ApiError(
    409,
    "AlreadyExists",
    `${qualifiedResource(r)} "${name}" already exists`,
    resourceDetails(r, name),
  );
}

export function conflict(r: ResourceRef, name: string, why: string): ApiError {
  return new ApiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(r)} "${name}": ${why}`,
    resourceDetails(r, name),
  );
}

export const staleObjectMessage =
  "the object has been modified; please apply your changes to the latest version and try again";

/** A failed delete precondition; kube names the kind here, not the resource. */
export function preconditionFailed(r: ResourceRef, name: string, why: string): ApiError {
  return new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${r.kind} "${name}": ${why}`, {
    name,
    ...(r.group ? { group: r.group } : {}),
    kind: r.kind,
  });
}

/** The message of one cause as kube prints it inside the summary: `field: message`. */
function causeText(c: StatusCause): string {
  return c.field ? `${c.field}: ${c.message}` : (c.message ?? "");
}

export function invalid(r: ResourceRef, name: string, causes: StatusCause[]): ApiError {
  // apimachinery's ErrorList.ToAggregate prints each distinct error once (the causes keep all):
  // a schema's nested combinators repeat their error once per level.
  const texts = [...new Set(causes.map(causeText))];
  const summary = texts.length === 1 ? texts[0] : `[${texts.join(", ")}]`;
  // Go leaves empty fields out (a review has no name, a review's error no kind).
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (r.group) details.group = r.group;
  if (r.kind) details.kind = r.kind;
  details.causes = causes;
  return new ApiError(422, "Invalid", `${qualifiedKind(r)} "${name}" is invalid: ${summary}`, details);
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, "BadRequest", message);
}

export function forbidden(r: ResourceRef, name: string, why: string): ApiError {
  const subject = name ? `${qualifiedResource(r)} "${name}"` : qualifiedResource(r);
  return new ApiError(403, "Forbidden", `${subject} is forbidden: ${why}`, resourceDetails(r, name));
}

export function methodNotAllowed(): ApiError {
  return new ApiError(
    405,
    "MethodNotAllowed",
    "the server does not allow this method on the requested resource",
    {},
  );
}

/**
 * A path no handler of kube's serves (not /api, a group it does not know, /openapi's unknown
 * paths): its chain ends in Go's http.NotFound, plain text rather than a Status.
 */
export class PageNotFoundError extends ApiError {
  constructor() {
    super(404, "NotFound", "404 page not found");
  }
}

export function resourceNotFound(): ApiError {
  return new ApiError(404, "NotFound", "the server could not find the requested resource", {});
}

export function unsupportedMediaType(accepted: string[]): ApiError {
  return new ApiError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
  );
}

export function tooLarge(limit: number): ApiError {
  return new ApiError(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limit}`);
}

export function expired(message: string): ApiError {
  return new ApiError(410, "Expired", message);
}

export function internalError(message: string): ApiError {
  return new ApiError(500, "InternalError", `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

/** Field causes in apimachinery's `field.Error` wording. */
export const cause = {
  invalid(field: string, value: unknown, detail: string): StatusCause {
    return { reason: "FieldValueInvalid", message: `Invalid value: ${goValue(value)}: ${detail}`, field };
  },
  required(field: string, detail = ""): StatusCause {
    return {
      reason: "FieldValueRequired",
      message: detail ? `Required value: ${detail}` : "Required value",
      field,
    };
  },
  forbidden(field: string, detail: string): StatusCause {
    return { reason: "FieldValueForbidden", message: `Forbidden: ${detail}`, field };
  },
  notSupported(field: string, value: unknown, supported: string[]): StatusCause {
    const list = supported.map((s) => JSON.stringify(s)).join(", ");
    return {
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${goValue(value)}: supported values: ${list}`,
      field,
    };
  },
  duplicate(field: string, value: unknown): StatusCause {
    return { reason: "FieldValueDuplicate", message: `Duplicate value: ${goValue(value)}`, field };
  },
};

/** Values as apimachinery prints them in causes: strings quoted, numbers bare. */
function goValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null || value === undefined) return "null";
  return JSON.stringify(value);
}

/** Status of a successful delete: what kube answers when it does not return the object. */
export function deleteSuccess(r: ResourceRef, name: string, uid: string): Status {
  const details: StatusDetails = { name };
  if (r.group) details.group = r.group;
  details.kind = r.resource;
  details.uid = uid;
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details };
}
