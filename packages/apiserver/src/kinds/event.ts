// Events as kube's ValidateEventCreate and ValidateEventUpdate check them, on the core form
// (an Event written through events.k8s.io/v1 is checked under core's field names, as kube checks
// its internal type). Every Event passes the legacy rules: without an eventTime it is tied to
// its object's namespace ("default" for old clients); with one it names its reporting controller,
// instance, action and reason within kube's limits. Through events.k8s.io/v1 it is also checked
// strictly: an eventTime, a known type, no deprecated fields, a valid series; on update only the
// series may change.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { qualifiedNameErrors } from "controller-runtime/api";
import { asCoreEvent } from "../conversion/builtin.js";
import { deepEqual } from "../object/meta.js";
import { dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

const str = (v: unknown) => (typeof v === "string" ? v : "");
const set = (v: unknown) => v !== undefined && v !== null && v !== "";

/** legacyValidateEvent, on the core form; `strict` names the field as events.k8s.io/v1 does. */
function legacyCauses(e: Obj, strict: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const namespace = str((e.metadata as Obj | undefined)?.namespace);
  const involvedNamespace = str((e.involvedObject as Obj | undefined)?.namespace);
  const mismatch = () =>
    causes.push(
      cause.invalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"),
    );
  if (!set(e.eventTime)) {
    if (
      involvedNamespace === "" ? namespace !== "" && namespace !== "default" : namespace !== involvedNamespace
    ) {
      mismatch();
    }
  } else {
    if (involvedNamespace === "" && namespace !== "default" && namespace !== "kube-system") mismatch();
    const controllerField = strict ? "reportingController" : "reportingComponent";
    const controller = str(e.reportingComponent);
    if (controller === "") causes.push(cause.required(controllerField));
    for (const msg of qualifiedNameErrors(controller))
      causes.push(cause.invalid(controllerField, controller, msg));
    const instance = str(e.reportingInstance);
    if (instance === "") causes.push(cause.required("reportingInstance"));
    if (instance.length > REPORTING_INSTANCE_LIMIT) {
      causes.push(
        cause.invalid("reportingInstance", "", `can have at most ${REPORTING_INSTANCE_LIMIT} characters`),
      );
    }
    const action = str(e.action);
    if (action === "") causes.push(cause.required("action"));
    if (action.length > ACTION_LIMIT)
      causes.push(cause.invalid("action", "", `can have at most ${ACTION_LIMIT} characters`));
    const reason = str(e.reason);
    if (reason === "") causes.push(cause.required("reason"));
    if (reason.length > REASON_LIMIT)
      causes.push(cause.invalid("reason", "", `can have at most ${REASON_LIMIT} characters`));
    if (str(e.message).length > NOTE_LIMIT) {
      causes.push(cause.invalid("message", "", `can have at most ${NOTE_LIMIT} characters`));
    }
  }
  for (const msg of dns1123SubdomainErrors(namespace))
    causes.push(cause.invalid("namespace", namespace, msg));
  return causes;
}

function seriesCauses(e: Obj): StatusCause[] {
  const series = e.series as Obj | undefined | null;
  if (!series) return [];
  const causes: StatusCause[] = [];
  if (!(typeof series.count === "number" && series.count >= 2)) {
    causes.push(cause.invalid("series.count", "", "should be at least 2"));
  }
  if (!set(series.lastObservedTime)) causes.push(cause.required("series.lastObservedTime"));
  return causes;
}

/** ValidateEventCreate's strict part (events.k8s.io/v1 and newer). */
function strictCreateCauses(e: Obj): StatusCause[] {
  const causes = seriesCauses(e);
  if (!set(e.eventTime)) causes.push(cause.required("eventTime"));
  if (e.type !== "Normal" && e.type !== "Warning") {
    causes.push(cause.invalid("type", "", `has invalid value: ${str(e.type)}`));
  }
  if (set(e.firstTimestamp)) causes.push(cause.invalid("firstTimestamp", "", "needs to be unset"));
  if (set(e.lastTimestamp)) causes.push(cause.invalid("lastTimestamp", "", "needs to be unset"));
  if (typeof e.count === "number" && e.count !== 0)
    causes.push(cause.invalid("count", "", "needs to be unset"));
  const source = (e.source ?? {}) as Obj;
  if (set(source.component) || set(source.host))
    causes.push(cause.invalid("source", "", "needs to be unset"));
  return causes;
}

/** Semantic equality, as Go compares the decoded fields (an object's key order is no change). */
const same = (a: unknown, b: unknown) => deepEqual(a ?? null, b ?? null);
/** Microseconds of an eventTime: kube tolerates changes below them. */
const micros = (v: unknown) => (typeof v === "string" ? v.replace(/(\.\d{6})\d*/, "$1") : v);

/** ValidateEventUpdate's strict part: only the series (and metadata) may change. */
function strictUpdateCauses(e: Obj, old: Obj): StatusCause[] {
  const causes = same(e.series, old.series) ? [] : seriesCauses(e);
  const immutable = (field: string, changed: boolean) => {
    if (changed) causes.push(cause.invalid(field, e[field] ?? "", "field is immutable"));
  };
  for (const f of [
    "involvedObject",
    "reason",
    "message",
    "source",
    "firstTimestamp",
    "lastTimestamp",
    "count",
  ]) {
    immutable(f, !same(e[f], old[f]));
  }
  immutable("reason", !same(e.reason, old.reason));
  immutable("type", !same(e.type, old.type));
  immutable("eventTime", !same(micros(e.eventTime), micros(old.eventTime)));
  immutable("action", !same(e.action, old.action));
  immutable("related", !same(e.related, old.related));
  if (!same(e.reportingComponent, old.reportingComponent)) {
    causes.push(cause.invalid("reportingController", e.reportingComponent ?? "", "field is immutable"));
  }
  immutable("reportingInstance", !same(e.reportingInstance, old.reportingInstance));
  return causes;
}

export const eventBehaviour: KindBehaviour = {
  validate(obj) {
    return legacyCauses(obj, false);
  },
};

export const eventsV1Behaviour: KindBehaviour = {
  validate(obj, old) {
    const e = asCoreEvent(obj);
    const causes = legacyCauses(e, true);
    // events.k8s.io validates the name as an object name (NameIsDNSSubdomain); core v1 does not.
    const name = String((obj.metadata as Obj | undefined)?.name ?? "");
    if (old === undefined && name !== "")
      for (const msg of dns1123SubdomainErrors(name)) causes.push(cause.invalid("metadata.name", name, msg));
    if (old === undefined) causes.push(...strictCreateCauses(e));
    else causes.push(...strictUpdateCauses(e, asCoreEvent(old)));
    return causes;
  },
};
