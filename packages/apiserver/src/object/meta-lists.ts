// ObjectMeta's two lists, as kube-apiserver checks them on every write: owner references
// (apimachinery's ValidateOwnerReferences, and the handlers' de-duplication with a warning) and
// finalizers (apimachinery's ValidateFinalizers; core's ValidateObjectMeta adds the "standard or
// fully qualified" rule, which most built-in kinds run and custom resources turn into a warning).
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { qualifiedNameErrors } from "controller-runtime/api";
import type { ResourceDefinition } from "../registry/index.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";

/** The finalizers kube itself knows (core's standardFinalizers). */
const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

/** apimachinery's BannedOwners. */
const BANNED_OWNERS = new Set(["/v1/Event"]);

/** An owner reference's fields in OwnerReference's declaration order, as Go prints it in a cause. */
const OWNER_REFERENCE_FIELDS = ["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"];

const str = (v: unknown): string => (typeof v === "string" ? v : "");

function goOrdered(ref: Obj): Obj {
  const out: Obj = {};
  for (const k of OWNER_REFERENCE_FIELDS) if (ref[k] !== undefined) out[k] = ref[k];
  return out;
}

/** ParseGroupVersion's verdict on an owner's apiVersion: its group and version, or undefined. */
function groupVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

/** apimachinery's ValidateOwnerReferences, at metadata.ownerReferences. */
export function ownerReferenceCauses(refs: unknown): StatusCause[] {
  if (!Array.isArray(refs)) return [];
  const causes: StatusCause[] = [];
  let firstController = "";
  refs.forEach((raw, i) => {
    const ref = (typeof raw === "object" && raw !== null ? raw : {}) as Obj;
    const at = `metadata.ownerReferences[${i}]`;
    const apiVersion = str(ref.apiVersion);
    const gv = groupVersion(apiVersion);
    if (apiVersion === "") causes.push(cause.required(`${at}.apiVersion`, "must not be empty"));
    else if (gv === undefined || gv.version === "")
      causes.push(cause.invalid(`${at}.apiVersion`, apiVersion, "must be <group>/<version> or <version>"));
    const kind = str(ref.kind);
    if (kind === "") causes.push(cause.required(`${at}.kind`, "must not be empty"));
    if (str(ref.name) === "") causes.push(cause.required(`${at}.name`, "must not be empty"));
    if (str(ref.uid) === "") causes.push(cause.required(`${at}.uid`, "must not be empty"));
    const group = gv?.group ?? "";
    const version = gv?.version ?? "";
    if (BANNED_OWNERS.has(`${group}/${version}/${kind}`)) {
      causes.push(
        cause.invalid(
          at,
          goOrdered(ref),
          `${group}/${version}, Kind=${kind} is disallowed from being an owner`,
        ),
      );
    }
    if (ref.controller === true) {
      const name = `${kind}/${str(ref.name)}`;
      if (firstController === "") firstController = name;
      else
        causes.push(
          cause.invalid(
            "metadata.ownerReferences",
            refs.map((r) => goOrdered(r as Obj)),
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${name}`,
          ),
        );
    }
  });
  return causes;
}

/**
 * Kinds whose validation runs only apimachinery's ObjectMeta checks (their registries call its
 * ValidateObjectMeta, or none at all): a finalizer needs no domain there. Found by asking
 * kube-apiserver 1.37 for each kind; core Events are lenient only through the core API.
 */
const GENERIC_META_GROUPS = new Set([
  "admissionregistration.k8s.io",
  "coordination.k8s.io",
  "apiextensions.k8s.io",
  "apiregistration.k8s.io",
]);
const GENERIC_META_KINDS = new Set(["node.k8s.io/RuntimeClass", "policy/PodDisruptionBudget", "/Event"]);

function checksFinalizerDomains(def: ResourceDefinition): boolean {
  if (def.crdName) return false;
  return !GENERIC_META_GROUPS.has(def.group) && !GENERIC_META_KINDS.has(`${def.group}/${def.kind}`);
}

/**
 * apimachinery's ValidateFinalizers (each name a qualified name, at metadata.finalizers; orphan and
 * foregroundDeletion not both), then core's rule that a name without a `/` be a standard one.
 */
export function finalizerCauses(def: ResourceDefinition, finalizers: unknown): StatusCause[] {
  if (!Array.isArray(finalizers)) return [];
  const causes: StatusCause[] = [];
  const names = finalizers.map(str);
  for (const name of names)
    for (const msg of qualifiedNameErrors(name)) causes.push(cause.invalid("metadata.finalizers", name, msg));
  if (names.includes("orphan") && names.includes("foregroundDeletion")) {
    causes.push(
      cause.invalid(
        "metadata.finalizers",
        names,
        "finalizer orphan and foregroundDeletion cannot be both set",
      ),
    );
  }
  if (checksFinalizerDomains(def)) {
    names.forEach((name, i) => {
      if (!name.includes("/") && !STANDARD_FINALIZERS.has(name))
        causes.push(
          cause.invalid(
            `metadata.finalizers[${i}]`,
            name,
            "name is neither a standard finalizer name nor is it fully qualified",
          ),
        );
    });
  }
  return causes;
}

/**
 * A custom resource's warnings for finalizers it adds (apiextensions' WarningsOnCreate/Update): a
 * name without a `/` that kube does not know should carry a domain. Sorted, as Go's set lists them.
 */
export function customResourceFinalizerWarnings(obj: Obj, old: Obj | undefined): string[] {
  const now = (obj.metadata as Obj | undefined)?.finalizers;
  if (!Array.isArray(now) || now.length === 0) return [];
  const before = new Set(((old?.metadata as Obj | undefined)?.finalizers as unknown[] | undefined) ?? []);
  const added = [...new Set(now.map(str))].filter((f) => !before.has(f)).sort();
  const warnings: string[] = [];
  for (const name of added) {
    const quoted = JSON.stringify(name);
    for (const msg of qualifiedNameErrors(name)) warnings.push(`metadata.finalizers: ${quoted}: ${msg}`);
    if (!name.includes("/") && !STANDARD_FINALIZERS.has(name)) {
      warnings.push(
        name.includes(".")
          ? `metadata.finalizers: ${quoted}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`
          : `metadata.finalizers: ${quoted}: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`,
      );
    }
  }
  return warnings;
}

/** How kube words a de-duplication, by where it happened (endpoints/handlers/rest.go). */
const DUPLICATES_BEFORE_ADMISSION =
  ".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ";
const DUPLICATES_AFTER_ADMISSION =
  ".metadata.ownerReferences contains duplicate entries after mutating admission happens; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ";

/**
 * Drops the owner references equal to an earlier one (same UID and every field), as kube's
 * handlers do on create, update and patch, and says so in `warnings`. A patch's is found after
 * mutating admission, and worded so.
 */
export function dedupOwnerReferences(obj: Obj, warnings: string[], afterAdmission: boolean): void {
  const meta = obj.metadata as Obj | undefined;
  const refs = meta?.ownerReferences;
  if (!Array.isArray(refs) || refs.length < 2) return;
  const kept: unknown[] = [];
  const duplicates: string[] = [];
  const seen = new Set<string>();
  for (const ref of refs) {
    const uid = str((ref as Obj | null)?.uid);
    if (seen.has(uid) && kept.some((k) => sameReference(k, ref))) duplicates.push(uid);
    else {
      seen.add(uid);
      kept.push(ref);
    }
  }
  if (duplicates.length === 0) return;
  meta!.ownerReferences = kept;
  warnings.push(
    (afterAdmission ? DUPLICATES_AFTER_ADMISSION : DUPLICATES_BEFORE_ADMISSION) + duplicates.join(", "),
  );
}

/** apiequality.Semantic.DeepEqual of two owner references (an unset pointer is not `false`). */
function sameReference(a: unknown, b: unknown): boolean {
  const x = (a ?? {}) as Obj;
  const y = (b ?? {}) as Obj;
  return OWNER_REFERENCE_FIELDS.every((k) => (x[k] ?? null) === (y[k] ?? null));
}
