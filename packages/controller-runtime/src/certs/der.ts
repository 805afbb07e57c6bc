// The few ASN.1 DER encodings an X.509 certificate is made of (ITU-T X.690): enough to write
// the development certificates of generate.ts without an ASN.1 library, whose import cost the
// API server's cold start more than everything else it loads (and pulled a DI container in).

/** A tag, its length and its content. */
function tlv(tag: number, content: Uint8Array): Buffer {
  const n = content.length;
  let length: number[];
  if (n < 0x80) length = [n];
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    length = [0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => tlv(0x31, Buffer.concat(items));
export const octetString = (bytes: Uint8Array): Buffer => tlv(0x04, bytes);
export const utf8String = (s: string): Buffer => tlv(0x0c, Buffer.from(s, "utf8"));
export const boolean = (b: boolean): Buffer => tlv(0x01, Buffer.from([b ? 0xff : 0]));

/** A constructed context-specific tag `[n]` around DER items (EXPLICIT tagging). */
export const explicit = (n: number, ...items: Uint8Array[]): Buffer => tlv(0xa0 | n, Buffer.concat(items));
/** A primitive context-specific tag `[n]` replacing a primitive's own (IMPLICIT tagging). */
export const implicit = (n: number, content: Uint8Array): Buffer => tlv(0x80 | n, content);

/** A non-negative INTEGER from big-endian bytes (a 0 byte first when the high bit is set). */
export function unsignedInteger(bytes: Uint8Array): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const trimmed = bytes.subarray(i);
  return tlv(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInteger = (n: number): Buffer => unsignedInteger(Buffer.from([n]));

/** An OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split(".").map(Number);
  const out = [40 * (arcs[0] ?? 0) + (arcs[1] ?? 0)];
  for (const arc of arcs.slice(2)) {
    const base128: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) base128.unshift(0x80 | (v & 0x7f));
    out.push(...base128);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A BIT STRING of whole bytes. */
export const bitString = (bytes: Uint8Array): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));

/** A named-bit BIT STRING (KeyUsage): bit 0 is the first byte's high bit; trailing zeros dropped, as DER wants. */
export function namedBits(bits: readonly number[]): Buffer {
  const top = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(top / 8) + 1);
  for (const b of bits) bytes[Math.floor(b / 8)]! |= 0x80 >> (b % 8);
  const unused = 7 - (top % 8);
  return tlv(0x03, Buffer.concat([Buffer.from([unused]), bytes]));
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5), to the second. */
export function time(d: Date): Buffer {
  const iso = d.toISOString(); // 2026-11-26T02:55:00.000Z
  const digits = iso.slice(0, 19).replace(/[-:T]/g, "");
  const year = d.getUTCFullYear();
  return year < 2050
    ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`, "ascii"))
    : tlv(0x18, Buffer.from(`${digits}Z`, "ascii"));
}

/** The 4 or 16 bytes of an IPv4 or IPv6 address (an iPAddress in subjectAltName). */
export function ipBytes(ip: string): Buffer {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) {
    const parts = ip.split(".").map(Number);
    if (parts.some((p) => p > 255)) throw new TypeError(`not an IP address: ${ip}`);
    return Buffer.from(parts);
  }
  // IPv6, with at most one "::" standing for one or more zero groups (no dotted IPv4 tail).
  const halves = ip.split("::");
  if (halves.length > 2) throw new TypeError(`not an IP address: ${ip}`);
  const groups = (s: string | undefined) => (s ? s.split(":") : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const all = [...head, ...Array<string>(Math.max(0, fill)).fill("0"), ...rest];
  if ((halves.length === 2 && fill < 1) || all.length !== 8 || all.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) {
    throw new TypeError(`not an IP address: ${ip}`);
  }
  const out = Buffer.alloc(16);
  for (const [i, g] of all.entries()) out.writeUInt16BE(Number.parseInt(g, 16), i * 2);
  return out;
}
