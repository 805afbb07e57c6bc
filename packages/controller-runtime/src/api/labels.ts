// Label selectors with apimachinery's grammar, validation and error messages (pkg/labels), so that
// a selector the embedded server accepts or rejects is the one kube-apiserver accepts or rejects.
import type { LabelSelector as LabelSelectorObject } from "kubernetes-types/meta/v1.js";
import {
  type LabelOperator,
  type Requirement,
  SelectorParseError,
  newRequirement,
} from "./label-requirement.js";
import { parseRequirements } from "./label-parser.js";
import type { DeepReadonly } from "./deep-readonly.js";

// Re-exported so that importers of this file find the whole selector surface here.
export type { LabelOperator, Requirement } from "./label-requirement.js";
export {
  SelectorParseError,
  labelValueErrors,
  newRequirement,
  qualifiedNameErrors,
} from "./label-requirement.js";

export interface LabelSelector {
  /** True when the selector restricts nothing (it matches every object). */
  readonly empty: boolean;
  /** Sorted by key, as apimachinery does, so `toString()` is deterministic. */
  readonly requirements: readonly Requirement[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The value `label` must have (`=`, `==`, or `in` with one value), if the selector pins it. */
  requiresExactMatch(label: string): string | undefined;
  /** The canonical text form, parseable by `parseLabelSelector`. */
  toString(): string;
}

function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case "in":
    case "=":
    case "==":
      return has && r.values.includes(labels[r.key]);
    case "notin":
    case "!=":
      return !has || !r.values.includes(labels[r.key]);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has || r.values.length !== 1 || !/^[+-]?\d+$/.test(labels[r.key])) return false;
      const have = BigInt(labels[r.key]);
      const want = BigInt(r.values[0]);
      return r.operator === "gt" ? have > want : have < want;
    }
  }
}

function requirementString(r: Requirement): string {
  const values = r.values.join(",");
  switch (r.operator) {
    case "exists":
      return r.key;
    case "!":
      return `!${r.key}`;
    case "in":
    case "notin":
      return `${r.key} ${r.operator} (${values})`;
    case "gt":
      return `${r.key}>${values}`;
    case "lt":
      return `${r.key}<${values}`;
    default:
      return `${r.key}${r.operator}${values}`;
  }
}

const EMPTY_LABELS: Readonly<Record<string, string>> = Object.freeze({});

class RequirementsSelector implements LabelSelector {
  readonly empty: boolean;
  readonly requirements: readonly Requirement[];
  constructor(requirements: Requirement[]) {
    // A stable sort by key, as apimachinery's parse and Add do.
    this.requirements = requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.empty = requirements.length === 0;
  }
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const l = labels ?? EMPTY_LABELS;
    for (const r of this.requirements) if (!requirementMatches(r, l)) return false;
    return true;
  }
  requiresExactMatch(label: string): string | undefined {
    const r = this.requirements.find((x) => x.key === label);
    if (r === undefined || r.values.length !== 1) return undefined;
    return r.operator === "=" || r.operator === "==" || r.operator === "in" ? r.values[0] : undefined;
  }
  toString(): string {
    return this.requirements.map(requirementString).join(",");
  }
}

/** A selector from its requirements (validated by `newRequirement`). */
export function labelSelectorFromRequirements(requirements: readonly Requirement[]): LabelSelector {
  return new RequirementsSelector([...requirements]);
}

/** The selector that matches every object. */
export function everythingLabelSelector(): LabelSelector {
  return new RequirementsSelector([]);
}

/** Parses a selector as `labels.Parse` does; "" selects everything. Throws `SelectorParseError`. */
export function parseLabelSelector(text: string): LabelSelector {
  if (text === "") return new RequirementsSelector([]);
  return new RequirementsSelector(parseRequirements(text));
}

/** `metav1.LabelSelectorAsSelector`, except that `undefined` selects everything. */
export function labelSelectorFromObject(sel: DeepReadonly<LabelSelectorObject> | undefined): LabelSelector {
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) reqs.push(newRequirement(k, "=", [v]));
  for (const expr of sel?.matchExpressions ?? []) {
    const op = EXPRESSION_OPERATORS[expr.operator];
    if (op === undefined) {
      throw new SelectorParseError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    }
    reqs.push(newRequirement(expr.key, op, expr.values ?? []));
  }
  return new RequirementsSelector(reqs);
}

const EXPRESSION_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: "in",
  NotIn: "notin",
  Exists: "exists",
  DoesNotExist: "!",
};

/** `labels.SelectorFromSet`: every label must equal its value. Not validated, as in Go. */
export function labelSelectorFromSet(labels: Readonly<Record<string, string>>): LabelSelector {
  return new RequirementsSelector(
    Object.entries(labels).map(([key, v]) => ({ key, operator: "=", values: [v] })),
  );
}
