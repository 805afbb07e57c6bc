// A Job's status as kube's job status strategy checks it (ValidateJobStatusUpdate, with the
// options JobManagedBy turns on in 1.37): counts not negative, ready not past active, uncounted
// pods named once, and the finish rules (Complete needs SuccessCriteriaMet and a completionTime
// at or after startTime; Failed needs FailureTarget; a finished Job has no active, terminating
// or uncounted pods; a terminal condition stays). Most rules apply only when a field they read
// changes: a controller may leave a status a later spec change made inconsistent.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";

type Condition = { type?: unknown; status?: unknown };

const conditionsOf = (status: Obj): Condition[] =>
  Array.isArray(status.conditions) ? (status.conditions as (Condition | null)[]).map((c) => c ?? {}) : [];
const isTrue = (status: Obj, type: string) =>
  conditionsOf(status).some((c) => c.type === type && c.status === "True");
const isFalse = (status: Obj, type: string) =>
  conditionsOf(status).some((c) => c.type === type && c.status === "False");
const finished = (s: Obj) => isTrue(s, "Complete") || isTrue(s, "Failed");
const num = (s: Obj, k: string) => (typeof s[k] === "number" ? (s[k] as number) : 0);
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
/** A time as Go compares it: to the second, as metav1.Time keeps it. */
const seconds = (t: unknown) => (typeof t === "string" ? Math.floor(Date.parse(t) / 1000) : Number.NaN);

const NOT_NEGATIVE = "must be greater than or equal to 0";

/** validateIndexesFormat: an error, or undefined for a valid list of intervals below completions. */
function indexesError(text: string, completions: number): string | undefined {
  if (text === "") return undefined;
  let last: number | undefined;
  for (const interval of text.split(",")) {
    const parts = interval.split("-");
    if (parts.length > 2)
      return `the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`;
    const bounds: number[] = [];
    for (const p of parts) {
      if (!/^[+-]?\d+$/.test(p)) return `cannot convert string to integer for index: ${JSON.stringify(p)}`;
      if (Number(p) >= completions) return `too large index: ${JSON.stringify(p)}`;
      bounds.push(Number(p));
    }
    const [x, y = x] = bounds;
    if (parts.length > 1 && x >= y) return `non-increasing order, previous: ${x}, current: ${y}`;
    if (last !== undefined && last >= x) return `non-increasing order, previous: ${last}, current: ${x}`;
    last = y;
  }
  return undefined;
}

/** ValidateJobUpdateStatus's status part, for `obj` written through /status over `old`. */
export function jobStatusCauses(obj: Obj, old: Readonly<Obj>): StatusCause[] {
  const causes: StatusCause[] = [];
  const s = (obj.status ?? {}) as Obj;
  const o = (old.status ?? {}) as Obj;
  const spec = (obj.spec ?? {}) as Obj;
  const invalid = (field: string, value: unknown, detail: string) =>
    causes.push(cause.invalid(`status.${field}`, value, detail));
  const conditions = (detail: string) =>
    causes.push({ ...cause.invalid("status.conditions", "", detail), message: `Invalid value: ${detail}` });

  const changed = {
    finished: finished(o) !== finished(s),
    complete: isTrue(o, "Complete") !== isTrue(s, "Complete"),
    failed: isTrue(o, "Failed") !== isTrue(s, "Failed"),
    failureTarget: isTrue(o, "FailureTarget") !== isTrue(s, "FailureTarget"),
    successCriteriaMet: isTrue(o, "SuccessCriteriaMet") !== isTrue(s, "SuccessCriteriaMet"),
    completedIndexes: (o.completedIndexes ?? "") !== (s.completedIndexes ?? ""),
    failedIndexes: !same(o.failedIndexes, s.failedIndexes),
    active: num(o, "active") !== num(s, "active"),
    startTime: !same(o.startTime, s.startTime),
    completionTime: !same(o.completionTime, s.completionTime),
    uncounted: !same(o.uncountedTerminatedPods, s.uncountedTerminatedPods),
    ready: !same(o.ready, s.ready),
    terminating: !same(o.terminating, s.terminating),
  };
  const indexed = spec.completionMode === "Indexed";
  const completions = typeof spec.completions === "number" ? spec.completions : undefined;
  const suspendedWithZeroCompletions = spec.suspend === true && completions === 0;
  const resuming = isTrue(o, "Suspended") && isFalse(s, "Suspended");

  // validateJobStatus
  for (const k of ["active", "succeeded", "failed", "ready", "terminating"])
    if (typeof s[k] === "number" && (s[k] as number) < 0) invalid(k, s[k], NOT_NEGATIVE);
  const uncounted = s.uncountedTerminatedPods as Obj | undefined;
  if (uncounted && typeof uncounted === "object") {
    const seen = new Set<unknown>();
    for (const part of ["succeeded", "failed"]) {
      const uids = Array.isArray(uncounted[part]) ? (uncounted[part] as unknown[]) : [];
      uids.forEach((uid, i) => {
        const at = `status.uncountedTerminatedPods.${part}[${i}]`;
        if (uid === "" || uid === null) causes.push(cause.invalid(at, "", "must not be empty"));
        else if (seen.has(uid)) causes.push(cause.duplicate(at, uid));
        else seen.add(uid);
      });
    }
  }
  const complete = isTrue(s, "Complete");
  const failed = isTrue(s, "Failed");
  const isFinished = finished(s);
  if ((changed.complete || changed.failed) && complete && failed)
    conditions("cannot set Complete=True and Failed=true conditions");
  if ((changed.complete || changed.failureTarget) && complete && isTrue(s, "FailureTarget"))
    conditions("cannot set Complete=True and FailureTarget=true conditions");
  if ((changed.complete || changed.completionTime) && s.completionTime && !complete)
    invalid(
      "completionTime",
      s.completionTime,
      "cannot set completionTime when there is no Complete=True condition",
    );
  if ((changed.complete || changed.completionTime) && !s.completionTime && complete)
    causes.push(cause.required("status.completionTime", "completionTime is required for Complete jobs"));
  if (
    (changed.startTime || changed.completionTime) &&
    s.startTime &&
    s.completionTime &&
    seconds(s.completionTime) < seconds(s.startTime)
  )
    invalid("completionTime", s.completionTime, "must be equal to or after `startTime`");
  if ((changed.failed || changed.failedIndexes) && failed && !isTrue(s, "FailureTarget"))
    conditions("cannot set Failed=True condition without the FailureTarget=true condition");
  if ((changed.complete || changed.successCriteriaMet) && complete && !isTrue(s, "SuccessCriteriaMet"))
    conditions("cannot set Complete=True condition without the SuccessCriteriaMet=true condition");
  if ((changed.finished || changed.active) && num(s, "active") > 0 && isFinished)
    invalid("active", num(s, "active"), "active>0 is invalid for finished job");
  if ((changed.finished || changed.startTime) && !suspendedWithZeroCompletions && !s.startTime && isFinished)
    causes.push(cause.required("status.startTime", "startTime is required for finished job"));
  if ((changed.finished || changed.uncounted) && isFinished && uncounted) {
    const n = ["succeeded", "failed"].reduce(
      (sum, k) => sum + (Array.isArray(uncounted[k]) ? (uncounted[k] as unknown[]).length : 0),
      0,
    );
    if (n > 0) invalid("uncountedTerminatedPods", uncounted, "must be empty for finished job");
  }
  const completedIndexes = typeof s.completedIndexes === "string" ? s.completedIndexes : "";
  if (changed.completedIndexes && completions !== undefined) {
    const e = indexesError(completedIndexes, completions);
    if (e) invalid("completedIndexes", completedIndexes, `error parsing completedIndexes: ${e}`);
  }
  const failedIndexes = typeof s.failedIndexes === "string" ? s.failedIndexes : undefined;
  const perIndex = spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null;
  if (changed.failedIndexes && completions !== undefined && perIndex && failedIndexes !== undefined) {
    const e = indexesError(failedIndexes, completions);
    if (e) invalid("failedIndexes", failedIndexes, `error parsing failedIndexes: ${e}`);
  }
  if (changed.completedIndexes && completedIndexes !== "" && !indexed)
    invalid(
      "completedIndexes",
      completedIndexes,
      "cannot set non-empty completedIndexes when non-indexed completion mode",
    );
  if (changed.failedIndexes && !perIndex && failedIndexes !== undefined)
    invalid(
      "failedIndexes",
      failedIndexes,
      "cannot set non-null failedIndexes when backoffLimitPerIndex is null",
    );
  if ((changed.finished || changed.terminating) && num(s, "terminating") > 0 && isFinished)
    invalid("terminating", num(s, "terminating"), "terminating>0 is invalid for finished job");
  if ((changed.ready || changed.active) && typeof s.ready === "number" && s.ready > num(s, "active"))
    invalid("ready", s.ready, "cannot set more ready pods than active");
  if (isTrue(s, "SuccessCriteriaMet") && failed)
    conditions("cannot set SuccessCriteriaMet=True and Failed=true conditions");
  if (isTrue(s, "SuccessCriteriaMet") && isTrue(s, "FailureTarget"))
    conditions("cannot set SuccessCriteriaMet=True and FailureTarget=true conditions");
  if (spec.successPolicy && !isTrue(s, "SuccessCriteriaMet") && complete)
    conditions("cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True");

  // ValidateJobStatusUpdate
  for (const type of ["Failed", "Complete", "FailureTarget"])
    if (isTrue(o, type) && !isTrue(s, type)) conditions(`cannot disable the terminal ${type}=True condition`);
  if (num(s, "failed") < num(o, "failed"))
    invalid("failed", num(s, "failed"), "cannot decrease the failed counter");
  const mayDecreaseSucceeded = indexed && same(spec.completions, spec.parallelism);
  if (!mayDecreaseSucceeded && num(s, "succeeded") < num(o, "succeeded"))
    invalid("succeeded", num(s, "succeeded"), "cannot decrease the succeeded counter");
  if (s.completionTime && o.completionTime && seconds(s.completionTime) !== seconds(o.completionTime))
    invalid("completionTime", s.completionTime, "field is immutable");
  if (
    changed.startTime &&
    !resuming &&
    o.startTime &&
    seconds(o.startTime) !== seconds(s.startTime) &&
    spec.suspend !== true
  )
    invalid("startTime", s.startTime ?? null, "field is immutable for unsuspended job once set");
  if (isTrue(o, "SuccessCriteriaMet") && !isTrue(s, "SuccessCriteriaMet"))
    conditions("cannot disable the SuccessCriteriaMet=True condition");
  if (isTrue(o, "Complete") && !isTrue(o, "SuccessCriteriaMet") && isTrue(s, "SuccessCriteriaMet"))
    conditions("cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions");
  return causes;
}
