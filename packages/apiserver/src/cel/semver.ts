// Kubernetes' CEL semver library (k8s.io/apiserver/pkg/cel/library/semverlib.go, kube 1.33+,
// version 1): semver() and isSemver(), each with an optional `normalize` flag, and a Semver's
// major, minor, patch and ordering, with github.com/blang/semver/v4's grammar and its errors.
// A Semver travels as a tagged value (tagged.ts) of its text without build metadata: kube's
// Semver.Equal compares versions as semver orders them, and build metadata has no order.
import { type CelFunc, type CelMap, CelScalar, celError, celFunc, celMethod, mapType } from "@bufbuild/cel";
import { tagged, untag } from "./tagged.js";

const KEY = "\u0000k8s.io/semver";
const MAP = mapType(CelScalar.STRING, CelScalar.STRING); // a tagged value (tagged.ts)

interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  /** Prerelease identifiers: numbers (bigint) or text. */
  pre: (bigint | string)[];
}

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const MAX_UINT64 = 2n ** 64n - 1n;

/** Go's strconv.ParseUint(s, 10, 64), with its errors. */
function parseUint(s: string): bigint {
  if (s === "") throw new Error('strconv.ParseUint: parsing "": invalid syntax');
  const n = BigInt(s);
  if (n > MAX_UINT64) throw new Error(`strconv.ParseUint: parsing "${s}": value out of range`);
  return n;
}

/** blang/semver's Parse: MAJOR.MINOR.PATCH[-pre][+build], strictly. */
function parse(s: string): Version {
  if (s.length === 0) throw new Error("Version string empty");
  const parts = splitN(s, ".", 3);
  if (parts.length !== 3) throw new Error("No Major.Minor.Patch elements found");
  const number = (text: string, what: string): bigint => {
    if (!NUMBERS.test(text)) throw new Error(`Invalid character(s) found in ${what} number ${quote(text)}`);
    if (text.length > 1 && text[0] === "0") {
      throw new Error(
        `${what[0]!.toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${quote(text)}`,
      );
    }
    return parseUint(text);
  };
  const major = number(parts[0]!, "major");
  const minor = number(parts[1]!, "minor");
  let patchText = parts[2]!;
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patchText.indexOf("+");
  if (plus >= 0) {
    build = patchText.slice(plus + 1).split(".");
    patchText = patchText.slice(0, plus);
  }
  const dash = patchText.indexOf("-");
  if (dash >= 0) {
    prerelease = patchText.slice(dash + 1).split(".");
    patchText = patchText.slice(0, dash);
  }
  const patch = number(patchText, "patch");
  const pre = prerelease.map((p): bigint | string => {
    if (p.length === 0) throw new Error("Prerelease is empty");
    if (NUMBERS.test(p)) {
      if (p.length > 1 && p[0] === "0") {
        throw new Error(`Numeric PreRelease version must not contain leading zeroes ${quote(p)}`);
      }
      return parseUint(p);
    }
    if (ALPHANUM.test(p)) return p;
    throw new Error(`Invalid character(s) found in prerelease ${quote(p)}`);
  });
  for (const b of build) {
    if (b.length === 0) throw new Error("Build meta data is empty");
    if (!ALPHANUM.test(b)) throw new Error(`Invalid character(s) found in build meta data ${quote(b)}`);
  }
  return { major, minor, patch, pre };
}

/** kube's normalizeAndParse: a leading v, leading zeroes and missing minor or patch forgiven. */
function normalizeAndParse(s: string): Version {
  if (s.startsWith("v")) s = s.slice(1);
  const parts = splitN(s, ".", 3).map((p) => {
    if (p.length <= 1) return p;
    const trimmed = p.replace(/^0+/, "");
    return trimmed.length === 0 || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) {
      throw new Error("short version cannot contain PreRelease/Build meta data");
    }
    while (parts.length < 3) parts.push("0");
  }
  return parse(parts.join("."));
}

/** Go's strings.SplitN. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const at = rest.indexOf(sep);
    if (at < 0) break;
    out.push(rest.slice(0, at));
    rest = rest.slice(at + sep.length);
  }
  out.push(rest);
  return out;
}

/** Go's %q of a string, for the ASCII text these errors quote. */
const quote = (s: string) => JSON.stringify(s);

/** blang/semver's Compare. */
function compareVersions(a: Version, b: Version): number {
  for (const k of ["major", "minor", "patch"] as const) {
    if (a[k] !== b[k]) return a[k] > b[k] ? 1 : -1;
  }
  if (a.pre.length === 0 || b.pre.length === 0) {
    return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  }
  for (let i = 0; i < a.pre.length && i < b.pre.length; i++) {
    const [x, y] = [a.pre[i]!, b.pre[i]!];
    if (x === y) continue;
    if (typeof x !== typeof y) return typeof x === "bigint" ? -1 : 1;
    return x > y ? 1 : -1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

function toCel(v: Version): CelMap {
  const pre = v.pre.length > 0 ? `-${v.pre.join(".")}` : "";
  return tagged(KEY, `${v.major}.${v.minor}.${v.patch}${pre}`);
}

function fromCel(v: unknown): Version {
  return parse(untag(v, KEY));
}

/** Whether `v` is a Semver. */
export function isSemverValue(v: unknown): boolean {
  try {
    untag(v, KEY);
    return true;
  } catch {
    return false;
  }
}

/** How Semver `a` orders against Semver `b` (-1, 0, 1); no such overload when either is none. */
export function semverOrder(a: unknown, b: unknown): number {
  return compareVersions(fromCel(a), fromCel(b));
}

const read = (s: string, normalize: boolean): Version => (normalize ? normalizeAndParse(s) : parse(s));

const toSemver = (s: string, normalize: boolean): CelMap => {
  try {
    return toCel(read(s, normalize));
  } catch (e) {
    throw celError((e as Error).message);
  }
};

const isSemver = (s: string, normalize: boolean): boolean => {
  try {
    read(s, normalize);
    return true;
  } catch {
    return false;
  }
};

/** semver, isSemver, major, minor, patch; the ordering methods are ordering.ts's (shared with Quantity). */
export const semverLibrary: CelFunc[] = [
  celFunc("semver", [CelScalar.STRING], MAP, (s: string) => toSemver(s, false)),
  celFunc("semver", [CelScalar.STRING, CelScalar.BOOL], MAP, toSemver),
  celFunc("isSemver", [CelScalar.STRING], CelScalar.BOOL, (s: string) => isSemver(s, false)),
  celFunc("isSemver", [CelScalar.STRING, CelScalar.BOOL], CelScalar.BOOL, isSemver),
  celMethod("major", MAP, [], CelScalar.INT, function (this: CelMap) {
    return fromCel(this).major;
  }),
  celMethod("minor", MAP, [], CelScalar.INT, function (this: CelMap) {
    return fromCel(this).minor;
  }),
  celMethod("patch", MAP, [], CelScalar.INT, function (this: CelMap) {
    return fromCel(this).patch;
  }),
];
