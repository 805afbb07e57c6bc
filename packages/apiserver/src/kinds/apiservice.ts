// APIServices as kube-aggregator's strategy creates them: a local one (no service: served by
// kube-apiserver itself) is Available from its create on, in the create's own answer.
import { kubeTime } from "../object/meta.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

export const apiServiceBehaviour: KindBehaviour = {
  // PrepareForCreate runs after the field manager: no manager owns the condition.
  created(obj, { server }) {
    if ((obj.spec as Obj | undefined)?.service) return;
    obj.status = localAPIServiceStatus(server.now());
  },
};

/** The status of an APIService kube-apiserver serves itself: Available from the start. */
export function localAPIServiceStatus(now: Date): Obj {
  return {
    conditions: [
      {
        type: "Available",
        status: "True",
        lastTransitionTime: kubeTime(now),
        reason: "Local",
        message: "Local APIServices are always available",
      },
    ],
  };
}
