// The status kube's CRD controllers write: `acceptedNames` and the `NamesAccepted` and
// `Established` conditions (naming controller and establishing controller), and `Terminating`.
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionCondition,
  CustomResourceDefinitionNames,
} from "kubernetes-types/apiextensions/v1.js";

/** Names already served in the CRD's group by other resources (other CRDs, built-ins). */
export interface NamesInUse {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
}

export interface CRDStatusUpdate {
  conditions: CustomResourceDefinitionCondition[];
  acceptedNames: CustomResourceDefinitionNames;
}

/** `2026-11-21T14:26:29Z`: condition times have seconds precision. */
export function conditionTime(now: Date): string {
  return `${now.toISOString().slice(0, 19)}Z`;
}

/**
 * The CRD's status after kube's controllers saw it: names are accepted unless another resource
 * of the group uses them; Established follows once the initial names are accepted (and stays,
 * as in kube, when later names conflict). Conditions that do not change keep their
 * `lastTransitionTime`; other conditions (`Terminating`, ...) are kept.
 */
export function crdConditions(
  crd: CustomResourceDefinition,
  now: Date,
  others: readonly NamesInUse[] = [],
): CRDStatusUpdate {
  const requested = defaultedNames(crd.spec.names);
  const conflict = findConflict(requested, others);
  const previous = crd.status?.conditions ?? [];
  const time = conditionTime(now);
  const was = (type: string) => previous.find((c) => c.type === type);
  const make = (
    type: string,
    status: string,
    reason: string,
    message: string,
  ): CustomResourceDefinitionCondition => {
    const old = was(type);
    const lastTransitionTime =
      old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : time;
    return { type, status, lastTransitionTime, reason, message };
  };
  const namesAccepted = conflict
    ? make("NamesAccepted", "False", conflict.reason, conflict.message)
    : make("NamesAccepted", "True", "NoConflicts", "no conflicts found");
  const wasEstablished = was("Established")?.status === "True";
  const established =
    conflict && !wasEstablished
      ? make("Established", "False", "NotAccepted", "not all names are accepted")
      : wasEstablished
        ? (was("Established") as CustomResourceDefinitionCondition)
        : make("Established", "True", "InitialNamesAccepted", "the initial names have been accepted");
  const rest = previous.filter((c) => c.type !== "NamesAccepted" && c.type !== "Established");
  const acceptedNames = conflict ? (crd.status?.acceptedNames ?? { plural: "", kind: "" }) : requested;
  return { conditions: [namesAccepted, established, ...rest], acceptedNames };
}

/** The `Terminating` condition kube sets while a deleted CRD's objects are removed. */
export function terminatingCondition(now: Date): CustomResourceDefinitionCondition {
  return {
    type: "Terminating",
    status: "True",
    lastTransitionTime: conditionTime(now),
    reason: "InstanceDeletionInProgress",
    message: "CustomResource deletion is in progress",
  };
}

/** The requested names with kube's defaults, in the order kube prints them. */
function defaultedNames(names: CustomResourceDefinitionNames): CustomResourceDefinitionNames {
  return {
    plural: names.plural,
    singular: names.singular || names.kind.toLowerCase(),
    ...(names.shortNames?.length ? { shortNames: [...names.shortNames] } : {}),
    kind: names.kind,
    listKind: names.listKind || `${names.kind}List`,
    ...(names.categories?.length ? { categories: [...names.categories] } : {}),
  };
}

function findConflict(
  names: CustomResourceDefinitionNames,
  others: readonly NamesInUse[],
): { reason: string; message: string } | undefined {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    for (const n of [o.plural, o.singular, ...(o.shortNames ?? [])]) if (n) resources.add(n);
    for (const k of [o.kind, o.listKind]) if (k) kinds.add(k);
  }
  const used = (n: string | undefined) => (n ? JSON.stringify(n) : "");
  // kube's naming controller checks every name and the last conflict found names the condition.
  let found: { reason: string; message: string } | undefined;
  if (resources.has(names.plural))
    found = { reason: "PluralConflict", message: `${used(names.plural)} is already in use` };
  if (names.singular && resources.has(names.singular)) {
    found = { reason: "SingularConflict", message: `${used(names.singular)} is already in use` };
  }
  const shortConflicts = (names.shortNames ?? []).filter((s) => resources.has(s));
  if (shortConflicts.length > 0) {
    const errs = shortConflicts.map((s) => `${used(s)} is already in use`);
    found = { reason: "ShortNamesConflict", message: errs.length === 1 ? errs[0] : `[${errs.join(", ")}]` };
  }
  if (kinds.has(names.kind))
    found = { reason: "KindConflict", message: `${used(names.kind)} is already in use` };
  if (names.listKind && kinds.has(names.listKind)) {
    found = { reason: "ListKindConflict", message: `${used(names.listKind)} is already in use` };
  }
  return found;
}
