// HorizontalPodAutoscalers between autoscaling/v1 and autoscaling/v2, as kube converts them
// (pkg/apis/autoscaling/v1/conversion.go): v1 holds one CPU utilization target; every other
// metric, the current metrics, the conditions and the behavior travel in annotations
// (autoscaling.alpha.kubernetes.io/...), so a v2 object survives a round trip through v1.
import type { Obj } from "../storage/index.js";

const METRICS = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT_METRICS = "autoscaling.alpha.kubernetes.io/current-metrics";
const BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior";
const CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions";
const ROUND_TRIP = [METRICS, CURRENT_METRICS, BEHAVIOR, CONDITIONS];

type Json = Record<string, unknown>;
const obj = (v: unknown): Json =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {};
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
/** Only the keys whose value is set, as Go's omitempty writes a struct. */
function set(o: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}
/** A Quantity field without omitempty: Go writes its zero value as "0". */
const quantity = (v: unknown) => v ?? "0";

const isCpuUtilization = (m: Json) =>
  m.type === "Resource" &&
  obj(m.resource).name === "cpu" &&
  obj(obj(m.resource).target).averageUtilization != null;

function metricToV1(m: Json): Json {
  const t = obj(obj(m[lowerFirst(String(m.type ?? ""))]).target);
  switch (m.type) {
    case "Resource": {
      const r = obj(m.resource);
      return {
        type: m.type,
        resource: set({
          name: r.name,
          targetAverageUtilization: t.averageUtilization,
          targetAverageValue: t.averageValue,
        }),
      };
    }
    case "ContainerResource": {
      const r = obj(m.containerResource);
      return {
        type: m.type,
        containerResource: set({
          name: r.name,
          targetAverageUtilization: t.averageUtilization,
          targetAverageValue: t.averageValue,
          container: r.container ?? "",
        }),
      };
    }
    case "Pods": {
      const metric = obj(obj(m.pods).metric);
      return {
        type: m.type,
        pods: set({
          metricName: metric.name ?? "",
          targetAverageValue: quantity(t.averageValue),
          selector: metric.selector,
        }),
      };
    }
    case "Object": {
      const o = obj(m.object);
      const metric = obj(o.metric);
      return {
        type: m.type,
        object: set({
          target: o.describedObject,
          metricName: metric.name ?? "",
          targetValue: quantity(t.value),
          selector: metric.selector,
          averageValue: t.averageValue,
        }),
      };
    }
    case "External": {
      const metric = obj(obj(m.external).metric);
      return {
        type: m.type,
        external: set({
          metricName: metric.name ?? "",
          metricSelector: metric.selector,
          targetValue: t.value,
          targetAverageValue: t.averageValue,
        }),
      };
    }
    default:
      return { type: m.type };
  }
}

function metricFromV1(m: Json): Json {
  switch (m.type) {
    case "Resource":
    case "ContainerResource": {
      const field = lowerFirst(String(m.type));
      const r = obj(m[field]);
      const utilization = r.targetAverageUtilization;
      const target = set({
        type: utilization == null ? "AverageValue" : "Utilization",
        averageValue: r.targetAverageValue,
        averageUtilization: utilization,
      });
      return {
        type: m.type,
        [field]: set({
          name: r.name,
          ...(field === "containerResource" ? { container: r.container } : {}),
          target,
        }),
      };
    }
    case "Pods": {
      const p = obj(m.pods);
      return {
        type: m.type,
        pods: {
          metric: set({ name: p.metricName, selector: p.selector }),
          target: { type: "AverageValue", averageValue: quantity(p.targetAverageValue) },
        },
      };
    }
    case "Object": {
      const o = obj(m.object);
      const target = set({
        type: o.averageValue == null ? "Value" : "AverageValue",
        value: quantity(o.targetValue),
        averageValue: o.averageValue,
      });
      return {
        type: m.type,
        object: {
          describedObject: o.target,
          target,
          metric: set({ name: o.metricName, selector: o.selector }),
        },
      };
    }
    case "External": {
      const e = obj(m.external);
      const target = set({
        type: e.targetValue == null ? "AverageValue" : "Value",
        value: e.targetValue,
        averageValue: e.targetAverageValue,
      });
      return {
        type: m.type,
        external: { metric: set({ name: e.metricName, selector: e.metricSelector }), target },
      };
    }
    default:
      return { type: m.type };
  }
}

function statusToV1(m: Json): Json {
  const c = obj(obj(m[lowerFirst(String(m.type ?? ""))]).current);
  switch (m.type) {
    case "Resource":
    case "ContainerResource": {
      const field = lowerFirst(String(m.type));
      const r = obj(m[field]);
      return {
        type: m.type,
        [field]: set({
          name: r.name,
          currentAverageUtilization: c.averageUtilization,
          currentAverageValue: quantity(c.averageValue),
          ...(field === "containerResource" ? { container: r.container ?? "" } : {}),
        }),
      };
    }
    case "Pods": {
      const metric = obj(obj(m.pods).metric);
      return {
        type: m.type,
        pods: set({
          metricName: metric.name ?? "",
          currentAverageValue: quantity(c.averageValue),
          selector: metric.selector,
        }),
      };
    }
    case "Object": {
      const o = obj(m.object);
      const metric = obj(o.metric);
      return {
        type: m.type,
        object: set({
          target: o.describedObject,
          metricName: metric.name ?? "",
          currentValue: quantity(c.value),
          selector: metric.selector,
          averageValue: c.averageValue,
        }),
      };
    }
    case "External": {
      const metric = obj(obj(m.external).metric);
      return {
        type: m.type,
        external: set({
          metricName: metric.name ?? "",
          metricSelector: metric.selector,
          currentValue: quantity(c.value),
          currentAverageValue: c.averageValue,
        }),
      };
    }
    default:
      return { type: m.type };
  }
}

function statusFromV1(m: Json): Json {
  switch (m.type) {
    case "Resource":
    case "ContainerResource": {
      const field = lowerFirst(String(m.type));
      const r = obj(m[field]);
      const current = set({
        averageValue: quantity(r.currentAverageValue),
        averageUtilization: r.currentAverageUtilization,
      });
      return {
        type: m.type,
        [field]: set({
          name: r.name,
          ...(field === "containerResource" ? { container: r.container } : {}),
          current,
        }),
      };
    }
    case "Pods": {
      const p = obj(m.pods);
      return {
        type: m.type,
        pods: {
          metric: set({ name: p.metricName, selector: p.selector }),
          current: { averageValue: quantity(p.currentAverageValue) },
        },
      };
    }
    case "Object": {
      const o = obj(m.object);
      return {
        type: m.type,
        object: {
          metric: set({ name: o.metricName, selector: o.selector }),
          current: set({ value: quantity(o.currentValue), averageValue: o.averageValue }),
          describedObject: o.target,
        },
      };
    }
    case "External": {
      const e = obj(m.external);
      return {
        type: m.type,
        external: {
          metric: set({ name: e.metricName, selector: e.metricSelector }),
          current: set({ value: quantity(e.currentValue), averageValue: e.currentAverageValue }),
        },
      };
    }
    default:
      return { type: m.type };
  }
}

function lowerFirst(s: string): string {
  return s ? s[0].toLowerCase() + s.slice(1) : s;
}

/** The behavior as kube's internal type marshals it: Go's field names, no JSON tags. */
function behaviorToGo(b: Json): Json {
  const rules = (r: unknown) => {
    const o = obj(r);
    return {
      ...set({
        StabilizationWindowSeconds: o.stabilizationWindowSeconds,
        SelectPolicy: o.selectPolicy,
        Policies: list(o.policies).map((p) => ({
          Type: p.type,
          Value: p.value,
          PeriodSeconds: p.periodSeconds,
        })),
      }),
      // A *resource.Quantity without a JSON tag (kube 1.33+): written null when unset.
      Tolerance: o.tolerance ?? null,
    };
  };
  return {
    ScaleUp: b.scaleUp == null ? null : rules(b.scaleUp),
    ScaleDown: b.scaleDown == null ? null : rules(b.scaleDown),
  };
}

function behaviorFromGo(b: Json): Json | undefined {
  const rules = (r: unknown) => {
    const o = obj(r);
    return set({
      stabilizationWindowSeconds: o.StabilizationWindowSeconds,
      selectPolicy: o.SelectPolicy,
      policies: list(o.Policies).map((p) => ({
        type: p.Type,
        value: p.Value,
        periodSeconds: p.PeriodSeconds,
      })),
      tolerance: o.Tolerance,
    });
  };
  const out = set({
    scaleUp: b.ScaleUp == null ? undefined : rules(b.ScaleUp),
    scaleDown: b.ScaleDown == null ? undefined : rules(b.ScaleDown),
  });
  return Object.keys(out).length > 0 ? out : undefined;
}

function conditionToV1(c: Json): Json {
  return set({
    type: c.type,
    status: c.status,
    lastTransitionTime: c.lastTransitionTime ?? null,
    reason: c.reason,
    message: c.message,
  });
}

function parse(text: unknown): unknown {
  try {
    return typeof text === "string" ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

function dropRoundTrip(meta: Json): Json {
  const annotations = { ...obj(meta.annotations) };
  for (const k of ROUND_TRIP) delete annotations[k];
  const out = { ...meta };
  if (Object.keys(annotations).length > 0) out.annotations = annotations;
  else delete out.annotations;
  return out;
}

/** An autoscaling/v2 HorizontalPodAutoscaler as autoscaling/v1 serves it. */
export function hpaToV1(hpa: Readonly<Obj>): Obj {
  const spec = obj(hpa.spec);
  const status = obj(hpa.status);
  const meta = dropRoundTrip(obj(hpa.metadata));
  const annotations: Json = { ...obj(meta.annotations) };
  const metrics = list(spec.metrics);
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => !isCpuUtilization(m)).map(metricToV1);
  if (others.length > 0) annotations[METRICS] = JSON.stringify(others);
  const current = list(status.currentMetrics);
  if (current.length > 0) annotations[CURRENT_METRICS] = JSON.stringify(current.map(statusToV1));
  if (spec.behavior != null) annotations[BEHAVIOR] = JSON.stringify(behaviorToGo(obj(spec.behavior)));
  const conditions = list(status.conditions);
  if (conditions.length > 0) annotations[CONDITIONS] = JSON.stringify(conditions.map(conditionToV1));
  if (Object.keys(annotations).length > 0) meta.annotations = annotations;
  const cpuCurrent = current.find((m) => m.type === "Resource" && obj(m.resource).name === "cpu");
  return {
    apiVersion: "autoscaling/v1",
    kind: "HorizontalPodAutoscaler",
    metadata: meta,
    spec: set({
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas ?? 0,
      targetCPUUtilizationPercentage: cpu ? obj(obj(cpu.resource).target).averageUtilization : undefined,
    }),
    status: set({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas ?? 0,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentCPUUtilizationPercentage: cpuCurrent
        ? obj(obj(cpuCurrent.resource).current).averageUtilization
        : undefined,
    }),
  };
}

/** An autoscaling/v1 HorizontalPodAutoscaler as autoscaling/v2 serves it. */
export function hpaFromV1(hpa: Readonly<Obj>): Obj {
  const spec = obj(hpa.spec);
  const status = obj(hpa.status);
  const annotations = obj(obj(hpa.metadata).annotations);
  let metrics: Json[] = [];
  const cpuTarget = spec.targetCPUUtilizationPercentage;
  const cpuMetric =
    cpuTarget == null
      ? undefined
      : {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: cpuTarget } },
        };
  const others = parse(annotations[METRICS]);
  if (Array.isArray(others))
    metrics = [...others.map((m) => metricFromV1(obj(m))), ...(cpuMetric ? [cpuMetric] : [])];
  else if (cpuMetric) metrics = [cpuMetric];
  // v1's implicit default, made explicit (DefaultCPUUtilization).
  if (metrics.length === 0) {
    metrics = [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
      },
    ];
  }
  const behavior = parse(annotations[BEHAVIOR]);
  let currentMetrics: Json[] | undefined;
  const current = parse(annotations[CURRENT_METRICS]);
  if (Array.isArray(current)) currentMetrics = current.map((m) => statusFromV1(obj(m)));
  else if (status.currentCPUUtilizationPercentage != null) {
    currentMetrics = [
      {
        type: "Resource",
        resource: { name: "cpu", current: { averageUtilization: status.currentCPUUtilizationPercentage } },
      },
    ];
  }
  const conditions = parse(annotations[CONDITIONS]);
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: dropRoundTrip(obj(hpa.metadata)),
    spec: set({
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas ?? 0,
      metrics,
      behavior: behavior && typeof behavior === "object" ? behaviorFromGo(obj(behavior)) : undefined,
    }),
    status: set({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      // omitempty in v2: a zero count is left out.
      currentReplicas: status.currentReplicas || undefined,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentMetrics,
      conditions: Array.isArray(conditions) ? conditions : undefined,
    }),
  };
}
