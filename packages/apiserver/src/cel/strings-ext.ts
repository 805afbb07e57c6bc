// cel-go's strings extension at the version kube's rules use (ext.Strings version 2), on
// @bufbuild/cel: charAt, indexOf, lastIndexOf, substring count code points (@bufbuild/cel's count
// UTF-16 units) with cel-go's "index out of range: N"; replace and split are Go's strings.Replace
// and strings.SplitN (an empty old string inserts around every code point; split's n keeps the
// rest in its last piece, 0 gives none, a negative n all); trim is Go's TrimSpace. join, format
// and strings.quote are @bufbuild/cel's.
import { type CelFunc, type CelList, CelScalar, celList, celMethod, listType } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";

const { STRING, INT } = CelScalar;
const LIST = listType(CelScalar.DYN);

const outOfRange = (i: bigint | number) => new Error(`index out of range: ${i}`);

/** Go's unicode.IsSpace. */
const SPACES = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
  0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

function charAt(this: string, index: bigint): string {
  const runes = [...this];
  if (index < 0n || index > BigInt(runes.length)) throw outOfRange(index);
  return runes[Number(index)] ?? "";
}

/** Where `sub` (as code points) starts in `runes` at `from` or after, -1 if nowhere. */
function find(runes: string[], sub: string[], from: number, step: 1 | -1): number {
  for (let i = from; step === 1 ? i <= runes.length - sub.length : i >= 0; i += step) {
    if (sub.every((r, j) => runes[i + j] === r)) return i;
  }
  return -1;
}

function indexOf(this: string, sub: string, offset?: bigint): bigint {
  const off = offset ?? 0n;
  if (off < 0n) throw outOfRange(off);
  const runes = [...this];
  if (sub === "") return off > BigInt(runes.length) ? BigInt(runes.length) : off;
  if (off >= BigInt(runes.length)) return -1n;
  return BigInt(find(runes, [...sub], Number(off), 1));
}

function lastIndexOf(this: string, sub: string, offset?: bigint): bigint {
  const runes = [...this];
  if (offset === undefined) {
    if (sub === "") return BigInt(runes.length);
    if (Buffer.byteLength(this) < Buffer.byteLength(sub)) return -1n;
  }
  const off = offset ?? BigInt(runes.length - 1);
  if (off < 0n) throw outOfRange(off);
  if (sub === "") return off > BigInt(runes.length) ? BigInt(runes.length) : off;
  if (off >= BigInt(runes.length)) return -1n;
  const subRunes = [...sub];
  return BigInt(find(runes, subRunes, Math.min(Number(off), runes.length - subRunes.length), -1));
}

function substring(this: string, start: bigint, end?: bigint): string {
  const runes = [...this];
  const length = BigInt(runes.length);
  if (end === undefined) {
    if (start < 0n || start > length) throw outOfRange(start);
    return runes.slice(Number(start)).join("");
  }
  if (start > end) throw new Error(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > length) throw outOfRange(start);
  if (end < 0n || end > length) throw outOfRange(end);
  return runes.slice(Number(start), Number(end)).join("");
}

/** Go's strings.Replace: the first `n` (all when negative) of `old` in `s` replaced. */
export function goReplace(s: string, old: string, replacement: string, n: number): string {
  if (old === replacement || n === 0) return s;
  const runes = [...s];
  let matches = 0;
  if (old === "") matches = runes.length + 1;
  else for (let at = s.indexOf(old); at >= 0; at = s.indexOf(old, at + old.length)) matches++;
  if (matches === 0) return s;
  if (n < 0 || matches < n) n = matches;
  if (old === "") {
    // Before the first code point and after each of the next n - 1.
    let out = "";
    for (let i = 0; i < n; i++) out += (i > 0 ? runes[i - 1] : "") + replacement;
    return out + runes.slice(Math.max(0, n - 1)).join("");
  }
  let out = "";
  let start = 0;
  for (let i = 0; i < n; i++) {
    const at = s.indexOf(old, start);
    out += s.slice(start, at) + replacement;
    start = at + old.length;
  }
  return out + s.slice(start);
}

/** Go's strings.SplitN. */
export function goSplitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === "") {
    const runes = [...s];
    if (n < 0 || n >= runes.length) return runes;
    return [...runes.slice(0, n - 1), runes.slice(n - 1).join("")];
  }
  const out: string[] = [];
  let start = 0;
  while (n < 0 || out.length < n - 1) {
    const at = s.indexOf(sep, start);
    if (at < 0) break;
    out.push(s.slice(start, at));
    start = at + sep.length;
  }
  out.push(s.slice(start));
  return out;
}

/** Go's strings.TrimSpace. */
function trim(this: string): string {
  const runes = [...this];
  let start = 0;
  let end = runes.length;
  while (start < end && SPACES.has(runes[start]!.codePointAt(0)!)) start++;
  while (end > start && SPACES.has(runes[end - 1]!.codePointAt(0)!)) end--;
  return runes.slice(start, end).join("");
}

function asciiCase(s: string, upper: boolean): string {
  return s.replace(upper ? /[a-z]+/g : /[A-Z]+/g, (m) => (upper ? m.toUpperCase() : m.toLowerCase()));
}

const clamp = (n: bigint) => (n > 2n ** 31n ? 2 ** 31 : n < -(2n ** 31n) ? -1 : Number(n));

const KEPT = new Set(["join", "format", "strings.quote"]);

export const stringsLibrary: CelFunc[] = [
  celMethod("charAt", STRING, [INT], STRING, charAt),
  celMethod("indexOf", STRING, [STRING], INT, indexOf),
  celMethod("indexOf", STRING, [STRING, INT], INT, indexOf),
  celMethod("lastIndexOf", STRING, [STRING], INT, lastIndexOf),
  celMethod("lastIndexOf", STRING, [STRING, INT], INT, lastIndexOf),
  celMethod("lowerAscii", STRING, [], STRING, function (this: string) {
    return asciiCase(this, false);
  }),
  celMethod("upperAscii", STRING, [], STRING, function (this: string) {
    return asciiCase(this, true);
  }),
  celMethod("replace", STRING, [STRING, STRING], STRING, function (this: string, old: string, r: string) {
    return goReplace(this, old, r, -1);
  }),
  celMethod(
    "replace",
    STRING,
    [STRING, STRING, INT],
    STRING,
    function (this: string, old: string, r: string, n: bigint) {
      return goReplace(this, old, r, clamp(n));
    },
  ),
  celMethod("split", STRING, [STRING], LIST, function (this: string, sep: string): CelList {
    return celList(goSplitN(this, sep, -1));
  }),
  celMethod("split", STRING, [STRING, INT], LIST, function (this: string, sep: string, n: bigint): CelList {
    return celList(goSplitN(this, sep, clamp(n)));
  }),
  celMethod("substring", STRING, [INT], STRING, substring),
  celMethod("substring", STRING, [INT, INT], STRING, substring),
  celMethod("trim", STRING, [], STRING, trim),
  ...strings.filter((f) => KEPT.has(f.name)),
];
