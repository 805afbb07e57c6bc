// Kubernetes' CEL libraries (k8s.io/apiserver/pkg/cel/library) on @bufbuild/cel: lists
// (isSorted, sum, min, max, indexOf, lastIndexOf) and regex (find, findAll), as kube-apiserver
// offers them to CRD validation rules. Errors are CEL errors, worded as kube's.
import { type CelFunc, type CelList, type CelValue, celError, celMethod, listType } from "@bufbuild/cel";
import { CelScalar } from "@bufbuild/cel";
import { RE2JS } from "re2js";

const DYN = CelScalar.DYN;
const LIST = listType(DYN);

function items(list: CelList): CelValue[] {
  return [...list];
}

/** CEL's ordering of two values of one comparable type (ints, uints, doubles, strings, bools). */
function compare(a: CelValue, b: CelValue): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  throw new Error(`no such overload: ${typeof a} ${typeof b}`);
}

const same = (a: CelValue, b: CelValue) => {
  try {
    return compare(a, b) === 0;
  } catch {
    return a === b;
  }
};

function extreme(list: CelList, name: string, pick: (c: number) => boolean): CelValue {
  const xs = items(list);
  if (xs.length === 0) throw celError(`${name} called on empty list`);
  return xs.reduce((best, x) => (pick(compare(x, best)) ? x : best));
}

const lists: CelFunc[] = [
  celMethod("isSorted", LIST, [], CelScalar.BOOL, function (this: CelList) {
    const xs = items(this);
    for (let i = 1; i < xs.length; i++) if (compare(xs[i - 1], xs[i]) > 0) return false;
    return true;
  }),
  celMethod("sum", LIST, [], DYN, function (this: CelList) {
    const xs = items(this);
    if (xs.length === 0) return 0n;
    return xs.reduce((a, b) => {
      if (typeof a === "bigint" && typeof b === "bigint") return a + b;
      if (typeof a === "number" && typeof b === "number") return a + b;
      throw new Error("no such overload: sum");
    });
  }),
  celMethod("min", LIST, [], DYN, function (this: CelList) {
    return extreme(this, "min", (c) => c < 0);
  }),
  celMethod("max", LIST, [], DYN, function (this: CelList) {
    return extreme(this, "max", (c) => c > 0);
  }),
  celMethod("indexOf", LIST, [DYN], CelScalar.INT, function (this: CelList, x: CelValue) {
    return BigInt(items(this).findIndex((y) => same(x, y)));
  }),
  celMethod("lastIndexOf", LIST, [DYN], CelScalar.INT, function (this: CelList, x: CelValue) {
    const xs = items(this);
    for (let i = xs.length - 1; i >= 0; i--) if (same(x, xs[i])) return BigInt(i);
    return -1n;
  }),
];

/** Patterns compiled once: rules run on every write. */
const patterns = new Map<string, RE2JS>();
function re2(pattern: string): RE2JS {
  let p = patterns.get(pattern);
  if (!p) {
    p = RE2JS.compile(pattern);
    if (patterns.size > 1000) patterns.clear();
    patterns.set(pattern, p);
  }
  return p;
}

function findAll(s: string, pattern: string, limit: number): string[] {
  const out: string[] = [];
  if (limit === 0) return out;
  const m = re2(pattern).matcher(s);
  while (m.find()) {
    out.push(m.group() ?? "");
    if (limit > 0 && out.length >= limit) break;
  }
  return out;
}

const regex: CelFunc[] = [
  celMethod(
    "find",
    CelScalar.STRING,
    [CelScalar.STRING],
    CelScalar.STRING,
    function (this: string, pattern: string) {
      return findAll(this, pattern, 1)[0] ?? "";
    },
  ),
  celMethod(
    "findAll",
    CelScalar.STRING,
    [CelScalar.STRING],
    listType(CelScalar.STRING),
    function (this: string, pattern: string) {
      return findAll(this, pattern, -1);
    },
  ),
  celMethod(
    "findAll",
    CelScalar.STRING,
    [CelScalar.STRING, CelScalar.INT],
    listType(CelScalar.STRING),
    function (this: string, pattern: string, limit: bigint) {
      return findAll(this, pattern, Number(limit));
    },
  ),
];

/** Every Kubernetes library the rules of a CRD may call. */
export const kubernetesLibraries: CelFunc[] = [...lists, ...regex];
