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
    // StatefulSetAutoDeletePVC, on by default since 1.27.
    const retention = (spec.persistentVolumeClaimRetentionPolicy ?? {}) as Obj;
    retention.whenDeleted ??= "Retain";
    retention.whenScaled ??= "Retain";
    spec.persistentVolumeClaimRetentionPolicy = retention;
    if (Array.isArray(spec.volumeClaimTemplates)) {
      spec.volumeClaimTemplates = (spec.volumeClaimTemplates as Obj[]).map((claim) => {
        if (!claim || typeof claim !== "object") return claim;
        const claimSpec = (claim.spec ?? {}) as Obj;
        claimSpec.volumeMode ??= "Filesystem";
        return {
          ...claim,
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          metadata: withNullCreationTimestamp((claim.metadata ?? {}) as Obj),
          spec: claimSpec,
          status: { phase: "Pending", ...((claim.status as Obj | undefined) ?? {}) },
        };
      });
    }
    defaultTemplate(spec);
  },
  validate(obj) {
    const spec = obj.spec as Obj | undefined;
    return [...validateSelectorAndTemplate(spec, true), ...(spec ? replicas(spec) : [])];
  },
};

const TEMPLATE_GENERATION = "deprecated.daemonset.template.generation";

export const daemonSetBehaviour: KindBehaviour = {
  defaults(obj, { old }) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.updateStrategy ??= { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
    spec.revisionHistoryLimit ??= 10;
    defaultTemplate(spec);
    const meta = (obj.metadata ?? {}) as Obj;
    if (!old) {
      // A new DaemonSet's template is generation 1; the request's view has it (the field
      // manager records it), as kube's conversion writes it.
      meta.annotations = { ...((meta.annotations as Obj | undefined) ?? {}), [TEMPLATE_GENERATION]: "1" };
      return;
    }
    // The template's generation, kept in an annotation since extensions/v1beta1: +1 when the
    // template changes, whatever the request says.
    const oldAnnotations = ((old.metadata as Obj).annotations ?? {}) as Record<string, string>;
    const was = Number.parseInt(oldAnnotations[TEMPLATE_GENERATION] ?? "0", 10) || 0;
    const changed = JSON.stringify(spec.template) !== JSON.stringify((old.spec as Obj | undefined)?.template);
    meta.annotations = {
      ...((meta.annotations as Obj | undefined) ?? {}),
      [TEMPLATE_GENERATION]: String(was + (changed ? 1 : 0)),
    };
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
    // JobPodReplacementPolicy, on by default since 1.29.
    spec.podReplacementPolicy ??= spec.podFailurePolicy ? "Failed" : "TerminatingOrFailed";
    defaultTemplate(spec);
  },
  // generateSelector, run by kube's Job strategy after the field manager: the template carries
  // the Job's name and uid (1.27 added the batch.kubernetes.io/ names beside the legacy ones) and
  // the selector the uid. A Job without labels takes its template's, as kube's read defaulting
  // gives them.
  created(obj) {
    const spec = obj.spec as Obj;
    const meta = obj.metadata as Obj;
    if (spec.manualSelector !== true) {
      const template = (spec.template ?? {}) as Obj;
      const templateMeta = (template.metadata ?? {}) as Obj;
      const labels = { ...((templateMeta.labels as Record<string, string> | undefined) ?? {}) };
      const name = String(meta.name);
      const uid = String(meta.uid);
      labels["batch.kubernetes.io/controller-uid"] ??= uid;
      labels["batch.kubernetes.io/job-name"] ??= name;
      labels["controller-uid"] ??= uid;
      labels["job-name"] ??= name;
      templateMeta.labels = Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
      template.metadata = templateMeta;
      const selector = (spec.selector ?? {}) as Obj;
      const matchLabels = { ...((selector.matchLabels as Record<string, string> | undefined) ?? {}) };
      matchLabels["batch.kubernetes.io/controller-uid"] ??= uid;
      selector.matchLabels = matchLabels;
      spec.selector = selector;
    }
    const templateLabels = ((spec.template as Obj | undefined)?.metadata as Obj | undefined)?.labels;
    if (!meta.labels && templateLabels) meta.labels = { ...(templateLabels as Obj) };
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
