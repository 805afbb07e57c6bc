// Two-variable comprehensions: expanded as cel-go's macros are, run through @bufbuild/cel after
// lowering, plain and metered, on the examples of cel-go's documentation (ext/comprehensions.go).
import assert from "node:assert/strict";
import { test } from "node:test";
import { celEnv, isCelError, plan } from "@bufbuild/cel";
import { kubernetesLibraries } from "./kubernetes-libs.js";
import { parseCel } from "./optional-syntax.js";
import { planMetered, runMetered } from "./runtime-cost.js";
import { lowerTwoVar } from "./two-var.js";

const env = celEnv({ funcs: kubernetesLibraries });
const plain = (expr: string) => {
  const parsed = parseCel(expr);
  return (plan(env, { ...parsed, expr: lowerTwoVar(parsed.expr) }) as (ctx: object) => unknown)({});
};
const metered = (expr: string) => runMetered(planMetered(env, parseCel(expr)), {}, 1_000_000).result;

const EXAMPLES = [
  "[1, 2, 3].all(i, j, i < j)",
  "{'hello': 'world', 'taco': 'taco'}.all(k, v, k != v) == false",
  "{'h': ['hello', 'hi'], 'j': ['joke', 'jog']}.all(k, vals, vals.all(v, v.startsWith(k)))",
  "{'greeting': 'hello', 'farewell': 'goodbye'}.exists(k, v, k.startsWith('good') || v.endsWith('bye'))",
  "[1, 2, 4, 8, 16].exists(i, v, v == 1024 && i == 10) == false",
  "[1, 2, 1, 3, 1, 4].existsOne(i, v, i == 1 || v == 1) == false",
  "[1, 1, 2, 2, 3, 3].existsOne(i, v, i == 2 && v == 2)",
  "{'i': 0, 'j': 1, 'k': 2}.exists_one(i, v, i == 'l' || v == 1)",
  "[1, 2, 3].transformList(indexVar, valueVar, (indexVar * valueVar) + valueVar) == [1, 4, 9]",
  "[1, 2, 3].transformList(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar) == [1, 9]",
  "{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(k, _, k).size() == 2",
  "[1, 2, 3].transformMap(indexVar, valueVar, (indexVar * valueVar) + valueVar) == {0: 1, 1: 4, 2: 9}",
  "[1, 2, 3].transformMap(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar) == {0: 1, 2: 9}",
  "{'greeting': 'hello'}.transformMap(k, v, v + '!') == {'greeting': 'hello!'}",
  "{'greeting': 'hello', 'farewell': 'goodbye'}.transformMapEntry(k, v, {v: k}) == {'hello': 'greeting', 'goodbye': 'farewell'}",
  "[1, 2, 3].transformMapEntry(i, v, i % 2 == 0, {v: i}) == {1: 0, 3: 2}",
  // A variable bound again inside is the inner one's; the outer pair stays readable beside it.
  "[10, 20].all(i, v, [1].all(i, w, i == 0 && w == 1) && v >= 10)",
  "{'a': [1]}.all(k, v, v.all(x, k == 'a' && x == 1))",
];

test("cel-go's documented examples hold, plain and metered", () => {
  for (const expr of EXAMPLES) {
    assert.equal(plain(expr), true, expr);
    assert.equal(metered(expr), true, expr);
  }
});

test("transformMapEntry refuses a key twice in cel-go's words", () => {
  const result = plain("{'a': 'x', 'b': 'x'}.transformMapEntry(k, v, {v: k})");
  assert.ok(isCelError(result));
  assert.equal((result as Error).message, "insert failed: key x already exists");
});

test("a call that is no macro (a variable that is no name, too many arguments) stays a call", () => {
  const parsed = parseCel("[1].all(1, v, true)");
  assert.equal(parsed.expr.exprKind.case, "callExpr");
  assert.equal(parseCel("[1].all(i, v, w, true)").expr.exprKind.case, "callExpr");
});
