// The strings extension as cel-go's version 2 answers: code points, Go's Replace and SplitN,
// TrimSpace, and cel-go's errors.
import assert from "node:assert/strict";
import { test } from "node:test";
import { celEnv, isCelError, parse, plan } from "@bufbuild/cel";
import { stringsLibrary } from "./strings-ext.js";

const env = celEnv({ funcs: stringsLibrary });
const evaluate = (expr: string) => (plan(env, parse(expr)) as (ctx: object) => unknown)({});

test("cel-go's documented examples and Go's edge cases hold", () => {
  for (const expr of [
    "'hello'.charAt(4) == 'o' && 'hello'.charAt(5) == ''",
    "'hello mellow'.indexOf('') == 0 && 'hello mellow'.indexOf('ello') == 1 && 'hello mellow'.indexOf('jello') == -1",
    "'hello mellow'.indexOf('', 2) == 2 && 'hello mellow'.indexOf('ello', 2) == 7 && 'hello mellow'.indexOf('ello', 20) == -1",
    "'hello mellow'.lastIndexOf('') == 12 && 'hello mellow'.lastIndexOf('ello') == 7 && 'hello mellow'.lastIndexOf('ello', 6) == 1",
    "'TacoCat'.lowerAscii() == 'tacocat' && 'TacoCÆt Xii'.lowerAscii() == 'tacocÆt xii' && 'tacoCat'.upperAscii() == 'TACOCAT'",
    "'hello hello'.replace('he', 'we') == 'wello wello' && 'hello hello'.replace('he', 'we', -1) == 'wello wello'",
    "'hello hello'.replace('he', 'we', 1) == 'wello hello' && 'hello hello'.replace('he', 'we', 0) == 'hello hello'",
    "'a1'.replace('', 'xx') == 'xxaxx1xx' && 'ab'.replace('', '-', 2) == '-a-b'",
    "'hello hello hello'.split(' ') == ['hello', 'hello', 'hello'] && 'hello hello hello'.split(' ', 0) == []",
    "'hello hello hello'.split(' ', 1) == ['hello hello hello'] && 'hello hello hello'.split(' ', 2) == ['hello', 'hello hello']",
    "'hello hello hello'.split(' ', -1) == ['hello', 'hello', 'hello'] && 'abc'.split('') == ['a', 'b', 'c'] && 'abc'.split('', 2) == ['a', 'bc']",
    "'tacocat'.substring(4) == 'cat' && 'tacocat'.substring(0, 4) == 'taco'",
    "'  \\ttrim\\n    '.trim() == 'trim' && '\\u0085a\\u00a0'.trim() == 'a' && '\\ufeffa'.trim() == '\\ufeffa'",
    // Code points, not UTF-16 units.
    "'😀x'.charAt(1) == 'x' && '😀x'.substring(1) == 'x' && '😀x'.indexOf('x') == 1 && '😀x😀'.lastIndexOf('😀') == 2",
    "'a😀b'.split('') == ['a', '😀', 'b'] && '😀'.replace('', '-') == '-😀-'",
    "['a', 'b'].join() == 'ab' && ['a', 'b'].join(', ') == 'a, b'",
  ]) {
    assert.equal(evaluate(expr), true, expr);
  }
});

test("out of range is cel-go's error", () => {
  const cases: [string, string][] = [
    ["'a'.substring(1, 3)", "index out of range: 3"],
    ["'abc'.substring(-1)", "index out of range: -1"],
    ["'abc'.substring(2, 1)", "invalid substring range. start: 2, end: 1"],
    ["'abc'.charAt(4)", "index out of range: 4"],
    ["'abc'.indexOf('a', -1)", "index out of range: -1"],
  ];
  for (const [expr, message] of cases) {
    const result = evaluate(expr);
    assert.ok(isCelError(result), expr);
    assert.equal((result as Error).message, message, expr);
  }
});
