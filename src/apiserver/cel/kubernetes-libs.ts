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
  mapType,
} from "@bufbuild/cel";
import { CelScalar, isCelList, isCelMap, isCelUint } from "@bufbuild/cel";
import { RE2JS } from "re2js";
import { netLibrary } from "./net.js";
import { quantityLibrary } from "./quantity.js";

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

// The url library (urls.go): url(), isURL() and the getters, on Go's url.ParseRequestURI. A URL
// value is carried as its validated text, so the getters are string methods (a rule calling one
// on a plain string gets an answer where kube's type checker would refuse it).

interface GoURL {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  /** The path as written, when it is a valid encoding of `path`. */
  rawPath: string;
  rawQuery: string;
}

const ALPHA = /^[A-Za-z]$/;
const SCHEME_TAIL = /^[A-Za-z0-9+\-.]$/;

/** Go's url.PathUnescape-like decoding, with Go's error for a bad escape. */
function urlUnescape(s: string, plusIsSpace: boolean): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "%") {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) {
        const bad = s.slice(i, i + 3);
        throw new Error(`invalid URL escape ${JSON.stringify(bad)}`);
      }
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 2;
    } else out += plusIsSpace && c === "+" ? " " : c;
  }
  return Buffer.from(out, "latin1").toString("utf8");
}

function validOptionalPort(port: string): boolean {
  return port === "" || (port[0] === ":" && /^[0-9]*$/.test(port.slice(1)));
}

function parseHost(host: string): string {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) throw new Error("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort))
      throw new Error(`invalid port ${JSON.stringify(colonPort)} after host`);
  } else {
    const i = host.lastIndexOf(":");
    if (i !== -1 && !validOptionalPort(host.slice(i))) {
      throw new Error(`invalid port ${JSON.stringify(host.slice(i))} after host`);
    }
  }
  return urlUnescape(host, false);
}

/** Go's url.ParseRequestURI (an absolute URI, or an absolute path), with its errors. */
function parseRequestURI(raw: string): GoURL {
  const fail = (why: string) => new Error(`parse ${JSON.stringify(raw)}: ${why}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go refuses exactly these bytes
  if (/[\x00-\x1f\x7f]/.test(raw)) throw fail("net/url: invalid control character in URL");
  if (raw === "") throw fail("empty url");
  const u: GoURL = { scheme: "", opaque: "", host: "", path: "", rawPath: "", rawQuery: "" };
  if (raw === "*") return { ...u, path: "*" };
  let rest = raw;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (ALPHA.test(c)) continue;
    if (SCHEME_TAIL.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ":") {
      if (i === 0) throw fail("missing protocol scheme");
      u.scheme = raw.slice(0, i).toLowerCase();
      rest = raw.slice(i + 1);
    }
    break;
  }
  if (rest.endsWith("?") && rest.split("?").length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith("/")) {
    if (u.scheme !== "") return { ...u, opaque: rest };
    throw fail("invalid URI for request");
  }
  try {
    if (u.scheme !== "" && rest.startsWith("//")) {
      let authority = rest.slice(2);
      rest = "";
      const slash = authority.indexOf("/");
      if (slash >= 0) {
        rest = authority.slice(slash);
        authority = authority.slice(0, slash);
      }
      const at = authority.lastIndexOf("@");
      u.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    }
    u.path = urlUnescape(rest, false);
  } catch (e) {
    throw fail((e as Error).message);
  }
  u.rawPath = rest;
  return u;
}

/**
 * Go's URL.EscapedPath: the path as written when that is a valid encoding of it (validEncoded),
 * else the path escaped as escape(path, encodePath) escapes it.
 */
function escapedPath(u: GoURL): string {
  if (u.rawPath !== "" && /^[A-Za-z0-9\-._~!$&'()*+,;=:@[\]/%]*$/.test(u.rawPath)) {
    try {
      if (urlUnescape(u.rawPath, false) === u.path) return u.rawPath;
    } catch {
      // not a valid encoding: escape the path instead
    }
  }
  return u.path.replace(/[^A-Za-z0-9\-._~$&+,/:;=@]/g, (c) =>
    [...Buffer.from(c, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}

function hostnameAndPort(host: string): [string, string] {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    const port = host.slice(i + 1);
    return [host.slice(1, i), port.startsWith(":") ? port.slice(1) : ""];
  }
  const i = host.lastIndexOf(":");
  if (i < 0) return [host, ""];
  const port = host.slice(i + 1);
  return /^[0-9]*$/.test(port) ? [host.slice(0, i), port] : [host, ""];
}

/** Go's URL.Query(): pairs split on '&', unescaped; pairs that do not unescape are dropped. */
function query(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of raw.split("&")) {
    if (pair === "" || pair.includes(";")) continue;
    const eq = pair.indexOf("=");
    try {
      const k = urlUnescape(eq < 0 ? pair : pair.slice(0, eq), true);
      const v = eq < 0 ? "" : urlUnescape(pair.slice(eq + 1), true);
      out.set(k, [...(out.get(k) ?? []), v]);
    } catch {
      // Go's ParseQuery skips what does not unescape
    }
  }
  return out;
}

const STRING = CelScalar.STRING;
const parsed = (s: string) => parseRequestURI(s);

const urls: CelFunc[] = [
  celFunc("url", [STRING], STRING, (s: string) => {
    try {
      parseRequestURI(s);
    } catch (e) {
      throw celError(`URL parse error during conversion from string: ${(e as Error).message}`);
    }
    return s;
  }),
  celFunc("isURL", [STRING], CelScalar.BOOL, (s: string) => {
    try {
      parseRequestURI(s);
      return true;
    } catch {
      return false;
    }
  }),
  celMethod("getScheme", STRING, [], STRING, function (this: string) {
    return parsed(this).scheme;
  }),
  celMethod("getHost", STRING, [], STRING, function (this: string) {
    return parsed(this).host;
  }),
  celMethod("getHostname", STRING, [], STRING, function (this: string) {
    return hostnameAndPort(parsed(this).host)[0];
  }),
  celMethod("getPort", STRING, [], STRING, function (this: string) {
    return hostnameAndPort(parsed(this).host)[1];
  }),
  celMethod("getEscapedPath", STRING, [], STRING, function (this: string) {
    return escapedPath(parsed(this));
  }),
  celMethod("getQuery", STRING, [], mapType(STRING, listType(STRING)), function (this: string) {
    return query(parsed(this).rawQuery);
  }),
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
  ...lists,
  ...regex,
  ...urls,
  ...sets,
  ...quantityLibrary,
  ...netLibrary,
];

/** An evaluation error in cel-go's words: a missing key of a map reads "no such key: k" there. */
export function celErrorText(message: string): string {
  return message.startsWith("field not found: ") ? `no such key: ${message.slice(17)}` : message;
}
