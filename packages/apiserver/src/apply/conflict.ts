// Apply conflicts: fields another manager owns that an apply would change. Worded as kube's
// fieldmanager words them (`conflict with "m" using v1: .spec.x`), and answered as 409 Conflict
// with one FieldManagerConflict cause per field.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { ApiError } from "../status.js";
import type { ManagerSet } from "./managers.js";
import { type Path, pathText } from "./path-element.js";

export interface ManagerConflict {
  /** The manager's identity (managerIdentity), by which conflicts are sorted. */
  readonly identity: string;
  readonly owner: ManagerSet;
  readonly paths: readonly Path[];
}

export class ApplyConflictError extends Error {
  readonly conflicts: readonly ManagerConflict[];

  constructor(conflicts: readonly ManagerConflict[]) {
    const sorted = [...conflicts].sort((a, b) =>
      a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0,
    );
    super(conflictMessage(sorted));
    this.name = "ApplyConflictError";
    this.conflicts = sorted;
  }

  /** The 409 Status kube answers. */
  toApiError(): ApiError {
    const causes: StatusCause[] = [];
    for (const c of this.conflicts) {
      for (const p of c.paths) {
        causes.push({
          reason: "FieldManagerConflict",
          message: `conflict with ${printManager(c.owner)}`,
          field: pathText(p),
        });
      }
    }
    return new ApiError(409, "Conflict", this.message, { causes });
  }
}

/** `"m"`, `"m" with subresource "status"`, and ` using <apiVersion>` for updaters. */
export function printManager(
  m: Pick<ManagerSet, "manager" | "operation" | "apiVersion" | "subresource">,
): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === "Update") s += ` using ${m.apiVersion}`;
  return s;
}

function conflictMessage(conflicts: readonly ManagerConflict[]): string {
  const total = conflicts.reduce((n, c) => n + c.paths.length, 0);
  if (total === 1) {
    const c = conflicts.find((x) => x.paths.length === 1)!;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.owner)}: ${pathText(c.paths[0])}`;
  }
  const lines: string[] = [];
  for (const c of conflicts) {
    lines.push(`conflicts with ${printManager(c.owner)}:`);
    for (const p of c.paths) lines.push(`- ${pathText(p)}`);
  }
  return `Apply failed with ${total} conflicts: ${lines.join("\n")}`;
}
