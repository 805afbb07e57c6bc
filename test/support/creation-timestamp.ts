// An unset ObjectMeta.creationTimestamp (a template's, an unstored review's) as the run's server
// writes it. Since kube 1.35 the field is `omitempty,omitzero` and Go leaves a zero time out;
// before, a non-pointer struct was always written, as null.
import { versionDifference } from "./environment.js";

/** `{}` since kube 1.35, `{ creationTimestamp: null }` before: spread it into an expected ObjectMeta. */
export function unsetCreationTimestamp(): { creationTimestamp?: null } {
  return versionDifference("kube <1.35: an unset creationTimestamp was written as null (omitzero since)")
    ? {}
    : { creationTimestamp: null };
}
