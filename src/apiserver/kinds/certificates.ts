// CertificateSigningRequests: the requester's identity recorded in the spec at create, conditions
// stamped with their times (populateConditionTimestamps), and the request checked to be a PEM
// certificate request. Approval goes through /approval (see object/meta.ts).
import { kubeTime } from "../object/meta.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

function conditionsOf(obj: Readonly<Obj> | undefined): Obj[] {
  const c = (obj?.status as Obj | undefined)?.conditions;
  return Array.isArray(c) ? (c as Obj[]) : [];
}

export const certificateSigningRequestBehaviour: KindBehaviour = {
  defaults(obj, { old, server }) {
    if (!old) return;
    const now = kubeTime(server.now());
    for (const c of conditionsOf(obj)) {
      if (!c || typeof c !== "object") continue;
      if (!c.lastUpdateTime) c.lastUpdateTime = now;
      if (!c.lastTransitionTime) {
        const same = conditionsOf(old).find(
          (o) => o.type === c.type && o.status === c.status && o.lastTransitionTime,
        );
        c.lastTransitionTime = same?.lastTransitionTime ?? now;
      }
    }
  },
  created(obj, { user }) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    if (user) {
      spec.username = user.name;
      if (user.uid) spec.uid = user.uid;
      spec.groups = [...user.groups];
      if (user.extra && Object.keys(user.extra).length > 0) spec.extra = structuredClone(user.extra);
      else delete spec.extra;
    }
    // Nobody creates a request already approved.
    obj.status = {};
  },
  validate(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    const causes = [];
    const request =
      typeof spec.request === "string" ? Buffer.from(spec.request, "base64").toString("latin1") : "";
    if (!/^\s*-----BEGIN CERTIFICATE REQUEST-----\r?\n/.test(request)) {
      causes.push(
        cause.invalid("spec.request", spec.request ?? "", "PEM block type must be CERTIFICATE REQUEST"),
      );
    }
    if (!spec.signerName) causes.push(cause.required("spec.signerName"));
    return causes;
  },
};
