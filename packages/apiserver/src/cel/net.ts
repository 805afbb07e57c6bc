// Kubernetes' CEL IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go and cidr.go, kube
// 1.30+): ip(), isIP(), ip.isCanonical(), an IP's family and kind predicates, cidr(), isCIDR(), a
// CIDR's containsIP/containsCIDR, ip(), prefixLength(), masked(), and string() of both — on Go's
// netip parsing rules and error words (no zones, no IPv4-mapped IPv6, no leading zeros).
// An IP or a CIDR travels as a tagged value (tagged.ts) of its canonical text, so `==` is netip's
// equality.
import { type CelFunc, type CelMap, CelScalar, celError, celFunc, celMethod, mapType } from "@bufbuild/cel";
import { tagged, textOf, untag } from "./tagged.js";

const IP_KEY = "\u0000k8s.io/ip";
const CIDR_KEY = "\u0000k8s.io/cidr";
const MAP = mapType(CelScalar.STRING, CelScalar.STRING); // a tagged value (tagged.ts)

/** An address: 4 or 16 bytes. */
export interface Addr {
  readonly bytes: Uint8Array;
}

class ParseError extends Error {}

function addrError(input: string, msg: string, at = ""): ParseError {
  const quoted = JSON.stringify(input);
  return new ParseError(`ParseAddr(${quoted}): ${msg}${at ? ` (at ${JSON.stringify(at)})` : ""}`);
}

/** netip.ParseAddr: an IPv4 or IPv6 address, with its error messages; `zone` is returned apart. */
export function parseAddr(s: string): { addr: Addr; zone: string } {
  for (const c of s) {
    if (c === ".") return { addr: parseIPv4(s, s), zone: "" };
    if (c === ":") return parseIPv6(s);
    if (c === "%") throw addrError(s, "missing IPv6 address");
  }
  throw addrError(s, "unable to parse IP");
}

function parseIPv4(s: string, input: string): Addr {
  const fields = new Uint8Array(4);
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && val === 0) throw addrError(input, "IPv4 field has octet with leading zero");
      val = val * 10 + (c - 48);
      digits++;
      if (val > 255) throw addrError(input, "IPv4 field has value >255");
    } else if (c === 46) {
      if (i === 0 || i === s.length - 1 || s[i - 1] === ".") {
        throw addrError(input, "IPv4 field must have at least one digit", s.slice(i));
      }
      if (pos === 3) throw addrError(input, "IPv4 address too long");
      fields[pos++] = val;
      val = 0;
      digits = 0;
    } else {
      throw addrError(input, "unexpected character", s.slice(i));
    }
  }
  if (pos < 3) throw addrError(input, "IPv4 address too short");
  fields[3] = val;
  return { bytes: fields };
}

function parseIPv6(input: string): { addr: Addr; zone: string } {
  let s = input;
  let zone = "";
  const pct = s.indexOf("%");
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === "") throw addrError(input, "zone must be a non-empty string");
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.startsWith("::")) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === "") return { addr: { bytes: ip }, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const d = Number.parseInt(s[off] ?? "", 16);
      if (Number.isNaN(d)) break;
      acc = acc * 16 + d;
      if (acc > 0xffff) throw addrError(input, "IPv6 field has value >=2^16", s);
    }
    if (off === 0) throw addrError(input, "each colon-separated field must have at least one digit", s);
    if (off < s.length && s[off] === ".") {
      if (ellipsis < 0 && i !== 12) {
        throw addrError(input, "embedded IPv4 address must replace the final 2 fields of the address", s);
      }
      if (i + 4 > 16)
        throw addrError(input, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
      let v4: Addr;
      try {
        v4 = parseIPv4(s, s);
      } catch (err) {
        throw addrError(input, (err as Error).message, s);
      }
      ip.set(v4.bytes, i);
      s = "";
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === "") break;
    if (s[0] !== ":") throw addrError(input, "unexpected character, want colon", s);
    if (s.length === 1) throw addrError(input, "colon must be followed by more characters", s);
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) throw addrError(input, "multiple :: in address", s);
      ellipsis = i;
      s = s.slice(1);
      if (s === "") break;
    }
  }
  if (s !== "") throw addrError(input, "trailing garbage after address", s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, "address string too short");
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j] ?? 0;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw addrError(input, "the :: must expand to at least one field of zeros");
  }
  return { addr: { bytes: ip }, zone };
}

const is4 = (a: Addr) => a.bytes.length === 4;
const is4In6 = (a: Addr) =>
  !is4(a) && a.bytes.slice(0, 10).every((b) => b === 0) && a.bytes[10] === 0xff && a.bytes[11] === 0xff;

/** netip.Addr.String: dotted IPv4; IPv6 in RFC 5952 form (the longest run of zero fields as ::). */
export function addrString(a: Addr): string {
  const b = a.bytes;
  if (is4(a)) return [...b].join(".");
  if (is4In6(a)) return `::ffff:${[...b.slice(12)].join(".")}`;
  const groups = Array.from({ length: 8 }, (_, k) => ((b[2 * k] ?? 0) << 8) | (b[2 * k + 1] ?? 0));
  let bestAt = -1;
  let bestLen = 0;
  for (let k = 0; k < 8; ) {
    if (groups[k] !== 0) {
      k++;
      continue;
    }
    let end = k;
    while (end < 8 && groups[end] === 0) end++;
    if (end - k > bestLen && end - k >= 2) {
      bestAt = k;
      bestLen = end - k;
    }
    k = end;
  }
  if (bestAt < 0) return groups.map((g) => g.toString(16)).join(":");
  const head = groups
    .slice(0, bestAt)
    .map((g) => g.toString(16))
    .join(":");
  const tail = groups
    .slice(bestAt + bestLen)
    .map((g) => g.toString(16))
    .join(":");
  return `${head}::${tail}`;
}

/** The library's parseIPAddr: netip's parse, then no zone and no IPv4-mapped IPv6. */
function parseIP(raw: string): Addr {
  let parsed: { addr: Addr; zone: string };
  try {
    parsed = parseAddr(raw);
  } catch (err) {
    throw new ParseError(
      `IP Address ${JSON.stringify(raw)} parse error during conversion from string: ${(err as Error).message}`,
    );
  }
  if (parsed.zone !== "")
    throw new ParseError(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (is4In6(parsed.addr))
    throw new ParseError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return parsed.addr;
}

interface Prefix {
  addr: Addr;
  bits: number;
}

/** netip.ParsePrefix, then no IPv4-mapped IPv6 (the library's parseCIDR). */
function parseCIDR(raw: string): Prefix {
  const fail = (msg: string) =>
    new ParseError(
      `network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(raw)}): ${msg}`,
    );
  const slash = raw.lastIndexOf("/");
  if (slash < 0) throw fail("no '/'");
  let parsed: { addr: Addr; zone: string };
  try {
    parsed = parseAddr(raw.slice(0, slash));
  } catch (err) {
    throw fail((err as Error).message);
  }
  if (parsed.zone !== "") throw fail("IPv6 zones cannot be present in a prefix");
  const bitsText = raw.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText)) throw fail(`bad bits after slash: ${JSON.stringify(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > (is4(parsed.addr) ? 32 : 128)) throw fail("prefix length out of range");
  if (is4In6(parsed.addr))
    throw new ParseError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return { addr: parsed.addr, bits };
}

/**
 * cidr()'s conversion (stringToCIDR): parseCIDR's error wrapped once more in the same words, so a
 * prefix that does not parse reads "network address parse error during conversion from string:"
 * twice, as kube's does.
 */
function stringToCIDR(raw: string): Prefix {
  try {
    return parseCIDR(raw);
  } catch (err) {
    throw new ParseError(
      `network address parse error during conversion from string: ${(err as Error).message}`,
    );
  }
}

function maskedAddr(p: Prefix): Addr {
  const bytes = p.addr.bytes.slice();
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, p.bits - 8 * i));
    bytes[i] = (bytes[i] ?? 0) & ((0xff << (8 - keep)) & 0xff);
  }
  return { bytes };
}

function sameAddr(a: Addr, b: Addr): boolean {
  return a.bytes.length === b.bytes.length && a.bytes.every((x, i) => x === b.bytes[i]);
}

function contains(p: Prefix, a: Addr): boolean {
  return is4(p.addr) === is4(a) && sameAddr(maskedAddr(p), maskedAddr({ addr: a, bits: p.bits }));
}

const ipToCel = (a: Addr): CelMap => tagged(IP_KEY, addrString(a));
const cidrToCel = (p: Prefix): CelMap => tagged(CIDR_KEY, `${addrString(p.addr)}/${p.bits}`);

function ipOf(v: unknown): Addr {
  return parseAddr(untag(v, IP_KEY)).addr;
}

function cidrOf(v: unknown): Prefix {
  const text = untag(v, CIDR_KEY);
  const slash = text.lastIndexOf("/");
  return { addr: parseAddr(text.slice(0, slash)).addr, bits: Number(text.slice(slash + 1)) };
}

/** Converts a parse failure into a CEL error with the library's own words. */
function guarded<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ParseError) throw celError(err.message);
    throw err;
  }
}

const valid = (fn: () => unknown): boolean => {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
};

const u16 = (a: Addr, k: number) => ((a.bytes[2 * k] ?? 0) << 8) | (a.bytes[2 * k + 1] ?? 0);
const isUnspecified = (a: Addr) => a.bytes.every((b) => b === 0);
const isLoopback = (a: Addr) =>
  is4(a) ? a.bytes[0] === 127 : a.bytes.slice(0, 15).every((b) => b === 0) && a.bytes[15] === 1;
const isMulticast = (a: Addr) => (is4(a) ? ((a.bytes[0] ?? 0) & 0xf0) === 0xe0 : a.bytes[0] === 0xff);
const isLinkLocalMulticast = (a: Addr) =>
  is4(a) ? a.bytes[0] === 224 && a.bytes[1] === 0 && a.bytes[2] === 0 : (u16(a, 0) & 0xff0f) === 0xff02;
const isLinkLocalUnicast = (a: Addr) =>
  is4(a) ? a.bytes[0] === 169 && a.bytes[1] === 254 : (u16(a, 0) & 0xffc0) === 0xfe80;
const isGlobalUnicast = (a: Addr) =>
  !(is4(a) && a.bytes.every((b) => b === 255)) &&
  !isUnspecified(a) &&
  !isLoopback(a) &&
  !isMulticast(a) &&
  !isLinkLocalUnicast(a);

const predicate = (name: string, test: (a: Addr) => boolean) =>
  celMethod(name, MAP, [], CelScalar.BOOL, function (this: CelMap) {
    return test(ipOf(this));
  });

export const netLibrary: CelFunc[] = [
  celFunc("ip", [CelScalar.STRING], MAP, (s: string) => guarded(() => ipToCel(parseIP(s)))),
  celFunc("isIP", [CelScalar.STRING], CelScalar.BOOL, (s: string) => valid(() => parseIP(s))),
  celFunc("ip.isCanonical", [CelScalar.STRING], CelScalar.BOOL, (s: string) =>
    guarded(() => addrString(parseIP(s)) === s),
  ),
  celMethod("family", MAP, [], CelScalar.INT, function (this: CelMap) {
    return is4(ipOf(this)) ? 4n : 6n;
  }),
  predicate("isUnspecified", isUnspecified),
  predicate("isLoopback", isLoopback),
  predicate("isLinkLocalMulticast", isLinkLocalMulticast),
  predicate("isLinkLocalUnicast", isLinkLocalUnicast),
  predicate("isGlobalUnicast", isGlobalUnicast),
  celFunc("cidr", [CelScalar.STRING], MAP, (s: string) => guarded(() => cidrToCel(stringToCIDR(s)))),
  celFunc("isCIDR", [CelScalar.STRING], CelScalar.BOOL, (s: string) => valid(() => parseCIDR(s))),
  celMethod("containsIP", MAP, [CelScalar.STRING], CelScalar.BOOL, function (this: CelMap, s: string) {
    // kube's cidrContainsIP reports the CIDR, not the conversion's error: no such overload.
    let ip: Addr;
    try {
      ip = parseIP(s);
    } catch {
      throw celError("no such overload");
    }
    return contains(cidrOf(this), ip);
  }),
  celMethod("containsIP", MAP, [MAP], CelScalar.BOOL, function (this: CelMap, other: CelMap) {
    return contains(cidrOf(this), ipOf(other));
  }),
  celMethod("containsCIDR", MAP, [CelScalar.STRING], CelScalar.BOOL, function (this: CelMap, s: string) {
    return guarded(() => containsCIDR(cidrOf(this), stringToCIDR(s)));
  }),
  celMethod("containsCIDR", MAP, [MAP], CelScalar.BOOL, function (this: CelMap, other: CelMap) {
    return containsCIDR(cidrOf(this), cidrOf(other));
  }),
  celMethod("ip", MAP, [], MAP, function (this: CelMap) {
    return ipToCel(cidrOf(this).addr);
  }),
  celMethod("prefixLength", MAP, [], CelScalar.INT, function (this: CelMap) {
    return BigInt(cidrOf(this).bits);
  }),
  celMethod("masked", MAP, [], MAP, function (this: CelMap) {
    const p = cidrOf(this);
    return cidrToCel({ addr: maskedAddr(p), bits: p.bits });
  }),
  celFunc("string", [MAP], CelScalar.STRING, (v: CelMap) => {
    const text = textOf(v, [IP_KEY, CIDR_KEY]);
    if (text === undefined) throw celError("no such overload");
    return text;
  }),
];

// The library's containsCIDR: the other's address masked to this prefix equals this prefix
// masked, and the other is at least as long.
function containsCIDR(p: Prefix, other: Prefix): boolean {
  if (is4(p.addr) !== is4(other.addr)) return false;
  return sameAddr(maskedAddr(p), maskedAddr({ addr: other.addr, bits: p.bits })) && p.bits <= other.bits;
}
