// Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs: defaults and the selector and
// template checks kube applies.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import { labelSelectorFromObject } from "../../api/index.js";
import { inObjectMetaOrder } from "../object/meta.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { defaultPodSpec, validatePodSpec } from "./pod.js";

/** Fills the defaults of a pod template at `spec.template`. */
export function defaultTemplate(spec: Obj): void {
  const template = spec.template;
  if (!template || typeof template !== "object" || Array.isArray(template)) return;
  const t = template as Obj;
  if (t.spec && typeof t.spec === "object") defaultPodSpec(t.spec as Obj);
  t.metadata = withNullCreationTimestamp((t.metadata ?? {}) as Obj);
}

// A template's ObjectMeta is a Go struct whose creationTimestamp (a non-pointer Time without
// omitempty) is written as null when unset, in its place in ObjectMeta's field order (also when
// present: a merge may have put it after the labels).
function withNullCreationTimestamp(meta: Obj): Obj {
  if (meta.creationTimestamp !== undefined && meta.creationTimestamp !== null) return meta;
  return inObjectMetaOrder({ ...meta, creationTimestamp: null });
}

function validateSelectorAndTemplate(spec: Obj | undefined, requireSelector: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!spec) return [cause.required("spec")];
  const selector = spec.selector as LabelSelector | undefined;
  const template = spec.template as Obj | undefined;
  const labels = ((template?.metadata as Obj | undefined)?.labels ?? {}) as Record<string, string>;
  if (!selector) {
    if (requireSelector) causes.push(cause.required("spec.selector"));
  } else {
    const empty = !selector.matchLabels && !selector.matchExpressions;
    if (empty)
      causes.push(cause.invalid("spec.selector", selector, "empty selector is invalid for deployment"));
    else {
      try {
        if (template && !labelSelectorFromObject(selector).matches(labels)) {
          causes.push(
            cause.invalid(
              "spec.template.metadata.labels",
              labels,
              "`selector` does not match template `labels`",
            ),
          );
        }
      } catch (e) {
        causes.push(cause.invalid("spec.selector", selector, (e as Error).message));
      }
    }
  }
  if (!template) causes.push(cause.required("spec.template"));
  else causes.push(...validatePodSpec(template.spec, "spec.template.spec"));
  return causes;
}

function replicas(spec: Obj): StatusCause[] {
  if (spec.replicas !== undefined && (typeof spec.replicas !== "number" || spec.replicas < 0)) {
    return [cause.invalid("spec.replicas", spec.replicas, "must be greater than or equal to 0")];
  }
  return [];
}

export const deploymentBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.replicas ??= 1;
    spec.strategy ??= { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } };
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
    defaultTemplate(spec);
  },
  validate(obj) {
    const spec = obj.spec as Obj | undefined;
    return [...validateSelectorAndTemplate(spec, true), ...(spec ? replicas(spec) : [])];
  },
};

export const replicaSetBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.replicas ??= 1;
    defaultTemplate(spec);
  },
  validate(obj) {
    const spec = obj.spec as Obj | undefined;
    return [...validateSelectorAndTemplate(spec, true), ...(spec ? replicas(spec) : [])];
  },
};

export const statefulSetBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.replicas ??= 1;
    spec.podManagementPolicy ??= "OrderedReady";
    spec.updateStrategy ??= { type: "RollingUpdate", rollingUpdate: { partition: 0 } };
    spec.revisionHistoryLimit ??= 10;
    defaultTemplate(spec);
  },
  validate(obj) {
    const spec = obj.spec as Obj | undefined;
    return [...validateSelectorAndTemplate(spec, true), ...(spec ? replicas(spec) : [])];
  },
};

export const daemonSetBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.updateStrategy ??= { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
    spec.revisionHistoryLimit ??= 10;
    defaultTemplate(spec);
  },
  validate(obj) {
    return validateSelectorAndTemplate(obj.spec as Obj | undefined, true);
  },
};

export const jobBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.parallelism ??= 1;
    spec.completions ??= 1;
    spec.backoffLimit ??= 6;
    spec.completionMode ??= "NonIndexed";
    spec.suspend ??= false;
    defaultTemplate(spec);
  },
  validate(obj) {
    const spec = obj.spec as Obj | undefined;
    const causes = validateSelectorAndTemplate(spec, false);
    const policy = ((spec?.template as Obj | undefined)?.spec as Obj | undefined)?.restartPolicy;
    if (policy !== undefined && policy !== "Never" && policy !== "OnFailure") {
      causes.push(cause.notSupported("spec.template.spec.restartPolicy", policy, ["OnFailure", "Never"]));
    }
    return causes;
  },
};

export const replicationControllerBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.replicas ??= 1;
    // An RC's selector and labels default to its template's labels (SetDefaults_ReplicationController).
    const labels = ((spec.template as Obj | undefined)?.metadata as Obj | undefined)?.labels as
      | Record<string, string>
      | undefined;
    if (labels && Object.keys(labels).length > 0) {
      if (!spec.selector || Object.keys(spec.selector as Obj).length === 0) spec.selector = { ...labels };
      const meta = (obj.metadata ?? {}) as Obj;
      if (!meta.labels || Object.keys(meta.labels as Obj).length === 0) meta.labels = { ...labels };
    }
    defaultTemplate(spec);
  },
  validate(obj) {
    const spec = obj.spec as Obj | undefined;
    return spec ? replicas(spec) : [cause.required("spec")];
  },
};

export const podTemplateBehaviour: KindBehaviour = {
  defaults(obj) {
    defaultTemplate(obj);
  },
};

export const cronJobBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.concurrencyPolicy ??= "Allow";
    spec.suspend ??= false;
    spec.successfulJobsHistoryLimit ??= 3;
    spec.failedJobsHistoryLimit ??= 1;
    const jobSpec = (spec.jobTemplate as Obj | undefined)?.spec;
    if (jobSpec && typeof jobSpec === "object") defaultTemplate(jobSpec as Obj);
  },
};
