// core/v1 Events: kube's legacy validation ties an Event to its object's namespace. Without an
// eventTime, an involvedObject without a namespace is only allowed for Events in "default" (old
// clients wrote them there); one with a namespace must be in it.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

export const eventBehaviour: KindBehaviour = {
  validate(obj) {
    const causes: StatusCause[] = [];
    if (obj.eventTime) return causes;
    const namespace = String((obj.metadata as Obj).namespace ?? "");
    const involved = (obj.involvedObject ?? {}) as Obj;
    const involvedNamespace = typeof involved.namespace === "string" ? involved.namespace : "";
    const mismatch =
      involvedNamespace === ""
        ? namespace !== "" && namespace !== "default"
        : namespace !== involvedNamespace;
    if (mismatch)
      causes.push(
        cause.invalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"),
      );
    return causes;
  },
};
