// The quantity library against the examples of kube's own documentation (library/quantity.go)
// and resource.ParseQuantity's grammar, errors and rounding.
import assert from "node:assert/strict";
import { test } from "node:test";
import { celEnv, isCelError, parse, plan } from "@bufbuild/cel";
import { kubernetesLibraries } from "./kubernetes-libs.js";
import { parseQuantity } from "../object/quantity.js";

const env = celEnv({ funcs: kubernetesLibraries });
const evaluate = (expr: string) => (plan(env, parse(expr)) as (ctx: object) => unknown)({});

test("kube's documented examples hold", () => {
  for (const expr of [
    "quantity('50000000G').isInteger()",
    "!quantity('9999999999999999999999999999999999999G').isInteger()",
    "quantity('50k').asInteger() == 50000",
    "quantity('50k').sub(20000).asApproximateFloat() == 30000.0",
    "quantity('50k').add(quantity('20k')) == quantity('70k')",
    "quantity('50k').add(20) == quantity('50020')",
    "quantity('50k').sub(20000) == quantity('30k')",
    "quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')",
    "quantity('200M').compareTo(quantity('0.2G')) == 0",
    "quantity('50M').compareTo(quantity('50Mi')) == -1",
    "quantity('50Mi').compareTo(quantity('50M')) == 1",
    "quantity('150Mi').isGreaterThan(quantity('100Mi'))",
    "!quantity('50Mi').isGreaterThan(quantity('100Mi'))",
    "quantity('50M').isLessThan(quantity('100M'))",
    "isQuantity('1.3G') && isQuantity('1.3Gi') && isQuantity('10000k')",
    "!isQuantity('1,3G') && !isQuantity('200K') && !isQuantity('Three')",
    // kube's documentation says 'Mi' is no quantity; its ParseQuantity (which isQuantity calls)
    // reads a bare suffix as zero, and so does kube-apiserver.
    "isQuantity('Mi') && quantity('Mi') == quantity('0') && isQuantity('.') && isQuantity('k')",
    "quantity('1Gi') == quantity('1073741824')",
    "sign(quantity('-1.5m')) == -1 && sign(quantity('0')) == 0",
  ]) {
    assert.equal(evaluate(expr), true, expr);
  }
});

test("ParseQuantity's errors, rounding to the nano and the BinarySI cap", () => {
  const err = (expr: string) => {
    const r = evaluate(expr);
    assert.ok(isCelError(r), `${expr} fails`);
    return r.message;
  };
  assert.equal(err("quantity('200K')"), "unable to parse quantity's suffix");
  assert.match(err("quantity('Three')"), /^quantities must match the regular expression/);
  assert.equal(err("quantity('1.5').asInteger()"), "cannot convert value to integer");
  assert.deepEqual(parseQuantity("0.1n"), { n: 1n, scale: -9 }, "non-zero values round up to 1n");
  assert.deepEqual(parseQuantity("-0.1n"), { n: -1n, scale: -9 }, "away from zero");
  assert.deepEqual(parseQuantity("1.5e3"), { n: 15n, scale: 2 });
  assert.deepEqual(parseQuantity("1E"), { n: 1n, scale: 18 }, "E alone is exa");
  assert.deepEqual(parseQuantity("8Ei"), { n: (1n << 63n) - 1n, scale: 0 }, "BinarySI is capped at 2^63-1");
  assert.deepEqual(parseQuantity("000"), { n: 0n, scale: 0 });
  for (const bad of ["", "1.2.3", "1 k", "1,3G", "1Mii"]) assert.throws(() => parseQuantity(bad), bad);
});

test("exponents to ±2^31 are compared at once and never built out; sums too far apart are an error", () => {
  const t0 = performance.now();
  for (const expr of [
    "quantity('1e200000000').isGreaterThan(quantity('1'))",
    "quantity('1e-200000000').compareTo(quantity('1n')) == 0", // rounded up to the nano
    "quantity('-1e200000000').isLessThan(quantity('-1'))",
    "quantity('1e200000000').compareTo(quantity('1e200000000')) == 0",
    "quantity('12e200000000').compareTo(quantity('1.2e200000001')) == 0",
    "!quantity('1e200000000').isInteger()",
  ]) {
    assert.equal(evaluate(expr), true, expr);
  }
  const sum = evaluate("quantity('1e200000000').add(quantity('1'))");
  assert.ok(isCelError(sum), String(sum));
  assert.ok(performance.now() - t0 < 2000, `${performance.now() - t0} ms`);
});
