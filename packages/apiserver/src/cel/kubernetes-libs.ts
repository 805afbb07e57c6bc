// Kubernetes' CEL libraries (k8s.io/apiserver/pkg/cel/library) on @bufbuild/cel: lists
// (isSorted, sum, min, max, indexOf, lastIndexOf), regex (find, findAll), urls (url, isURL,
// getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery) and cel-go's sets
// extension (sets.contains, sets.equivalent, sets.intersects; kube 1.29+), quantities
// (quantity.ts) and IP addresses and CIDRs (net.ts; kube 1.30+), as kube-apiserver
// offers them to CRD validation rules. Errors are CEL errors, worded as kube's.
import {
  type CelFunc,
  type CelList,
  type CelValue,
  celError,
  celFunc,
  celMethod,
  listType,
} from "@bufbuild/cel";
import { CelScalar, isCelList, isCelMap, isCelUint } from "@bufbuild/cel";
import type { RE2JS } from "re2js";
import { conversionLibrary } from "./conversions.js";
import { formatLibrary } from "./format.js";
import { netLibrary } from "./net.js";
import { semverLibrary } from "./semver.js";
import { twoVarLibrary } from "./two-var.js";
import { optionalLibrary, optionalSyntaxLibrary } from "./optional.js";
import { quantityLibrary } from "./quantity.js";
import { urlLibrary } from "./url.js";
import { re2js } from "../schema/re2.js";

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
  const ta = timeOf(a);
  const tb = timeOf(b);
  if (ta && tb && ta.kind === tb.kind) {
    if (ta.seconds !== tb.seconds) return ta.seconds < tb.seconds ? -1 : 1;
    return Math.sign(ta.nanos - tb.nanos);
  }
  throw new Error("no such overload");
}

/** A timestamp's or duration's seconds and nanos (protobuf's well-known messages). */
function timeOf(v: CelValue): { kind: string; seconds: bigint; nanos: number } | undefined {
  if (v === null || typeof v !== "object") return undefined;
  // At run time @bufbuild/cel holds a message in a reflection wrapper.
  type Time = { $typeName?: string; seconds?: bigint; nanos?: number };
  const m = (v as { message?: Time }).message ?? (v as Time);
  if (m.$typeName !== "google.protobuf.Timestamp" && m.$typeName !== "google.protobuf.Duration")
    return undefined;
  return { kind: m.$typeName, seconds: m.seconds ?? 0n, nanos: m.nanos ?? 0 };
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
    p = re2js().compile(pattern);
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
  // cel-go declares `matches` as a global function too (`matches(s, re)`, its "matches"
  // overload); @bufbuild/cel has only the method, so a rule or policy in the global form would
  // find no overload at runtime and fail on every object. Gateway API's policies use it.
  celFunc("matches", [CelScalar.STRING, CelScalar.STRING], CelScalar.BOOL, (s: string, pattern: string) =>
    re2(pattern).test(s),
  ),
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

/** A number of any CEL numeric type as a JS number or bigint, for CEL's cross-type equality. */
function numeric(v: CelValue): bigint | number | undefined {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (isCelUint(v)) return v.value;
  return undefined;
}

/** CEL's equality (`==`): numbers across int, uint and double; lists and maps element by element. */
export function celEquals(a: CelValue, b: CelValue): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) {
    if (na === undefined || nb === undefined) return false;
    // biome-ignore lint/suspicious/noDoubleEquals: CEL compares 1 == 1.0 == 1u by value.
    return na == nb;
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (isCelList(a) && isCelList(b)) {
    const xs = items(a);
    const ys = items(b);
    return xs.length === ys.length && xs.every((x, i) => celEquals(x, ys[i]!));
  }
  const ta = timeOf(a);
  const tb = timeOf(b);
  if (ta || tb) return ta !== undefined && tb !== undefined && compare(a, b) === 0;
  if (isCelMap(a) && isCelMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) {
      const w = b.get(k);
      if (w === undefined || !celEquals(v, w)) return false;
    }
    return true;
  }
  return a === b;
}

const includes = (list: CelList, x: CelValue) => items(list).some((y) => celEquals(x, y));

/** cel-go's ext.Sets(): lists taken as sets, compared with CEL's equality. */
const sets: CelFunc[] = [
  celFunc("sets.contains", [LIST, LIST], CelScalar.BOOL, (list: CelList, sub: CelList) =>
    items(sub).every((x) => includes(list, x)),
  ),
  celFunc(
    "sets.equivalent",
    [LIST, LIST],
    CelScalar.BOOL,
    (a: CelList, b: CelList) =>
      items(a).every((x) => includes(b, x)) && items(b).every((x) => includes(a, x)),
  ),
  celFunc("sets.intersects", [LIST, LIST], CelScalar.BOOL, (a: CelList, b: CelList) =>
    items(a).some((x) => includes(b, x)),
  ),
];

/** Every Kubernetes library the rules of a CRD may call. */
export const kubernetesLibraries: CelFunc[] = [
  ...conversionLibrary,
  ...lists,
  ...regex,
  ...urlLibrary,
  ...sets,
  ...quantityLibrary,
  ...semverLibrary,
  ...twoVarLibrary,
  ...netLibrary,
  ...optionalLibrary,
  ...optionalSyntaxLibrary,
  ...formatLibrary,
];

/**
 * An evaluation error in cel-go's words: a missing key of a map reads "no such key: k" there, an
 * int or uint out of range (arithmetic or conversion) "integer overflow" and "unsigned integer
 * overflow", a division or modulus by zero "division by zero" and "modulus by zero".
 */
export function celErrorText(message: string): string {
  if (message.startsWith("field not found: ")) return `no such key: ${message.slice(17)}`;
  // A list's index (the strings library's own errors are cel-go's already, strings-ext.ts).
  const index = /^index (-?\d+) out of bounds \[0, -?\d+\)$/.exec(message);
  if (index) return `index out of bounds: ${index[1]}`;
  // A call no overload takes at run time (a dyn's value): cel-go names matches when what it is
  // called on is no string, and nothing else.
  if (message.startsWith("found no matching overload for ")) {
    const matches = "found no matching overload for 'matches' applied to '";
    return message.startsWith(matches) && !message.startsWith(`${matches}string.`)
      ? "no such overload: matches"
      : "no such overload";
  }
  if (message.startsWith("Failed to parse duration: ")) {
    return "type conversion error from 'string' to 'google.protobuf.Duration'";
  }
  if (message.startsWith("Failed to parse timestamp: ")) {
    return "type conversion error from 'string' to 'google.protobuf.Timestamp'";
  }
  if (message.startsWith("int overflow during ")) return "integer overflow";
  if (message.startsWith("uint overflow during ")) return "unsigned integer overflow";
  if (/^(?:int|uint) divide by zero$/.test(message)) return "division by zero";
  if (/^(?:int|uint) modulus by zero$/.test(message)) return "modulus by zero";
  return message;
}
