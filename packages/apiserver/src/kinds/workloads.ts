// Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs: defaults and the selector and
// template checks kube applies.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import { labelSelectorFromObject, qualifiedNameErrors } from "controller-runtime/api";
import { inObjectMetaOrder, labelCauses } from "../object/meta.js";
import { dns1123LabelErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { immutableField, immutableRaw, semanticEqual } from "./immutable.js";
import { defaultPodSpec, validatePodTemplate } from "./pod.js";

/** Fills the defaults of a pod template at `spec.template`. */
export function defaultTemplate(spec: Obj): void {
  const template = spec.template;
  if (!template || typeof template !== "object" || Array.isArray(template)) return;
  const t = template as Obj;
  if (t.spec && typeof t.spec === "object") defaultPodSpec(t.spec as Obj);
  t.metadata = templateMeta((t.metadata ?? {}) as Obj);
}

// A template's ObjectMeta is a Go struct; by 1.37 its creationTimestamp is omitzero, so an
// unset one is not written (it was null before). One given stays where ObjectMeta's order puts it.
function templateMeta(meta: Obj): Obj {
  if (meta.creationTimestamp === null) {
    const { creationTimestamp: _, ...rest } = meta;
    return rest;
  }
  return meta.creationTimestamp === undefined ? meta : inObjectMetaOrder(meta);
}

/** apimachinery's ValidateLabelSelector: matchLabels and each requirement. */
export function labelSelectorCauses(selector: unknown, path: string): StatusCause[] {
  if (!selector || typeof selector !== "object") return [];
  const s = selector as Obj;
  const causes = labelCauses(s.matchLabels, `${path}.matchLabels`);
  const expressions = Array.isArray(s.matchExpressions) ? (s.matchExpressions as Obj[]) : [];
  expressions.forEach((e, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values = Array.isArray(e?.values) ? (e.values as unknown[]) : [];
    switch (e?.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) {
          causes.push(cause.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        }
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) {
          causes.push(
            cause.forbidden(
              `${at}.values`,
              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
          );
        }
        break;
      default:
        causes.push(cause.invalid(`${at}.operator`, e?.operator, "not a valid selector operator"));
    }
    for (const msg of qualifiedNameErrors(String(e?.key ?? "")))
      causes.push(cause.invalid(`${at}.key`, e?.key, msg));
  });
  return causes;
}

/** metav1.LabelSelectorAsSelector: the selector, or undefined when it does not convert. */
function asSelector(selector: unknown): ReturnType<typeof labelSelectorFromObject> | undefined {
  try {
    return labelSelectorFromObject(selector as LabelSelector | undefined);
  } catch {
    return undefined;
  }
}

const templateLabels = (template: Obj | undefined) =>
  ((template?.metadata as Obj | undefined)?.labels ?? {}) as Record<string, string>;

/** The template's labels as kube prints them in a cause: a nil map is `null`. */
const labelsValue = (template: Obj | undefined) => (template?.metadata as Obj | undefined)?.labels ?? null;

function nonNegative(value: unknown, field: string): StatusCause[] {
  return typeof value === "number" && value < 0
    ? [cause.invalid(field, value, "must be greater than or equal to 0")]
    : [];
}

/**
 * The selector and template checks of Deployments, ReplicaSets and StatefulSets (kube's
 * ValidateDeploymentSpec and friends): a required, non-empty, valid selector that matches the
 * template's labels; then the template, whose pods always restart. The template is checked only
 * when the selector converts, as in kube.
 */
function selectorAndTemplate(spec: Obj, kind: "deployment" | "statefulset"): StatusCause[] {
  const causes: StatusCause[] = [];
  const template = spec.template as Obj | undefined;
  if (spec.selector === undefined || spec.selector === null) causes.push(cause.required("spec.selector"));
  else {
    causes.push(...labelSelectorCauses(spec.selector, "spec.selector"));
    const s = spec.selector as Obj;
    const count =
      Object.keys((s.matchLabels ?? {}) as Obj).length +
      (Array.isArray(s.matchExpressions) ? s.matchExpressions.length : 0);
    if (count === 0)
      causes.push(cause.invalid("spec.selector", spec.selector, `empty selector is invalid for ${kind}`));
  }
  const selector = asSelector(spec.selector);
  // A missing selector converts to one that selects nothing (labels.Nothing()).
  const none = spec.selector === undefined || spec.selector === null;
  if (!selector) {
    causes.push(
      cause.invalid("spec.selector", spec.selector, kind === "statefulset" ? "" : "invalid label selector"),
    );
  } else {
    if (none || (!selector.empty && !selector.matches(templateLabels(template)))) {
      causes.push(
        cause.invalid(
          "spec.template.metadata.labels",
          labelsValue(template),
          "`selector` does not match template `labels`",
        ),
      );
    }
    causes.push(...validatePodTemplate(template, "spec.template"));
  }
  // A Deployment's template checks its restart policy with the rest; a StatefulSet's spec does it
  // whatever the selector.
  const restart = ((template?.spec ?? {}) as Obj).restartPolicy;
  if ((selector || kind === "statefulset") && restart !== "Always" && restart !== undefined) {
    causes.push(cause.notSupported("spec.template.spec.restartPolicy", restart, ["Always"]));
  }
  return causes;
}

export const deploymentBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.replicas ??= 1;
    const strategy = (spec.strategy ?? {}) as Obj;
    strategy.type ??= "RollingUpdate";
    if (strategy.type === "RollingUpdate") {
      const rolling = (strategy.rollingUpdate ?? {}) as Obj;
      rolling.maxUnavailable ??= "25%";
      rolling.maxSurge ??= "25%";
      strategy.rollingUpdate = rolling;
    }
    spec.strategy = strategy;
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
    defaultTemplate(spec);
  },
  validate(obj, old) {
    const spec = (obj.spec ?? {}) as Obj;
    const causes = [
      ...nonNegative(spec.replicas, "spec.replicas"),
      ...selectorAndTemplate(spec, "deployment"),
    ];
    const strategy = (spec.strategy ?? {}) as Obj;
    if (strategy.type !== "Recreate" && strategy.type !== "RollingUpdate") {
      causes.push(cause.notSupported("spec.strategy", strategy.type, ["Recreate", "RollingUpdate"]));
    } else if (strategy.type === "Recreate" && strategy.rollingUpdate != null) {
      causes.push(
        cause.forbidden(
          "spec.strategy.rollingUpdate",
          "may not be specified when strategy `type` is 'Recreate'",
        ),
      );
    } else if (strategy.type === "RollingUpdate" && strategy.rollingUpdate != null) {
      causes.push(...rollingUpdateCauses(strategy.rollingUpdate as Obj, "spec.strategy.rollingUpdate"));
    }
    causes.push(...nonNegative(spec.revisionHistoryLimit, "spec.revisionHistoryLimit"));
    causes.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
    if (typeof spec.progressDeadlineSeconds === "number") {
      causes.push(...nonNegative(spec.progressDeadlineSeconds, "spec.progressDeadlineSeconds"));
      if (spec.progressDeadlineSeconds <= ((spec.minReadySeconds as number | undefined) ?? 0))
        causes.push(
          cause.invalid(
            "spec.progressDeadlineSeconds",
            spec.progressDeadlineSeconds,
            "must be greater than minReadySeconds",
          ),
        );
    }
    causes.push(...selectorUpdate(spec, old));
    return causes;
  },
};

/** An int-or-percent's value (getIntOrPercentValue): the number, or the percent's. */
function intOrPercent(v: unknown): number {
  if (typeof v === "number") return v;
  const m = typeof v === "string" ? /^(\d+)%$/.exec(v) : null;
  return m ? Number(m[1]) : 0;
}

/** ValidatePositiveIntOrPercent. */
function positiveIntOrPercent(v: unknown, path: string): StatusCause[] {
  if (typeof v === "string" && !/^\d+%$/.test(v))
    return [cause.invalid(path, v, "must be an integer or percentage (e.g '5%')")];
  if (typeof v === "number") return nonNegative(v, path);
  return [];
}

/** ValidateRollingUpdateDeployment. */
function rollingUpdateCauses(r: Obj, path: string): StatusCause[] {
  const causes = [
    ...positiveIntOrPercent(r.maxUnavailable, `${path}.maxUnavailable`),
    ...positiveIntOrPercent(r.maxSurge, `${path}.maxSurge`),
  ];
  if (intOrPercent(r.maxUnavailable) === 0 && intOrPercent(r.maxSurge) === 0)
    causes.push(
      cause.invalid(`${path}.maxUnavailable`, r.maxUnavailable ?? 0, "may not be 0 when `maxSurge` is 0"),
    );
  if (
    typeof r.maxUnavailable === "string" &&
    /^\d+%$/.test(r.maxUnavailable) &&
    intOrPercent(r.maxUnavailable) > 100
  )
    causes.push(cause.invalid(`${path}.maxUnavailable`, r.maxUnavailable, "must not be greater than 100%"));
  return causes;
}

export const replicaSetBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.replicas ??= 1;
    defaultTemplate(spec);
  },
  validate(obj, old) {
    const spec = (obj.spec ?? {}) as Obj;
    return [
      ...nonNegative(spec.replicas, "spec.replicas"),
      ...selectorAndTemplate(spec, "deployment"),
      ...selectorUpdate(spec, old),
    ];
  },
};

/** apps/v1's rule (the registry strategies' ValidateUpdate): a workload's selector never changes. */
function selectorUpdate(spec: Obj, old: Readonly<Obj> | undefined): StatusCause[] {
  if (!old) return [];
  return immutableField("spec.selector", spec.selector, ((old.spec ?? {}) as Obj).selector);
}

/** What an update may change of a StatefulSet's spec (ValidateStatefulSetUpdate). */
const STATEFUL_SET_MUTABLE = new Set([
  "replicas",
  "ordinals",
  "template",
  "updateStrategy",
  "persistentVolumeClaimRetentionPolicy",
  "minReadySeconds",
  "revisionHistoryLimit",
]);
/** The fields declarative validation (+k8s:immutable) reports one by one. */
const STATEFUL_SET_IMMUTABLE = ["serviceName", "podManagementPolicy", "selector", "volumeClaimTemplates"];
const RETENTION = ["Retain", "Delete"];

/** ValidateStatefulSetSpec's update strategy and claim retention checks. */
function statefulSetStrategyCauses(spec: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const strategy = (spec.updateStrategy ?? {}) as Obj;
  if (strategy.type === "OnDelete" && strategy.rollingUpdate != null) {
    const r = strategy.rollingUpdate as Obj;
    causes.push(
      cause.invalid(
        "spec.updateStrategy.rollingUpdate",
        { Partition: r.partition ?? 0, MaxUnavailable: r.maxUnavailable ?? null },
        "only allowed for updateStrategy 'RollingUpdate'",
      ),
    );
  }
  const retention = (spec.persistentVolumeClaimRetentionPolicy ?? {}) as Obj;
  for (const f of ["whenDeleted", "whenScaled"]) {
    const v = retention[f];
    if (v !== undefined && !RETENTION.includes(v as string))
      causes.push(cause.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v, RETENTION));
  }
  return causes;
}

/** ValidateStatefulSetUpdate: the immutable fields one by one, anything else of the spec as a whole. */
function statefulSetUpdate(spec: Obj, old: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const f of STATEFUL_SET_IMMUTABLE) causes.push(...immutableField(`spec.${f}`, spec[f], old[f]));
  const rest = (o: Obj) =>
    Object.fromEntries(
      Object.entries(o).filter(([k]) => !STATEFUL_SET_MUTABLE.has(k) && !STATEFUL_SET_IMMUTABLE.includes(k)),
    );
  if (!semanticEqual(rest(spec), rest(old))) {
    causes.push(
      cause.forbidden(
        "spec",
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return causes;
}

export const statefulSetBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.replicas ??= 1;
    spec.podManagementPolicy ??= "OrderedReady";
    // SetDefaults_StatefulSet: a strategy without a type is a RollingUpdate with defaults; a
    // RollingUpdate's partition is 0 and, with MaxUnavailableStatefulSet (on in 1.37), at most
    // one Pod is down at a time.
    const strategy = (spec.updateStrategy ?? {}) as Obj;
    spec.updateStrategy = strategy;
    if (!strategy.type) {
      strategy.type = "RollingUpdate";
      strategy.rollingUpdate ??= {};
    }
    const rolling = strategy.rollingUpdate;
    if (strategy.type === "RollingUpdate" && rolling && typeof rolling === "object") {
      (rolling as Obj).partition ??= 0;
      (rolling as Obj).maxUnavailable ??= 1;
    }
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
          metadata: templateMeta((claim.metadata ?? {}) as Obj),
          spec: claimSpec,
          status: { phase: "Pending", ...((claim.status as Obj | undefined) ?? {}) },
        };
      });
    }
    defaultTemplate(spec);
  },
  validate(obj, old) {
    const spec = (obj.spec ?? {}) as Obj;
    const causes: StatusCause[] = [];
    const policy = spec.podManagementPolicy;
    if (policy === undefined || policy === "") causes.push(cause.required("spec.podManagementPolicy"));
    else if (policy !== "OrderedReady" && policy !== "Parallel") {
      causes.push(cause.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"));
    }
    causes.push(...nonNegative(spec.replicas, "spec.replicas"));
    // An empty serviceName is allowed: the StatefulSet then has no governing Service.
    const serviceName = spec.serviceName;
    if (typeof serviceName === "string" && serviceName !== "") {
      for (const msg of dns1123LabelErrors(serviceName)) {
        causes.push(cause.invalid("spec.serviceName", serviceName, msg));
      }
    }
    causes.push(...selectorAndTemplate(spec, "statefulset"));
    causes.push(...statefulSetStrategyCauses(spec));
    if (old) causes.push(...statefulSetUpdate(spec, (old.spec ?? {}) as Obj));
    return causes;
  },
};

const TEMPLATE_GENERATION = "deprecated.daemonset.template.generation";

export const daemonSetBehaviour: KindBehaviour = {
  defaults(obj, { old }) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    // SetDefaults_DaemonSet: a rolling update, one pod at a time, none surged.
    const strategy = (spec.updateStrategy ?? {}) as Obj;
    spec.updateStrategy = strategy;
    strategy.type ??= "RollingUpdate";
    if (strategy.type === "RollingUpdate") {
      const rolling = (strategy.rollingUpdate ?? {}) as Obj;
      strategy.rollingUpdate = rolling;
      rolling.maxUnavailable ??= 1;
      rolling.maxSurge ??= 0;
    }
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

  // kube's ValidateDaemonSetSpec: no required selector, but one that matches the template's labels.
  validate(obj, old) {
    const spec = (obj.spec ?? {}) as Obj;
    const template = spec.template as Obj | undefined;
    const causes = labelSelectorCauses(spec.selector, "spec.selector");
    const selector = asSelector(spec.selector);
    const matches =
      selector &&
      (spec.selector === undefined || spec.selector === null
        ? false
        : selector.matches(templateLabels(template)));
    if (selector && !matches) {
      causes.push(
        cause.invalid(
          "spec.template.metadata.labels",
          labelsValue(template),
          "`selector` does not match template `labels`",
        ),
      );
    }
    const s = (spec.selector ?? undefined) as Obj | undefined;
    if (
      s &&
      Object.keys((s.matchLabels ?? {}) as Obj).length +
        (Array.isArray(s.matchExpressions) ? s.matchExpressions.length : 0) ===
        0
    ) {
      causes.push(cause.invalid("spec.selector", spec.selector, "empty selector is invalid for daemonset"));
    }
    causes.push(...validatePodTemplate(template, "spec.template"));
    const restart = ((template?.spec ?? {}) as Obj).restartPolicy;
    if (restart !== "Always" && restart !== undefined) {
      causes.push(cause.notSupported("spec.template.spec.restartPolicy", restart, ["Always"]));
    }
    causes.push(...selectorUpdate(spec, old));
    return causes;
  },
};

export const jobBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    // SetDefaults_Job: a Job that sets neither runs one pod to one completion; a parallel one
    // without completions is a work queue, and keeps none.
    if (spec.completions === undefined && spec.parallelism === undefined) spec.completions = 1;
    spec.parallelism ??= 1;
    spec.backoffLimit ??= spec.backoffLimitPerIndex === undefined ? 6 : 2147483647;
    spec.completionMode ??= "NonIndexed";
    spec.suspend ??= false;
    // JobPodReplacementPolicy, on by default since 1.29.
    spec.podReplacementPolicy ??= spec.podFailurePolicy ? "Failed" : "TerminatingOrFailed";
    spec.manualSelector ??= false;
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
  validate(obj, old) {
    const spec = (obj.spec ?? {}) as Obj;
    const causes = jobSpecCauses(spec, "spec");
    if (old) causes.push(...jobUpdateCauses(spec, (old.spec ?? {}) as Obj, old));
    return causes;
  },
};

/** What a suspended Job that never started may change of its template (the scheduling directives). */
const SCHEDULING_DIRECTIVES = ["nodeSelector", "tolerations", "affinity", "schedulingGates"];

/**
 * ValidateJobSpecUpdate, past creation (when the selector is the generated one): a selector
 * matching the template, and the selector, template, completion mode and policies immutable.
 */
function jobUpdateCauses(spec: Obj, oldSpec: Obj, old: Readonly<Obj>): StatusCause[] {
  const causes: StatusCause[] = [];
  const template = spec.template as Obj | undefined;
  if (spec.selector === undefined || spec.selector === null) causes.push(cause.required("spec.selector"));
  else causes.push(...labelSelectorCauses(spec.selector, "spec.selector"));
  const selector = asSelector(spec.selector);
  if (selector && (spec.selector == null || !selector.matches(templateLabels(template)))) {
    causes.push(
      cause.invalid(
        "spec.template.metadata.labels",
        labelsValue(template),
        "`selector` does not match template `labels`",
      ),
    );
  }
  causes.push(...immutableField("spec.selector", spec.selector, oldSpec.selector));
  // A suspended Job not yet started may change its scheduling directives and template metadata.
  const unstarted = oldSpec.suspend === true && !((old.status ?? {}) as Obj).startTime;
  const comparable = (t: unknown, from: unknown): unknown => {
    if (!unstarted || !t || typeof t !== "object") return t;
    const o = t as Obj;
    const f = (from ?? {}) as Obj;
    const podSpec = { ...((o.spec ?? {}) as Obj) };
    for (const k of SCHEDULING_DIRECTIVES) podSpec[k] = ((f.spec ?? {}) as Obj)[k];
    return { ...o, metadata: f.metadata, spec: podSpec };
  };
  causes.push(
    ...immutableField("spec.template", comparable(template, oldSpec.template), oldSpec.template, template),
  );
  // Elastic Indexed Jobs may change their completions; other Jobs may not.
  if (spec.completionMode !== "Indexed")
    causes.push(...immutableField("spec.completions", spec.completions, oldSpec.completions));
  for (const f of [
    "completionMode",
    "podFailurePolicy",
    "backoffLimitPerIndex",
    "managedBy",
    "successPolicy",
  ])
    causes.push(...immutableField(`spec.${f}`, spec[f], oldSpec[f]));
  return causes;
}

/** kube's validateJobSpec, at `path` (a CronJob's job template is checked the same way). */
function jobSpecCauses(spec: Obj, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const f of [
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
  ]) {
    causes.push(...nonNegative(spec[f], `${path}.${f}`));
  }
  causes.push(...validatePodTemplate(spec.template, `${path}.template`));
  // validatePodReplacementPolicy: with a pod failure policy, only Failed.
  const replacement = spec.podReplacementPolicy;
  if (replacement !== undefined && replacement !== null) {
    if (spec.podFailurePolicy != null) {
      if (replacement !== "Failed")
        causes.push(cause.notSupported(`${path}.podReplacementPolicy`, replacement, ["Failed"]));
    } else if (replacement !== "Failed" && replacement !== "TerminatingOrFailed")
      causes.push(
        cause.notSupported(`${path}.podReplacementPolicy`, replacement, ["Failed", "TerminatingOrFailed"]),
      );
  }
  const policy = ((spec.template as Obj | undefined)?.spec as Obj | undefined)?.restartPolicy;
  if (policy === undefined || policy === "" || policy === "Always") {
    causes.push(cause.required(`${path}.template.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
  } else if (policy !== "Never" && policy !== "OnFailure") {
    causes.push(cause.notSupported(`${path}.template.spec.restartPolicy`, policy, ["OnFailure", "Never"]));
  }
  return causes;
}

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
  // kube's ValidateReplicationControllerSpec: a non-empty selector matching the template's labels.
  validate(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    const causes: StatusCause[] = [];
    const selector = (spec.selector ?? {}) as Record<string, string>;
    if (Object.keys(selector).length === 0) causes.push(cause.required("spec.selector"));
    causes.push(...nonNegative(spec.replicas, "spec.replicas"));
    const template = spec.template as Obj | undefined;
    if (!template) causes.push(cause.required("spec.template"));
    else {
      const labels = templateLabels(template);
      if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
        causes.push(
          cause.invalid(
            "spec.template.metadata.labels",
            labels,
            "`selector` does not match template `labels`",
          ),
        );
      }
      causes.push(...validatePodTemplate(template, "spec.template"));
      const restart = ((template.spec ?? {}) as Obj).restartPolicy;
      if (restart !== "Always" && restart !== undefined) {
        causes.push(cause.notSupported("spec.template.spec.restartPolicy", restart, ["Always"]));
      }
    }
    return causes;
  },
};

export const podTemplateBehaviour: KindBehaviour = {
  defaults(obj) {
    defaultTemplate(obj);
  },
  validate(obj) {
    return validatePodTemplate(obj.template, "template");
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
  // kube's ValidateCronJobSpec: a standard cron schedule, a known concurrency policy, the job template.
  validate(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    const causes: StatusCause[] = [];
    const schedule = typeof spec.schedule === "string" ? spec.schedule : "";
    if (schedule === "") causes.push(cause.required("spec.schedule"));
    else {
      const problem = cronScheduleError(schedule);
      if (problem) causes.push(cause.invalid("spec.schedule", schedule, problem));
    }
    causes.push(...timeZoneCauses(spec.timeZone));
    const policy = spec.concurrencyPolicy;
    if (policy !== undefined)
      causes.push(
        ...(["Allow", "Forbid", "Replace"].includes(policy as string)
          ? []
          : [cause.notSupported("spec.concurrencyPolicy", policy, ["Allow", "Forbid", "Replace"])]),
      );
    const jobTemplate = (spec.jobTemplate ?? {}) as Obj;
    causes.push(...jobSpecCauses((jobTemplate.spec ?? {}) as Obj, "spec.jobTemplate.spec"));
    return causes;
  },
};

/** validateTimeZone: nil, or a zone Go's time.LoadLocation knows (the IANA database). */
function timeZoneCauses(zone: unknown): StatusCause[] {
  if (zone === undefined || zone === null) return [];
  const z = String(zone);
  const at = "spec.timeZone";
  if (z === "") return [cause.invalid(at, z, "timeZone must be nil or non-empty string")];
  if (
    z.split("/").some((p) => p === "." || p === ".." || p.startsWith("-") || !/^[A-Za-z._+\-0-9]+$/.test(p))
  )
    return [cause.invalid(at, z, `unknown time zone ${z}`)];
  if (z.toLowerCase() === "local")
    return [
      cause.invalid(
        at,
        z,
        "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
      ),
    ];
  try {
    new Intl.DateTimeFormat("en", { timeZone: z });
    return [];
  } catch {
    return [cause.invalid(at, z, `unknown time zone ${z}`)];
  }
}

const CRON_DESCRIPTORS = new Set([
  "@yearly",
  "@annually",
  "@monthly",
  "@weekly",
  "@daily",
  "@midnight",
  "@hourly",
]);
/** Each field's range: minute, hour, day of month, month, day of week. */
const CRON_RANGES: [number, number, Record<string, number>?][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [
    1,
    12,
    { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
  ],
  [0, 6, { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 }],
];

/** robfig/cron's ParseStandard refusal of `schedule`, or undefined. */
export function cronScheduleError(schedule: string): string | undefined {
  let spec = schedule.trim();
  if (spec.startsWith("TZ=") || spec.startsWith("CRON_TZ=")) spec = spec.slice(spec.indexOf(" ") + 1).trim();
  if (spec.startsWith("@")) {
    if (CRON_DESCRIPTORS.has(spec)) return undefined;
    if (spec.startsWith("@every ")) return undefined;
    return `unrecognized descriptor: ${spec}`;
  }
  const fields = spec.split(/\s+/).filter((f) => f !== "");
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`;
  for (let i = 0; i < 5; i++) {
    const [min, max, names] = CRON_RANGES[i];
    for (const part of fields[i].split(",")) {
      const [range, step] = part.split("/");
      if (step !== undefined && !/^\d+$/.test(step))
        return `failed to parse int from ${step}: strconv.Atoi: parsing ${JSON.stringify(step)}: invalid syntax`;
      if (range === "*" || range === "?") continue;
      for (const bound of range.split("-")) {
        const n = names?.[bound.toLowerCase()] ?? (/^\d+$/.test(bound) ? Number(bound) : Number.NaN);
        if (Number.isNaN(n))
          return `failed to parse int from ${bound}: strconv.Atoi: parsing ${JSON.stringify(bound)}: invalid syntax`;
        if (n < min) return `beginning of range (${n}) below minimum (${min}): ${part}`;
        if (n > max) return `end of range (${n}) above maximum (${max}): ${part}`;
      }
    }
  }
  return undefined;
}

/** kube's ValidateControllerRevision: data is mandatory, the revision never negative. */
export const controllerRevisionBehaviour: KindBehaviour = {
  validate(obj, old) {
    const causes: StatusCause[] = [];
    // kube 1.37 reports a missing data on update only as a change of it.
    if (!old && (obj.data === undefined || obj.data === null))
      causes.push(cause.required("data", "data is mandatory"));
    causes.push(...nonNegative(obj.revision, "revision"));
    // ValidateControllerRevisionUpdate: the data never changes.
    if (old) causes.push(...immutableRaw("data", obj.data, old.data));
    return causes;
  },
};
