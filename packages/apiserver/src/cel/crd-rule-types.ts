// A CRD rule's type check, as kube makes it when the CRD is written (compileRule in
// apiextensions-apiserver's schema/cel/compilation.go): `self` and `oldSelf` have the type kube
// declares for the rule's schema node (an optional of it for oldSelf under optionalOldSelf);
// cel-go's checker errors are "compilation failed: ERROR: ..."; a rule must then evaluate to
// exactly a bool (dyn will not do) and a messageExpression to a string.
import type { Schema } from "../schema/schema-types.js";
import type { Expr, Parsed } from "./ast.js";
import { checkExpression } from "./checker.js";
import {
  BOOL,
  type CelType,
  isUncertain,
  optionalOf,
  STRING,
  sameType,
  schemaType,
} from "./checker-types.js";
import { parseCel } from "./optional-syntax.js";

export interface RuleNode {
  schema: Schema;
  /** The schema's root or an embedded resource: apiVersion, kind and metadata are declared. */
  root: boolean;
  optionalOldSelf: boolean;
}

/**
 * What kube says of `expression` (a rule, or a messageExpression when `message`), parsed already
 * or not; undefined when it is fine. With `types`, the type of each subexpression goes there.
 */
export function ruleTypeError(
  node: RuleNode,
  expression: string,
  message: boolean,
  parsedAlready?: Parsed,
  types?: Map<Expr, CelType>,
): string | undefined {
  let parsed: Parsed;
  try {
    parsed = parsedAlready ?? parseCel(expression);
  } catch {
    return undefined; // a syntax error is the compiler's to report
  }
  const { type, errors } = checkExpression(parsed, expression, variablesOf(node), types);
  const failed = message ? "messageExpression compilation failed: " : "compilation failed: ";
  if (errors.length > 0) return failed + errors.map((e) => `ERROR: ${e}`).join("\n");
  const want = message ? STRING : BOOL;
  if (!isUncertain(type) && !sameType(type, want)) {
    return message ? "messageExpression must evaluate to a string" : "cel expression must evaluate to a bool";
  }
  return undefined;
}

/** The type of each subexpression of `parsed`, a rule or messageExpression of `node`. */
export function ruleTypes(node: RuleNode, parsed: Parsed): Map<Expr, CelType> {
  const types = new Map<Expr, CelType>();
  checkExpression(parsed, "", variablesOf(node), types);
  return types;
}

/** `self` and `oldSelf`, of the type kube declares for the rule's node. */
function variablesOf(node: RuleNode): Map<string, CelType> {
  // kube names the node's type selfType<nanoseconds>; the figure varies, as kube's does.
  const self = schemaType(node.schema, `selfType${process.hrtime()[1]}`, node.root);
  const variables = new Map<string, CelType>();
  if (self !== undefined) {
    variables.set("self", self);
    variables.set("oldSelf", node.optionalOldSelf ? optionalOf(self) : self);
  }
  return variables;
}
