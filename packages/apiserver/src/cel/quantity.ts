// Kubernetes' CEL quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go, kube 1.29+):
// quantity(), isQuantity() and a Quantity's sign, comparisons, add/sub and conversions, with
// resource.ParseQuantity's grammar (object/quantity.ts). A Quantity is exact: a bigint times a power of ten.
// @bufbuild/cel has no user-defined value types, so a Quantity travels as a one-entry map whose
// key no JSON object carries and whose value is its normalized value: two quantities are `==`
// exactly when their values are, as kube's Quantity.Equal says (`quantity('1Gi') ==
// quantity('1073741824')`).
import { type CelFunc, type CelMap, CelScalar, celError, celFunc, celMethod, mapType } from "@bufbuild/cel";
import {
  type Amount,
  addAmounts,
  asInt64,
  compareAmounts as compare,
  normalize,
  parseQuantity,
} from "../object/quantity.js";
import { isSemverValue, semverOrder } from "./semver.js";
import { tagged, untag } from "./tagged.js";

const KEY = "\u0000k8s.io/quantity";
const MAP = mapType(CelScalar.STRING, CelScalar.STRING); // a tagged value (tagged.ts)

function toCel(a: Amount): CelMap {
  return tagged(KEY, `${a.n}e${a.scale}`);
}

function fromCel(v: unknown): Amount {
  const text = untag(v, KEY);
  const at = text.indexOf("e");
  return { n: BigInt(text.slice(0, at)), scale: Number(text.slice(at + 1)) };
}

const sum = (a: Amount, b: Amount, sign: 1n | -1n): CelMap => {
  try {
    return toCel(addAmounts(a, sign === 1n ? b : { n: -b.n, scale: b.scale }));
  } catch (e) {
    throw celError(e instanceof Error ? e.message : String(e));
  }
};

/** How `a` orders against `b`: two Quantities, or two Semvers. */
const order = (a: CelMap, b: CelMap): number =>
  isSemverValue(a) ? semverOrder(a, b) : compare(fromCel(a), fromCel(b));

export const quantityLibrary: CelFunc[] = [
  celFunc("quantity", [CelScalar.STRING], MAP, (s: string) => {
    try {
      return toCel(parseQuantity(s));
    } catch (e) {
      throw celError((e as Error).message);
    }
  }),
  celFunc("isQuantity", [CelScalar.STRING], CelScalar.BOOL, (s: string) => {
    try {
      parseQuantity(s);
      return true;
    } catch {
      return false;
    }
  }),
  // kube declares sign as a global function only: `sign(quantity(x))`, never `quantity(x).sign()`.
  celFunc("sign", [MAP], CelScalar.INT, (q: CelMap) => {
    const n = fromCel(q).n;
    return n > 0n ? 1n : n < 0n ? -1n : 0n;
  }),
  // A Semver's methods of the same names (semver.ts) are these: a tagged value's type is its tag.
  celMethod("isGreaterThan", MAP, [MAP], CelScalar.BOOL, function (this: CelMap, other: CelMap) {
    return order(this, other) === 1;
  }),
  celMethod("isLessThan", MAP, [MAP], CelScalar.BOOL, function (this: CelMap, other: CelMap) {
    return order(this, other) === -1;
  }),
  celMethod("compareTo", MAP, [MAP], CelScalar.INT, function (this: CelMap, other: CelMap) {
    return BigInt(order(this, other));
  }),
  celMethod("asApproximateFloat", MAP, [], CelScalar.DOUBLE, function (this: CelMap) {
    const a = fromCel(this);
    return Number(a.n) * 10 ** a.scale;
  }),
  celMethod("isInteger", MAP, [], CelScalar.BOOL, function (this: CelMap) {
    return asInt64(fromCel(this)) !== undefined;
  }),
  celMethod("asInteger", MAP, [], CelScalar.INT, function (this: CelMap) {
    const v = asInt64(fromCel(this));
    if (v === undefined) throw celError("cannot convert value to integer");
    return v;
  }),
  celMethod("add", MAP, [MAP], MAP, function (this: CelMap, other: CelMap) {
    return sum(fromCel(this), fromCel(other), 1n);
  }),
  celMethod("add", MAP, [CelScalar.INT], MAP, function (this: CelMap, other: bigint) {
    return sum(fromCel(this), normalize(other, 0), 1n);
  }),
  celMethod("sub", MAP, [MAP], MAP, function (this: CelMap, other: CelMap) {
    return sum(fromCel(this), fromCel(other), -1n);
  }),
  celMethod("sub", MAP, [CelScalar.INT], MAP, function (this: CelMap, other: bigint) {
    return sum(fromCel(this), normalize(other, 0), -1n);
  }),
];
