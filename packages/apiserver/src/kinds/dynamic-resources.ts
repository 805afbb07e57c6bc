// resource.k8s.io/v1 (dynamic resource allocation): the defaults of a device request
// (SetDefaults_ExactDeviceRequest), a claim's and a template's spec fixed once written, a
// ResourceSlice's driver, pool, node selection and device names, and a DeviceTaintRule's taint
// with the time kube's strategy stamps on it. The rest of pkg/apis/resource/validation (CEL
// selectors, device attributes, capacity) is not checked here.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { qualifiedNameErrors } from "controller-runtime/api";
import { deepEqual, kubeTime } from "../object/meta.js";
import { dns1123LabelErrors, dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

const asObj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined;
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(asObj).filter((o) => o !== undefined) : []);

/** SetDefaults_ExactDeviceRequest and the same for a firstAvailable subrequest. */
function defaultRequest(r: Obj): void {
  r.allocationMode ??= "ExactCount";
  if (r.allocationMode === "ExactCount") r.count ??= 1;
}

function defaultClaimSpec(spec: Obj | undefined): void {
  for (const request of objects(asObj(spec?.devices)?.requests)) {
    const exactly = asObj(request.exactly);
    if (exactly) defaultRequest(exactly);
    for (const sub of objects(request.firstAvailable)) defaultRequest(sub);
  }
}

/** A request's deviceClassName: required, a DNS subdomain (the DeviceClass's name). */
function deviceClassNameCauses(value: unknown, path: string): StatusCause[] {
  const name = typeof value === "string" ? value : "";
  if (name === "") return [cause.required(path)];
  return dns1123SubdomainErrors(name).map((m) => cause.invalid(path, name, m));
}

/** validatePoolName: slash-separated DNS subdomains, 253 bytes at most. */
export function poolNameCauses(name: string, path: string): StatusCause[] {
  if (name === "") return [cause.required(path)];
  if (name.length > 253)
    return [
      { reason: "FieldValueTooLong", message: "Too long: may not be more than 253 bytes", field: path },
    ];
  return name
    .split("/")
    .flatMap((part) => dns1123SubdomainErrors(part).map((m) => cause.invalid(path, name, m)));
}

/** validateDeviceClaim's checks of each request: exactly one of exactly and firstAvailable. */
function claimSpecCauses(spec: Obj | undefined, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  objects(asObj(spec?.devices)?.requests).forEach((request, i) => {
    const at = `${path}.devices.requests[${i}]`;
    // A request's name is a DNS label; an empty one is invalid rather than required, as kube says.
    const name = typeof request.name === "string" ? request.name : "";
    for (const m of dns1123LabelErrors(name)) causes.push(cause.invalid(`${at}.name`, name, m));
    const exactly = asObj(request.exactly);
    const first = objects(request.firstAvailable);
    if (exactly === undefined && first.length === 0)
      causes.push(cause.required(at, "exactly one of `exactly` or `firstAvailable` is required"));
    else if (exactly !== undefined && first.length > 0)
      causes.push(
        cause.invalid(
          at,
          null,
          "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set",
        ),
      );
    if (exactly)
      causes.push(...deviceClassNameCauses(exactly.deviceClassName, `${at}.exactly.deviceClassName`));
    first.forEach((sub, j) => {
      causes.push(
        ...deviceClassNameCauses(sub.deviceClassName, `${at}.firstAvailable[${j}].deviceClassName`),
      );
    });
  });
  return causes;
}

/** ValidateImmutableField on a whole spec; kube's declarative validation shows no value. */
function immutableSpec(obj: Obj, old: Readonly<Obj> | undefined): StatusCause[] {
  return old && !deepEqual(obj.spec, old.spec) ? [cause.invalid("spec", null, "field is immutable")] : [];
}

export const deviceClassBehaviour: KindBehaviour = {
  defaults(obj) {
    obj.spec ??= {};
  },
};

export const resourceClaimBehaviour: KindBehaviour = {
  defaults(obj) {
    defaultClaimSpec(asObj(obj.spec));
  },
  validate(obj, old) {
    return old ? immutableSpec(obj, old) : claimSpecCauses(asObj(obj.spec), "spec");
  },
};

export const resourceClaimTemplateBehaviour: KindBehaviour = {
  defaults(obj) {
    defaultClaimSpec(asObj(asObj(obj.spec)?.spec));
  },
  validate(obj, old) {
    // A template is validated on update as on create, beside its immutable spec.
    return [...immutableSpec(obj, old), ...claimSpecCauses(asObj(asObj(obj.spec)?.spec), "spec.spec")];
  },
};

const NODE_SELECTION =
  "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required";

export const resourceSliceBehaviour: KindBehaviour = {
  validate(obj, old) {
    const spec = asObj(obj.spec) ?? {};
    const pool = asObj(spec.pool) ?? {};
    const causes: StatusCause[] = [];
    const driver = typeof spec.driver === "string" ? spec.driver : "";
    if (driver === "") causes.push(cause.required("spec.driver"));
    else for (const m of dns1123SubdomainErrors(driver)) causes.push(cause.invalid("spec.driver", driver, m));
    causes.push(...poolNameCauses(typeof pool.name === "string" ? pool.name : "", "spec.pool.name"));
    if (typeof pool.generation === "number" && pool.generation < 0)
      causes.push(
        cause.invalid("spec.pool.generation", pool.generation, "must be greater than or equal to zero"),
      );
    const count = typeof pool.resourceSliceCount === "number" ? pool.resourceSliceCount : 0;
    if (count <= 0)
      causes.push(cause.invalid("spec.pool.resourceSliceCount", count, "must be greater than zero"));
    if (old) {
      const oldSpec = asObj(old.spec) ?? {};
      const immutable: [string, unknown, unknown][] = [
        ["spec.pool.name", pool.name, asObj(oldSpec.pool)?.name],
        ["spec.driver", spec.driver, oldSpec.driver],
        ["spec.nodeName", spec.nodeName, oldSpec.nodeName],
      ];
      for (const [field, now, was] of immutable)
        if (now !== was) causes.push(cause.invalid(field, now ?? "", "field is immutable"));
    }
    const set: string[] = [];
    if (spec.nodeName !== undefined && spec.nodeName !== null) {
      if (spec.nodeName !== "") {
        set.push("`nodeName`");
        const node = String(spec.nodeName);
        for (const m of dns1123SubdomainErrors(node)) causes.push(cause.invalid("spec.nodeName", node, m));
      } else
        causes.push(cause.invalid("spec.nodeName", "", "must be either unset or set to a non-empty string"));
    }
    if (spec.nodeSelector !== undefined && spec.nodeSelector !== null) set.push("`nodeSelector`");
    for (const flag of ["allNodes", "perDeviceNodeSelection"]) {
      if (spec[flag] === true) set.push(`\`${flag}\``);
      else if (spec[flag] === false)
        causes.push(cause.invalid(`spec.${flag}`, false, "must be either unset or set to true"));
    }
    // Each device's name is a DNS label; an empty one is invalid rather than required.
    objects(spec.devices).forEach((d, i) => {
      const name = typeof d.name === "string" ? d.name : "";
      for (const m of dns1123LabelErrors(name))
        causes.push(cause.invalid(`spec.devices[${i}].name`, name, m));
    });
    if (set.length === 0) causes.push(cause.required("spec", NODE_SELECTION));
    else if (set.length > 1)
      causes.push(
        cause.invalid("spec", `{${set.join(", ")}}`, `${NODE_SELECTION}, but multiple fields are set`),
      );
    return causes;
  },
};

const TAINT_EFFECTS = ["NoExecute", "NoSchedule", "None"];

export const deviceTaintRuleBehaviour: KindBehaviour = {
  defaults(obj, { server }) {
    // The strategy stamps the time a taint was added when the author gave none.
    const taint = asObj(asObj(obj.spec)?.taint);
    if (taint && (taint.timeAdded === undefined || taint.timeAdded === null))
      taint.timeAdded = kubeTime(server.now());
  },
  validate(obj) {
    const taint = asObj(asObj(obj.spec)?.taint) ?? {};
    const key = typeof taint.key === "string" ? taint.key : "";
    const causes = qualifiedNameErrors(key).map((m) => cause.invalid("spec.taint.key", key, m));
    const effect = taint.effect;
    if (effect === undefined || effect === "") causes.push(cause.required("spec.taint.effect"));
    else if (!TAINT_EFFECTS.includes(String(effect)))
      causes.push(cause.notSupported("spec.taint.effect", effect, TAINT_EFFECTS));
    return causes;
  },
};
