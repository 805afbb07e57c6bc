// kube's ValidatePodUpdate, its last check: through the main endpoint a Pod's spec may change only
// its containers' images, activeDeadlineSeconds, tolerations (validated elsewhere), scheduling
// gates, terminationGracePeriodSeconds from a negative value to 1, and, while the Pod is gated,
// its node selector and node affinity. Anything else (a container's resources: that is the
// resize subresource's) is refused. Quota depends on it: a Pod's usage is charged once, on create.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { deepEqual } from "../object/meta.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const UPDATABLE = [
  "`spec.containers[*].image`",
  "`spec.initContainers[*].image`",
  "`spec.activeDeadlineSeconds`",
  "`spec.tolerations` (only additions to existing tolerations)",
  "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
];

/** The paths below `path` where a and b differ (for the message; kube prints a Go diff). */
function differences(a: unknown, b: unknown, path: string, out: string[]): void {
  if (deepEqual(a, b)) return;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (const [i, x] of a.entries()) differences(x, b[i], `${path}[${i}]`, out);
  } else if (isObj(a) && isObj(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
      differences(a[k], b[k], `${path}.${k}`, out);
  } else out.push(path);
}

export function validatePodSpecUpdate(obj: Readonly<Obj>, old: Readonly<Obj>): StatusCause[] {
  const spec = isObj(obj.spec) ? obj.spec : {};
  const oldSpec = isObj(old.spec) ? old.spec : {};
  if (deepEqual(spec, oldSpec)) return [];
  // Checked first, and alone: kube keeps this answer from before the list of what may change.
  const count = (s: Obj) => (Array.isArray(s.containers) ? s.containers.length : 0);
  if (count(spec) !== count(oldSpec))
    return [cause.forbidden("spec.containers", "pod updates may not add or remove containers")];
  // Scheduling gates may only go (only deletion is allowed).
  const gates = (s: Obj) => (Array.isArray(s.schedulingGates) ? (s.schedulingGates as Obj[]) : []);
  const oldGates = new Set(gates(oldSpec).map((g) => g?.name));
  const added: StatusCause[] = [];
  gates(spec).forEach((g, i) => {
    if (!oldGates.has(g?.name))
      added.push(
        cause.forbidden(
          `spec.schedulingGates[${i}].name`,
          `only deletion is allowed, but found new scheduling gate '${String(g?.name ?? "")}'`,
        ),
      );
  });
  if (added.length > 0) return added;
  const munged: Obj = structuredClone(spec);
  for (const list of ["containers", "initContainers"]) {
    const mine = munged[list];
    const theirs = oldSpec[list];
    if (!Array.isArray(mine) || !Array.isArray(theirs)) continue;
    mine.forEach((c, i) => {
      if (isObj(c) && isObj(theirs[i])) {
        if (theirs[i].image === undefined) delete c.image;
        else c.image = theirs[i].image;
      }
    });
  }
  const keepOld = (key: string, from: Obj = oldSpec, into: Obj = munged) => {
    if (from[key] === undefined) delete into[key];
    else into[key] = from[key];
  };
  keepOld("activeDeadlineSeconds");
  keepOld("schedulingGates");
  keepOld("tolerations");
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  if (typeof oldGrace === "number" && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) {
    keepOld("terminationGracePeriodSeconds");
  }
  // A Pod still held by scheduling gates may have its node selector and affinity changed.
  if (Array.isArray(oldSpec.schedulingGates) && oldSpec.schedulingGates.length > 0) {
    keepOld("nodeSelector");
    const affinity = isObj(munged.affinity) ? munged.affinity : undefined;
    const oldAffinity = isObj(oldSpec.affinity) ? oldSpec.affinity : {};
    if (affinity) keepOld("nodeAffinity", oldAffinity, affinity);
  }
  if (deepEqual(munged, oldSpec)) return [];
  const changed: string[] = [];
  differences(oldSpec, munged, "spec", changed);
  return [
    cause.forbidden(
      "spec",
      `pod updates may not change fields other than ${UPDATABLE.join(",")}\n(changed: ${changed.join(", ")})`,
    ),
  ];
}
