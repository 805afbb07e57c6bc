// The Status an injected fault answers with, in kube-apiserver's words. Both the embedded server
// and envtest's fault proxy send it as it is, so the fault layer needs neither's error types.
import type { Status, StatusDetails } from "kubernetes-types/meta/v1.js";

/** An injected failure: the server or the proxy answers `status` with its code. */
export class FaultStatusError extends Error {
  override readonly name = "FaultStatusError";
  readonly status: Status;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason,
      ...(details !== undefined ? { details } : {}),
      code,
    };
  }

  get code(): number {
    return this.status.code ?? 500;
  }
}

/** A resource as a Status names it. */
export interface FaultResource {
  group: string;
  /** Plural. */
  resource: string;
}

/**
 * kube's 409 for a write on a stale resourceVersion. A create has no such 409 in kube and its
 * object's name is in a body the fault layer does not read: its injected conflict says what it is
 * and where, rather than speak of a modification of an object it cannot name.
 */
export function staleConflict(r: FaultResource, name: string, namespace = ""): FaultStatusError {
  const qualified = r.group ? `${r.resource}.${r.group}` : r.resource;
  if (name === "") {
    const where = namespace ? ` in namespace "${namespace}"` : "";
    return new FaultStatusError(
      409,
      "Conflict",
      `Operation cannot be fulfilled on ${qualified}${where}: an injected conflict on a create; nothing was created, retry the create`,
      { ...(r.group ? { group: r.group } : {}), kind: r.resource },
    );
  }
  return new FaultStatusError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualified} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, ...(r.group ? { group: r.group } : {}), kind: r.resource },
  );
}

/** kube's 410 for a watch from a compacted resourceVersion. */
export function expiredStatus(message: string): Status {
  return new FaultStatusError(410, "Expired", message).status;
}

export function internalFault(message: string): FaultStatusError {
  return new FaultStatusError(500, "InternalError", `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}
