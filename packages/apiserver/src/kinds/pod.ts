// Pods and pod templates: the defaults kube's API server fills that clients rely on, and the
// required fields it checks.
import { admitLimitRanges } from "./limit-ranger.js";
import { defaultPriorityClass } from "./scheduling.js";
import { validatePodSpecUpdate } from "./pod-update.js";
import { defaultRequestsFromLimits, podQOS } from "./pod-qos.js";
import { annotationCauses, labelCauses } from "../object/meta.js";
import { dns1123LabelErrors } from "../object/names.js";
import { labelValueErrors, qualifiedNameErrors } from "controller-runtime/api";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { cause, forbidden } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { ServerContext } from "../handlers/context.js";
import type { KindBehaviour } from "./behaviour.js";
import { nodeResourceCauses } from "./core-status.js";
import { podCIDRCauses, syncPodCIDRs } from "./node-spec.js";

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** SetDefaults_HTTPGetAction: a path and a scheme. */
function defaultHttpGet(h: unknown): void {
  if (!isObj(h)) return;
  if (!h.path) h.path = "/";
  if (!h.scheme) h.scheme = "HTTP";
}

/** SetDefaults_Probe and the handler's own defaults. */
function defaultProbe(p: unknown): void {
  if (!isObj(p)) return;
  p.timeoutSeconds ??= 1;
  p.periodSeconds ??= 10;
  p.successThreshold ??= 1;
  p.failureThreshold ??= 3;
  defaultHttpGet(p.httpGet);
}

/** The defaults of volume sources: file modes 0644, an unset hostPath type. */
function defaultVolume(v: unknown): void {
  if (!isObj(v)) return;
  // SetDefaults_Volume: a volume that names no source is an emptyDir (every other field of a
  // Volume is one of its VolumeSource's pointers).
  if (!Object.keys(v).some((k) => k !== "name" && isObj(v[k]))) v.emptyDir = {};
  if (isObj(v.hostPath)) v.hostPath.type ??= "";
  for (const k of ["secret", "configMap", "downwardAPI", "projected"]) {
    const src = v[k];
    if (isObj(src)) src.defaultMode ??= 420;
  }
  if (isObj(v.projected) && Array.isArray(v.projected.sources)) {
    for (const source of v.projected.sources as Obj[]) {
      const token = isObj(source) ? source.serviceAccountToken : undefined;
      if (isObj(token)) token.expirationSeconds ??= 3600;
    }
  }
  if (isObj(v.iscsi)) v.iscsi.iscsiInterface ??= "default";
  if (isObj(v.rbd)) {
    v.rbd.pool ??= "rbd";
    v.rbd.user ??= "admin";
    v.rbd.keyring ??= "/etc/ceph/keyring";
  }
  if (isObj(v.azureDisk)) {
    v.azureDisk.cachingMode ??= "ReadWrite";
    v.azureDisk.fsType ??= "ext4";
    v.azureDisk.readOnly ??= false;
    v.azureDisk.kind ??= "Shared";
  }
  if (isObj(v.scaleIO)) {
    v.scaleIO.storageMode ??= "ThinProvisioned";
    v.scaleIO.fsType ??= "xfs";
  }
}

function defaultContainer(c: Obj): void {
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) defaultProbe(c[probe]);
  if (isObj(c.lifecycle)) {
    for (const hook of ["postStart", "preStop"]) {
      const h = c.lifecycle[hook];
      if (isObj(h)) defaultHttpGet(h.httpGet);
    }
  }
  c.terminationMessagePath ??= "/dev/termination-log";
  c.terminationMessagePolicy ??= "File";
  if (c.imagePullPolicy === undefined && typeof c.image === "string") {
    const tag = c.image.includes("@") ? "digest" : (c.image.split("/").pop()?.split(":")[1] ?? "latest");
    c.imagePullPolicy = tag === "latest" ? "Always" : "IfNotPresent";
  }
  c.resources ??= {};
  if (Array.isArray(c.ports)) for (const p of c.ports as Obj[]) p.protocol ??= "TCP";
}

/** SetDefaults_ObjectFieldSelector: a field reference without an apiVersion reads v1. */
function defaultFieldRef(holder: unknown): void {
  if (isObj(holder) && isObj(holder.fieldRef) && !holder.fieldRef.apiVersion)
    holder.fieldRef.apiVersion = "v1";
}

/** The field references of a downward API volume's items. */
function defaultDownwardItems(source: unknown): void {
  if (isObj(source) && Array.isArray(source.items)) for (const item of source.items) defaultFieldRef(item);
}

/** Fills a PodSpec's defaults in place. */
export function defaultPodSpec(spec: Obj): void {
  for (const list of ["containers", "initContainers", "ephemeralContainers"]) {
    if (!Array.isArray(spec[list])) continue;
    for (const c of spec[list] as Obj[]) {
      if (!c || typeof c !== "object") continue;
      if (list !== "ephemeralContainers") defaultContainer(c);
      if (Array.isArray(c.env)) for (const e of c.env) if (isObj(e)) defaultFieldRef(e.valueFrom);
    }
  }
  if (Array.isArray(spec.volumes)) {
    for (const v of spec.volumes) {
      defaultVolume(v);
      if (!isObj(v)) continue;
      defaultDownwardItems(v.downwardAPI);
      if (isObj(v.projected) && Array.isArray(v.projected.sources))
        for (const source of v.projected.sources) if (isObj(source)) defaultDownwardItems(source.downwardAPI);
    }
  }
  // The v1 conversion: serviceAccount is the deprecated name of serviceAccountName, read when
  // the name is not given and always written as the name.
  if (!spec.serviceAccountName && typeof spec.serviceAccount === "string" && spec.serviceAccount !== "")
    spec.serviceAccountName = spec.serviceAccount;
  if (typeof spec.serviceAccountName === "string" && spec.serviceAccountName !== "")
    spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= "ClusterFirst";
  spec.securityContext ??= {};
  spec.schedulerName ??= "default-scheduler";
}

const PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"];
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const RESTART_POLICIES = ["Always", "OnFailure", "Never"];

/** apimachinery's IsValidPortNum. */
export function portNumberErrors(port: unknown): string[] {
  return typeof port === "number" && port >= 1 && port <= 65535
    ? []
    : ["must be between 1 and 65535, inclusive"];
}

/** apimachinery's IsValidPortName (an IANA service name). */
export function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(name))
    errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(name)) errs.push("must contain at least one letter (a-z)");
  if (name.includes("--")) errs.push("must not contain consecutive hyphens");
  if (name.startsWith("-") || name.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

/** A value among `allowed`, required (kube's pattern for enums of strings). */
function enumCauses(value: unknown, field: string, allowed: string[]): StatusCause[] {
  if (value === undefined || value === null || value === "") return [cause.required(field)];
  return allowed.includes(value as string) ? [] : [cause.notSupported(field, value, allowed)];
}

/** validateContainerPorts. */
function portCauses(ports: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!Array.isArray(ports)) return causes;
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const port = (p ?? {}) as Obj;
    const at = `${path}[${i}]`;
    if (typeof port.name === "string" && port.name !== "") {
      const errs = portNameErrors(port.name);
      for (const msg of errs) causes.push(cause.invalid(`${at}.name`, port.name, msg));
      if (errs.length === 0 && names.has(port.name)) causes.push(cause.duplicate(`${at}.name`, port.name));
      names.add(port.name);
    }
    if (port.containerPort === undefined || port.containerPort === 0)
      causes.push(cause.required(`${at}.containerPort`));
    else
      for (const msg of portNumberErrors(port.containerPort))
        causes.push(cause.invalid(`${at}.containerPort`, port.containerPort, msg));
    if (port.hostPort !== undefined && port.hostPort !== 0) {
      for (const msg of portNumberErrors(port.hostPort))
        causes.push(cause.invalid(`${at}.hostPort`, port.hostPort, msg));
    }
    causes.push(...enumCauses(port.protocol, `${at}.protocol`, PORT_PROTOCOLS));
  });
  return causes;
}

/** ValidateEnv's names, under RelaxedEnvironmentVariableValidation (on since 1.34). */
function envCauses(env: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!Array.isArray(env)) return causes;
  env.forEach((e, i) => {
    const name = isObj(e) && typeof e.name === "string" ? e.name : "";
    if (name === "") causes.push(cause.required(`${path}[${i}].name`));
    else if (!/^[\x20-\x3c\x3e-\x7e]+$/.test(name))
      causes.push(
        cause.invalid(
          `${path}[${i}].name`,
          name,
          "a valid environment variable name must consist only of printable ASCII characters other than '='",
        ),
      );
  });
  return causes;
}

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/** ValidateTolerations (the comparison operators Lt and Gt are behind a gate kube 1.37 leaves off). */
function tolerationCauses(tolerations: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!Array.isArray(tolerations)) return causes;
  tolerations.forEach((raw, i) => {
    const t = isObj(raw) ? raw : {};
    const at = `${path}[${i}]`;
    const key = typeof t.key === "string" ? t.key : "";
    const operator = typeof t.operator === "string" ? t.operator : "";
    const value = typeof t.value === "string" ? t.value : "";
    const effect = typeof t.effect === "string" ? t.effect : "";
    if (key !== "")
      for (const msg of qualifiedNameErrors(key)) causes.push(cause.invalid(`${at}.key`, key, msg));
    if (key === "" && operator !== "Exists")
      causes.push(
        cause.invalid(
          `${at}.operator`,
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== "NoExecute")
      causes.push(
        cause.invalid(`${at}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"),
      );
    if (operator === "Equal" || operator === "") {
      const errs = labelValueErrors(value);
      if (errs.length > 0) causes.push(cause.invalid(`${at}.operator`, value, errs.join(";")));
    } else if (operator === "Exists") {
      if (value !== "")
        causes.push(
          cause.invalid(`${at}.operator`, value, "value must be empty when `operator` is 'Exists'"),
        );
    } else {
      const supported =
        operator === "Lt" || operator === "Gt" ? ["Equal", "Exists", "Lt", "Gt"] : ["Equal", "Exists"];
      causes.push(cause.notSupported(`${at}.operator`, operator, supported));
    }
    if (effect !== "" && !TAINT_EFFECTS.includes(effect))
      causes.push(cause.notSupported(`${at}.effect`, effect, TAINT_EFFECTS));
  });
  return causes;
}

/** validateContainerCommon's checks of one container (after defaulting). */
function containerCauses(c: Obj, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (typeof c.name !== "string" || c.name === "") causes.push(cause.required(`${path}.name`));
  else for (const msg of dns1123LabelErrors(c.name)) causes.push(cause.invalid(`${path}.name`, c.name, msg));
  if (typeof c.image !== "string" || c.image === "") causes.push(cause.required(`${path}.image`));
  if (c.terminationMessagePolicy !== undefined) {
    causes.push(
      ...enumCauses(c.terminationMessagePolicy, `${path}.terminationMessagePolicy`, [
        "File",
        "FallbackToLogsOnError",
      ]),
    );
  }
  causes.push(...portCauses(c.ports, `${path}.ports`));
  causes.push(...envCauses(c.env, `${path}.env`));
  if (c.imagePullPolicy !== undefined)
    causes.push(...enumCauses(c.imagePullPolicy, `${path}.imagePullPolicy`, PULL_POLICIES));
  return causes;
}

/** kube's ValidatePodSpec, for what operators write: containers and their ports, the restart policy. */
export function validatePodSpec(spec: unknown, path: string): StatusCause[] {
  const s = (spec && typeof spec === "object" ? spec : {}) as Obj;
  const causes: StatusCause[] = [];
  const containers = s.containers;
  if (!Array.isArray(containers) || containers.length === 0)
    causes.push(cause.required(`${path}.containers`));
  else {
    const names = new Set<string>();
    containers.forEach((c, i) => {
      const co = (c ?? {}) as Obj;
      const at = `${path}.containers[${i}]`;
      causes.push(...containerCauses(co, at));
      if (typeof co.name === "string" && co.name !== "") {
        if (names.has(co.name)) causes.push(cause.duplicate(`${at}.name`, co.name));
        names.add(co.name);
      }
    });
  }
  // validatePodSpec's range: a deadline of 0 (or past int32) is no deadline a kubelet can keep.
  const deadline = s.activeDeadlineSeconds;
  if (typeof deadline === "number" && (deadline < 1 || deadline > 2147483647))
    causes.push(
      cause.invalid(`${path}.activeDeadlineSeconds`, deadline, "must be between 1 and 2147483647, inclusive"),
    );
  // Defaulting gives every pod spec that reaches validation a policy; absent means defaulted.
  if (s.restartPolicy !== undefined)
    causes.push(...enumCauses(s.restartPolicy, `${path}.restartPolicy`, RESTART_POLICIES));
  causes.push(...tolerationCauses(s.tolerations, `${path}.tolerations`));
  return causes;
}

/** kube's ValidatePodTemplateSpec: the template's labels and annotations, then its pod spec. */
export function validatePodTemplate(template: unknown, path: string): StatusCause[] {
  const t = (template && typeof template === "object" ? template : {}) as Obj;
  const meta = (t.metadata ?? {}) as Obj;
  return [
    ...labelCauses(meta.labels, `${path}.labels`),
    ...annotationCauses(meta.annotations, `${path}.annotations`),
    ...validatePodSpec(t.spec, `${path}.spec`),
  ];
}

/**
 * The DefaultTolerationSeconds admission plugin (on creates and updates of pods): a pod that does
 * not tolerate not-ready and unreachable nodes does so for five minutes.
 */
function defaultTolerationSeconds(spec: Obj): void {
  const tolerations = Array.isArray(spec.tolerations) ? (spec.tolerations as Obj[]) : [];
  for (const key of ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]) {
    const tolerated = tolerations.some(
      (t) => isObj(t) && (t.effect === "NoExecute" || !t.effect) && (t.key === key || !t.key),
    );
    if (!tolerated)
      tolerations.push({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
  }
  spec.tolerations = tolerations;
}

export const podBehaviour: KindBehaviour = {
  defaults(obj, { old }) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    defaultPodSpec(spec);
    // kube's SetDefaults_Pod, not SetDefaults_PodSpec: templates do not get it.
    spec.enableServiceLinks ??= true;
    defaultRequestsFromLimits(spec);
    if (!old && obj.status === undefined) obj.status = { phase: "Pending", qosClass: podQOS(spec) };
    // On an update the plugin runs before validation, so a pod cannot lose the tolerations
    // (on a create, after the field manager: see created).
    if (old) defaultTolerationSeconds(spec);
  },
  // Admission, after the field manager: LimitRanger defaults and bounds the resources, the
  // Priority plugin resolves the priority class, and DefaultTolerationSeconds tolerates not-ready
  // and unreachable nodes for five minutes.
  created(obj, { server }) {
    const spec = obj.spec as Obj;
    const className = typeof spec.priorityClassName === "string" ? spec.priorityClassName : "";
    const podName = String((obj.metadata as Obj).name ?? "");
    admitLimitRanges(server, String((obj.metadata as Obj).namespace ?? ""), spec, podName);
    // The QoS class is the strategy's (PrepareForCreate), after admission set the resources.
    if (isObj(obj.status)) obj.status.qosClass = podQOS(spec);
    // Without a class, the global default's, named on the Pod (the Priority admission's getDefaultPriority).
    const priorityClass = className
      ? priorityClassNamed(server, className, podName)
      : defaultPriorityClass(server);
    if (!className && priorityClass) spec.priorityClassName = (priorityClass.metadata as Obj).name;
    const priority = (priorityClass?.value as number | undefined) ?? 0;
    spec.priority = fromClass(spec.priority, priority, "the integer value of priority", podName);
    const policy = (priorityClass?.preemptionPolicy as string | undefined) ?? "PreemptLowerPriority";
    spec.preemptionPolicy = fromClass(
      spec.preemptionPolicy,
      policy,
      "the string value of PreemptionPolicy",
      podName,
    );
    defaultTolerationSeconds(spec);
    admitRuntimeClass(server, spec, podName);
  },
  validate(obj, old, _server, subresource) {
    const causes = validatePodSpec(obj.spec, "spec");
    // Resize and ephemeral containers have their own rules (ValidatePodResize, ...EphemeralContainersUpdate).
    if (old && subresource === "") causes.push(...validatePodSpecUpdate(obj, old));
    return causes;
  },
};

/**
 * kube's RuntimeClass admission: the RuntimeClass a Pod names must exist; its fixed overhead
 * becomes the Pod's (a different one is refused), its scheduling's node selector and tolerations
 * are merged into the Pod's.
 */
function admitRuntimeClass(server: ServerContext, spec: Obj, pod: string): void {
  const name = spec.runtimeClassName;
  if (typeof name !== "string" || name === "") return;
  const refusal = (why: string) =>
    forbidden({ group: "", resource: "pods", kind: "Pod" }, pod, `pod rejected: ${why}`);
  const rc = server.storage.get("node.k8s.io/runtimeclasses", name)?.obj as Obj | undefined;
  if (!rc) throw refusal(`RuntimeClass "${name}" not found`);
  const overhead = isObj(rc.overhead) ? rc.overhead.podFixed : undefined;
  if (isObj(overhead)) {
    if (spec.overhead !== undefined && JSON.stringify(spec.overhead) !== JSON.stringify(overhead)) {
      throw refusal("Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    }
    spec.overhead = structuredClone(overhead);
  }
  const scheduling = isObj(rc.scheduling) ? rc.scheduling : undefined;
  if (isObj(scheduling?.nodeSelector)) {
    const selector = { ...(isObj(spec.nodeSelector) ? spec.nodeSelector : {}) };
    for (const [key, value] of Object.entries(scheduling.nodeSelector)) {
      if (key in selector && selector[key] !== value) {
        throw refusal(
          `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; pod.spec.nodeSelector[${key}] = ${String(selector[key])}`,
        );
      }
      selector[key] = value;
    }
    spec.nodeSelector = selector;
  }
  if (Array.isArray(scheduling?.tolerations)) {
    const tolerations = Array.isArray(spec.tolerations) ? (spec.tolerations as unknown[]) : [];
    for (const t of scheduling.tolerations) {
      if (!tolerations.some((have) => JSON.stringify(have) === JSON.stringify(t))) tolerations.push(t);
    }
    spec.tolerations = tolerations;
  }
}

/**
 * The Priority admission's value of a Pod's field: its class's; a different one the Pod gave is
 * refused (403), as kube's plugin refuses it.
 */
function fromClass<T>(given: unknown, computed: T, what: string, podName: string): T {
  if (given !== undefined && given !== computed) {
    throw forbidden(
      { group: "", resource: "pods", kind: "Pod" },
      podName,
      `${what} (${given}) must not be provided in pod spec; priority admission controller computed ${computed} from the given PriorityClass name`,
    );
  }
  return computed;
}

/** The PriorityClass a Pod names, or kube's Priority admission refusal. */
function priorityClassNamed(server: ServerContext, name: string, pod: string): Obj {
  const stored = server.storage.get("scheduling.k8s.io/priorityclasses", name)?.obj as Obj | undefined;
  if (!stored) {
    throw forbidden(
      { group: "", resource: "pods", kind: "Pod" },
      pod,
      `no PriorityClass with name ${name} was found`,
    );
  }
  return stored;
}

export const nodeBehaviour: KindBehaviour = {
  defaults(obj) {
    syncPodCIDRs(obj);
  },
  // ValidateNode and ValidateNodeUpdate, status writes included.
  validate(obj, old) {
    return [...podCIDRCauses(obj, old), ...nodeResourceCauses(obj)];
  },
  // TaintNodesByCondition: a new node is not ready until its kubelet says so.
  created(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    const taints = Array.isArray(spec.taints) ? (spec.taints as Obj[]) : [];
    if (
      !taints.some((t) => isObj(t) && t.key === "node.kubernetes.io/not-ready" && t.effect === "NoSchedule")
    ) {
      taints.push({ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" });
    }
    spec.taints = taints;
  },
};
