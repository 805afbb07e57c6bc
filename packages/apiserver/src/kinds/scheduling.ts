// What shapes where and how much workloads run: PriorityClasses, LimitRanges and
// HorizontalPodAutoscalers (autoscaling/v2), with kube's defaults.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { qualifiedNameErrors } from "controller-runtime/api";
import { pathSegmentErrors } from "../object/names.js";
import { cause, forbidden } from "../status.js";
import { hpaFromV1, hpaToV1 } from "../conversion/hpa.js";
import type { Obj } from "../storage/index.js";
import type { ServerContext } from "../handlers/context.js";
import type { KindBehaviour } from "./behaviour.js";

/** The system's classes (pkg/apis/scheduling's systemPriorityClasses): the only "system-" names. */
const SYSTEM_PRIORITY_CLASSES: Record<string, number> = {
  "system-node-critical": 2000001000,
  "system-cluster-critical": 2000000000,
};
/** HighestUserDefinablePriority. */
const HIGHEST_USER_PRIORITY = 1000000000;

/** IsKnownSystemPriorityClass's error, or undefined for a known system class. */
function systemClassError(name: string, value: unknown, globalDefault: boolean): string | undefined {
  const known = SYSTEM_PRIORITY_CLASSES[name];
  if (known === undefined) return `${name} is not a known system priority class`;
  if (known !== value) return `value of ${name} PriorityClass must be ${known}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

/** The global default class: the lowest value among those so marked, as the Priority admission picks it. */
export function defaultPriorityClass(server: ServerContext): Obj | undefined {
  let found: Obj | undefined;
  for (const s of server.storage.list("scheduling.k8s.io/priorityclasses")) {
    const pc = s.obj as Obj;
    if (pc.globalDefault !== true) continue;
    if (!found || (found.value as number) > (pc.value as number)) found = pc;
  }
  return found;
}

export const priorityClassBehaviour: KindBehaviour = {
  defaults(obj) {
    obj.preemptionPolicy ??= "PreemptLowerPriority";
  },
  // ValidatePriorityClass and ValidatePriorityClassUpdate (value and preemptionPolicy never
  // change); then the Priority admission plugin: one global default at most.
  validate(obj, old, server) {
    const causes: StatusCause[] = [];
    const name = String((obj.metadata as Obj | undefined)?.name ?? "");
    if (name.startsWith("system-")) {
      const error = systemClassError(name, obj.value, obj.globalDefault === true);
      if (error) {
        causes.push(
          cause.forbidden(
            "metadata.name",
            `priority class names with 'system-' prefix are reserved for system use only. error: ${error}`,
          ),
        );
      }
    } else if (typeof obj.value === "number" && obj.value > HIGHEST_USER_PRIORITY) {
      causes.push(
        cause.forbidden(
          "value",
          `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`,
        ),
      );
    }
    const policy = obj.preemptionPolicy;
    if (policy === "") causes.push(cause.required("preemptionPolicy"));
    else if (policy !== undefined && policy !== "PreemptLowerPriority" && policy !== "Never") {
      causes.push(cause.notSupported("preemptionPolicy", policy, ["PreemptLowerPriority", "Never"]));
    }
    if (old) {
      if ((obj.value ?? 0) !== (old.value ?? 0))
        causes.push(cause.forbidden("value", "may not be changed in an update."));
      if ((obj.preemptionPolicy ?? null) !== (old.preemptionPolicy ?? null))
        causes.push(cause.invalid("preemptionPolicy", obj.preemptionPolicy ?? null, "field is immutable"));
    }
    if (causes.length > 0 || obj.globalDefault !== true) return causes;
    const current = defaultPriorityClass(server);
    const currentName = String((current?.metadata as Obj | undefined)?.name ?? "");
    if (current && (!old || currentName !== name)) {
      throw forbidden(
        { group: "scheduling.k8s.io", resource: "priorityclasses", kind: "PriorityClass" },
        name,
        `PriorityClass ${currentName} is already marked as default. Only one default can exist`,
      );
    }
    return causes;
  },
};

const isMap = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

export const limitRangeBehaviour: KindBehaviour = {
  // SetDefaults_LimitRangeItem: a container's default limit falls back to its max, its default
  // request to its default limit, then to its min.
  defaults(obj) {
    const limits = (obj.spec as Obj | undefined)?.limits;
    if (!Array.isArray(limits)) return;
    for (const item of limits as Obj[]) {
      if (!isMap(item) || item.type !== "Container") continue;
      const def = { ...(isMap(item.default) ? item.default : {}) };
      const request = { ...(isMap(item.defaultRequest) ? item.defaultRequest : {}) };
      for (const [k, v] of Object.entries(isMap(item.max) ? item.max : {})) def[k] ??= v;
      for (const [k, v] of Object.entries(def)) request[k] ??= v;
      for (const [k, v] of Object.entries(isMap(item.min) ? item.min : {})) request[k] ??= v;
      if (Object.keys(def).length > 0) item.default = def;
      if (Object.keys(request).length > 0) item.defaultRequest = request;
    }
  },
  // validateLimitRangeTypeName: a qualified name, one of kube's types unless it has a prefix.
  validate(obj) {
    const limits = (obj.spec as Obj | undefined)?.limits;
    const causes: StatusCause[] = [];
    if (!Array.isArray(limits)) return causes;
    const seen = new Set<string>();
    limits.forEach((item, i) => {
      const type = String((isMap(item) ? item.type : "") ?? "");
      const at = `spec.limits[${i}].type`;
      const errs = qualifiedNameErrors(type);
      for (const msg of errs) causes.push(cause.invalid(at, type, msg));
      if (
        errs.length === 0 &&
        !type.includes("/") &&
        !["Pod", "Container", "PersistentVolumeClaim"].includes(type)
      ) {
        causes.push(cause.invalid(at, type, "must be a standard limit type or fully qualified"));
      }
      if (seen.has(type)) causes.push(cause.duplicate(at, type));
      seen.add(type);
      // A Pod's limits have no defaults: they are its containers'.
      if (type === "Pod" && isMap(item)) {
        for (const f of ["default", "defaultRequest"])
          if (isMap(item[f]) && Object.keys(item[f] as Obj).length > 0)
            causes.push(
              cause.forbidden(`spec.limits[${i}].${f}`, "may not be specified when `type` is 'Pod'"),
            );
      }
    });
    return causes;
  },
};

/** GenerateHPAScaleUpRules / ScaleDownRules: the given rules over kube's defaults. */
function scalingRules(given: unknown, defaults: Obj): Obj {
  if (!isMap(given)) return defaults;
  const out: Obj = { ...defaults };
  if (given.stabilizationWindowSeconds !== undefined)
    out.stabilizationWindowSeconds = given.stabilizationWindowSeconds;
  if (given.selectPolicy !== undefined) out.selectPolicy = given.selectPolicy;
  if (given.policies !== undefined) out.policies = given.policies;
  for (const [k, v] of Object.entries(given)) if (!(k in out)) out[k] = v;
  return out;
}

export const horizontalPodAutoscalerBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    spec.minReplicas ??= 1;
    if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
      spec.metrics = [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
        },
      ];
    }
    if (isMap(spec.behavior)) {
      const b = spec.behavior;
      b.scaleUp = scalingRules(b.scaleUp, {
        stabilizationWindowSeconds: 0,
        selectPolicy: "Max",
        policies: [
          { type: "Pods", value: 4, periodSeconds: 15 },
          { type: "Percent", value: 100, periodSeconds: 15 },
        ],
      });
      b.scaleDown = scalingRules(b.scaleDown, {
        selectPolicy: "Max",
        policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
      });
    }
  },
  validate(obj, old) {
    return hpaSpecCauses((obj.spec ?? {}) as Obj, old?.spec as Obj | undefined);
  },
};

const METRIC_SOURCES = ["ContainerResource", "External", "Object", "Pods", "Resource"];

/** validateMetricTarget. */
function metricTargetCauses(target: Obj, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = target.type;
  if (!type) causes.push(cause.required(`${path}.type`, "must specify a metric target type"));
  if (type !== "Utilization" && type !== "Value" && type !== "AverageValue") {
    causes.push(
      cause.invalid(`${path}.type`, type ?? "", "must be either Utilization, Value, or AverageValue"),
    );
  }
  if (typeof target.averageUtilization === "number" && target.averageUtilization < 1) {
    causes.push(
      cause.invalid(`${path}.averageUtilization`, target.averageUtilization, "must be greater than 0"),
    );
  }
  return causes;
}

/** validateMetricSpec, for the sources operators use (a resource, a container's resource). */
function metricCauses(metric: Obj, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = typeof metric.type === "string" ? metric.type : "";
  if (type === "") causes.push(cause.required(`${path}.type`, "must specify a metric source type"));
  if (!METRIC_SOURCES.includes(type)) {
    causes.push(cause.notSupported(`${path}.type`, type, METRIC_SOURCES));
    return causes;
  }
  const field = type[0].toLowerCase() + type.slice(1);
  const source = metric[field] as Obj | undefined;
  if (!source || typeof source !== "object") {
    causes.push(cause.required(`${path}.${field}`, "must populate information for the given metric source"));
    return causes;
  }
  if (type === "Resource" || type === "ContainerResource") {
    if (!source.name) causes.push(cause.required(`${path}.${field}.name`, "must specify a resource name"));
    const target = (source.target ?? {}) as Obj;
    causes.push(...metricTargetCauses(target, `${path}.${field}.target`));
    if (target.averageUtilization === undefined && target.averageValue === undefined) {
      causes.push(
        cause.required(
          `${path}.${field}.target.averageUtilization`,
          "must set either a target raw value or a target utilization",
        ),
      );
    }
  }
  return causes;
}

/**
 * ValidateAPIVersion of a CrossVersionObjectReference: schema.ParseGroupVersion's error, or an
 * empty group where one is needed.
 */
function apiVersionError(apiVersion: string, allowEmptyGroup: boolean): string | undefined {
  if (apiVersion === "" || apiVersion === "/")
    return allowEmptyGroup ? undefined : "apiVersion must specify API group";
  const slashes = apiVersion.split("/").length - 1;
  if (slashes > 1) return `unexpected GroupVersion string: ${apiVersion}`;
  const group = slashes === 0 ? "" : apiVersion.slice(0, apiVersion.indexOf("/"));
  return group === "" && !allowEmptyGroup ? "apiVersion must specify API group" : undefined;
}

/**
 * The scale target's apiVersion, checked by kube 1.37 (validationOptionsForHorizontalPodAutoscaler; 1.26 did not):
 * it must name a group, except for a ReplicationController (the one scalable core kind); an update
 * that keeps the target's apiVersion and kind is not checked, so older objects stay writable.
 */
function scaleTargetApiVersionCauses(ref: Obj, oldRef: Obj | undefined): StatusCause[] {
  const apiVersion = typeof ref.apiVersion === "string" ? ref.apiVersion : "";
  if (oldRef && (oldRef.apiVersion ?? "") === apiVersion && (oldRef.kind ?? "") === (ref.kind ?? ""))
    return [];
  const error = apiVersionError(apiVersion, ref.kind === "ReplicationController");
  return error ? [cause.invalid("spec.scaleTargetRef.apiVersion", apiVersion, error)] : [];
}

const SELECT_POLICIES = ["Disabled", "Max", "Min"];

/** validateScalingRules: the stabilization window within an hour, a known select policy. */
function scalingRulesCauses(rules: Obj, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === "number") {
    if (window < 0)
      causes.push(
        cause.invalid(`${path}.stabilizationWindowSeconds`, window, "must be greater than or equal to zero"),
      );
    if (window > 3600)
      causes.push(
        cause.invalid(`${path}.stabilizationWindowSeconds`, window, "must be less than or equal to 3600"),
      );
  }
  if (rules.selectPolicy !== undefined && !SELECT_POLICIES.includes(rules.selectPolicy as string))
    causes.push(cause.notSupported(`${path}.selectPolicy`, rules.selectPolicy, SELECT_POLICIES));
  return causes;
}

/** validateHorizontalPodAutoscalerSpec (autoscaling/v2). */
function hpaSpecCauses(spec: Obj, oldSpec: Obj | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const min = spec.minReplicas;
  const max = typeof spec.maxReplicas === "number" ? spec.maxReplicas : 0;
  // HPAScaleToZero (on in 1.37): zero replicas, given an Object or External metric to wake on.
  if (typeof min === "number" && min < 0)
    causes.push(cause.invalid("spec.minReplicas", min, "must be greater than or equal to 0"));
  if (max < 0) causes.push(cause.invalid("spec.maxReplicas", max, "must be greater than or equal to 1"));
  if (typeof min === "number" && max < min)
    causes.push(cause.invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"));
  const ref = (spec.scaleTargetRef ?? {}) as Obj;
  for (const f of ["kind", "name"]) {
    const v = typeof ref[f] === "string" ? (ref[f] as string) : "";
    if (v === "") causes.push(cause.required(`spec.scaleTargetRef.${f}`));
    else
      for (const msg of pathSegmentErrors(v)) causes.push(cause.invalid(`spec.scaleTargetRef.${f}`, v, msg));
  }
  causes.push(...scaleTargetApiVersionCauses(ref, oldSpec?.scaleTargetRef as Obj | undefined));
  const metrics = Array.isArray(spec.metrics) ? (spec.metrics as Obj[]) : [];
  for (let i = 0; i < metrics.length; i++)
    causes.push(...metricCauses((metrics[i] ?? {}) as Obj, `spec.metrics[${i}]`));
  if (min === 0 && !metrics.some((m) => m?.type === "Object" || m?.type === "External"))
    causes.push(
      cause.forbidden(
        "spec.metrics",
        "must specify at least one Object or External metric to support scaling to zero replicas",
      ),
    );
  const behavior = isMap(spec.behavior) ? spec.behavior : {};
  for (const direction of ["scaleUp", "scaleDown"]) {
    const rules = behavior[direction];
    if (isMap(rules)) causes.push(...scalingRulesCauses(rules, `spec.behavior.${direction}`));
  }
  // Declarative validation's +k8s:required reports an unset maxReplicas, with no detail, after
  // the handwritten checks.
  if (max === 0) causes.push(cause.required("spec.maxReplicas"));
  return causes;
}

/** Replaces `target`'s content with `source`'s, keeping the object the write path holds. */
function replaceContent(target: Obj, source: Obj): void {
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, source);
}

/**
 * autoscaling/v1 HorizontalPodAutoscalers: kube defaults and validates its internal type, which is
 * v2's; so does this, through the conversion (a v1 object without a CPU target gets v2's default
 * of 80%, and causes name v2's fields).
 */
export const horizontalPodAutoscalerV1Behaviour: KindBehaviour = {
  defaults(obj, ctx) {
    const v2 = hpaFromV1(obj);
    horizontalPodAutoscalerBehaviour.defaults?.(v2, { ...ctx, old: ctx.old && hpaFromV1(ctx.old) });
    replaceContent(obj, hpaToV1(v2));
  },
  validate(obj, old, server, subresource) {
    return (
      horizontalPodAutoscalerBehaviour.validate?.(
        hpaFromV1(obj),
        old && hpaFromV1(old),
        server,
        subresource,
      ) ?? []
    );
  },
};
