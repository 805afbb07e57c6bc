// The semver library against the examples of kube's own documentation (library/semverlib.go)
// and blang/semver's grammar, errors and ordering.
import assert from "node:assert/strict";
import { test } from "node:test";
import { celEnv, isCelError, parse, plan } from "@bufbuild/cel";
import { kubernetesLibraries } from "./kubernetes-libs.js";

const env = celEnv({ funcs: kubernetesLibraries });
const evaluate = (expr: string) => (plan(env, parse(expr)) as (ctx: object) => unknown)({});

test("kube's documented examples hold", () => {
  for (const expr of [
    "isSemver('1.0.0') && !isSemver('hello') && !isSemver('v1.0') && isSemver('v1.0', true)",
    "semver('v1.0.0', true) == semver('1.0.0')",
    "semver('1.0', true) == semver('1.0.0')",
    "semver('01.01.01', true) == semver('1.1.1')",
    "semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3",
    "semver('1.2.3').compareTo(semver('1.2.3')) == 0",
    "semver('1.2.3').compareTo(semver('2.0.0')) == -1",
    "semver('1.2.3').compareTo(semver('0.1.2')) == 1",
    "semver('1.2.3').isLessThan(semver('1.10.0')) && semver('2.0.0').isGreaterThan(semver('1.99.99'))",
  ]) {
    assert.equal(evaluate(expr), true, expr);
  }
});

test("prerelease versions order before their release, numbers before text; build metadata is ignored", () => {
  for (const expr of [
    "semver('1.0.0-alpha').isLessThan(semver('1.0.0'))",
    "semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))",
    "semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))",
    "semver('1.0.0-beta.2').isLessThan(semver('1.0.0-beta.11'))",
    "semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))",
    "semver('1.0.0+build.1') == semver('1.0.0+build.2')",
    "semver('1.0.0-1').isLessThan(semver('1.0.0-a'))",
  ]) {
    assert.equal(evaluate(expr), true, expr);
  }
});

test("a version blang/semver refuses fails in its words; isSemver says false", () => {
  const cases: [string, string][] = [
    ["200K", "No Major.Minor.Patch elements found"],
    ["", "Version string empty"],
    ["01.0.0", 'Major number must not contain leading zeroes "01"'],
    ["1.x.0", 'Invalid character(s) found in minor number "x"'],
    ["1.0.0-01", 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ["1.0.0-a..b", "Prerelease is empty"],
    ["1.0.0+", "Build meta data is empty"],
    ["1.0.0+a_b", 'Invalid character(s) found in build meta data "a_b"'],
    ["1..0", 'strconv.ParseUint: parsing "": invalid syntax'],
  ];
  for (const [text, message] of cases) {
    const result = evaluate(`semver('${text}')`);
    assert.ok(isCelError(result), text);
    assert.equal((result as Error).message, message, text);
    assert.equal(evaluate(`isSemver('${text}')`), false, text);
  }
  const short = evaluate("semver('1-beta', true)");
  assert.ok(isCelError(short));
  assert.equal((short as Error).message, "short version cannot contain PreRelease/Build meta data");
});

test("quantities keep their own ordering beside semvers'", () => {
  assert.equal(evaluate("quantity('1Gi').isGreaterThan(quantity('1G'))"), true);
  assert.equal(evaluate("semver('1.0.0').isGreaterThan(semver('0.9.9'))"), true);
});
