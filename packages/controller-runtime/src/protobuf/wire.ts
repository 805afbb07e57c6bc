// The protobuf wire format, only as much of it as kube's messages use (varints, length-delimited
// fields, and the doubles of apiextensions' JSONSchemaProps; no zigzag scalars appear). Written by hand rather than
// through @bufbuild/protobuf's BinaryReader/BinaryWriter because the codec reads straight into
// kube's JSON object shape: no intermediate message, short strings without a TextDecoder call,
// and lengths patched in place instead of forked buffers.

/** A body that is not a decodable object; the message is worded for a 400 or a client's error. */
export class ProtobufError extends Error {
  override readonly name = "ProtobufError";
}

const TWO_32 = 4294967296;

export class Reader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  /** A varint that fits 32 bits (tags, lengths, int32 values), as an unsigned number. */
  uint32(): number {
    const buf = this.buf;
    let b = buf[this.pos++]!;
    if (b < 0x80) return b;
    let v = b & 0x7f;
    b = buf[this.pos++]!;
    v |= (b & 0x7f) << 7;
    if (b < 0x80) return v;
    b = buf[this.pos++]!;
    v |= (b & 0x7f) << 14;
    if (b < 0x80) return v;
    b = buf[this.pos++]!;
    v |= (b & 0x7f) << 21;
    if (b < 0x80) return v;
    b = buf[this.pos++]!;
    v += (b & 0x0f) * 268435456; // bits 28..31, without sign overflow
    // A negative int32 is written as 10 bytes; the 5 high bytes carry only sign bits.
    if (b >= 0x80) for (let i = 0; i < 5 && buf[this.pos++]! >= 0x80; i++);
    if (this.pos > this.end) throw truncated();
    return v >>> 0;
  }

  int32(): number {
    return this.uint32() | 0;
  }

  /** An int64 varint as a number; past 2^53 it would lose digits, so it is refused. */
  int64(): number {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    let shift = 0;
    let b: number;
    // Low 28 bits, then 4 bits shared with the high word, then the high word's remaining bits.
    do {
      b = buf[this.pos++]!;
      if (shift < 28) lo |= (b & 0x7f) << shift;
      else if (shift === 28) {
        lo |= (b & 0x0f) << 28;
        hi = (b & 0x7f) >> 4;
      } else hi |= (b & 0x7f) << (shift - 32);
      shift += 7;
    } while (b >= 0x80 && shift < 70);
    if (this.pos > this.end) throw truncated();
    lo >>>= 0;
    hi |= 0;
    if (hi > 0x1fffff || hi < -0x200000) {
      throw new ProtobufError("an integer does not fit in a JSON number (past 2^53)");
    }
    return hi * TWO_32 + lo;
  }

  /** A double (wire type 1: 8 bytes, little-endian). */
  double(): number {
    const at = this.pos;
    this.pos += 8;
    if (this.pos > this.end) throw truncated();
    return this.buf.readDoubleLE(at);
  }

  /** The end of a length-delimited field's bytes, after its length. */
  delimited(): number {
    const len = this.uint32();
    const end = this.pos + len;
    if (end > this.end) throw truncated();
    return end;
  }

  string(): string {
    const end = this.delimited();
    const start = this.pos;
    this.pos = end;
    return utf8(this.buf, start, end);
  }

  bytes(): Buffer {
    const end = this.delimited();
    const start = this.pos;
    this.pos = end;
    return this.buf.subarray(start, end);
  }

  /**
   * Skips a field of `wireType`. Length-delimited and varint fields first, in few bytes: the
   * decoder skips fields it does not read (managedFields, unknown ones) on every object.
   */
  skip(wireType: number): void {
    if (wireType === 2) this.pos = this.delimited();
    else if (wireType === 0) while (this.buf[this.pos++]! >= 0x80);
    else this.pos += fixedSize(wireType);
    if (this.pos > this.end) throw truncated();
  }
}

/** The bytes of a fixed-size field (wire type 1: 8, 5: 4); any other wire type is refused. */
function fixedSize(wireType: number): number {
  if (wireType === 1) return 8;
  if (wireType === 5) return 4;
  throw new ProtobufError(`unsupported wire type ${wireType}`);
}

function truncated(): ProtobufError {
  return new ProtobufError("unexpected end of a protobuf message (truncated or not protobuf)");
}

/**
 * UTF-8 text. Most of kube's strings are short ASCII (names, keys, versions), which a loop
 * turns into a string faster than a native decode call; longer or non-ASCII text goes native.
 */
export function utf8(buf: Buffer, start: number, end: number): string {
  const n = end - start;
  if (n >= 32) return buf.utf8Slice(start, end);
  let high = 0;
  for (let i = start; i < end; i++) high |= buf[i]!;
  if (high >= 0x80) return buf.utf8Slice(start, end);
  // ASCII, most of an object's strings (names, versions, keys): up to 12 characters made in one
  // call, where appending a character at a time allocated a string per character (a third of
  // what decoding a watch event allocated) and took twice as long; longer ones in one copy,
  // flat, where appending would have built a rope to flatten on first use.
  const b = buf;
  const s = start;
  switch (n) {
    case 0:
      return "";
    case 1:
      return String.fromCharCode(b[s]!);
    case 2:
      return String.fromCharCode(b[s]!, b[s + 1]!);
    case 3:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!);
    case 4:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!);
    case 5:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!);
    case 6:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!);
    case 7:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!);
    case 8:
      return String.fromCharCode(
        b[s]!,
        b[s + 1]!,
        b[s + 2]!,
        b[s + 3]!,
        b[s + 4]!,
        b[s + 5]!,
        b[s + 6]!,
        b[s + 7]!,
      );
    case 9:
      return String.fromCharCode(
        b[s]!,
        b[s + 1]!,
        b[s + 2]!,
        b[s + 3]!,
        b[s + 4]!,
        b[s + 5]!,
        b[s + 6]!,
        b[s + 7]!,
        b[s + 8]!,
      );
    case 10:
      return String.fromCharCode(
        b[s]!,
        b[s + 1]!,
        b[s + 2]!,
        b[s + 3]!,
        b[s + 4]!,
        b[s + 5]!,
        b[s + 6]!,
        b[s + 7]!,
        b[s + 8]!,
        b[s + 9]!,
      );
    case 11:
      return String.fromCharCode(
        b[s]!,
        b[s + 1]!,
        b[s + 2]!,
        b[s + 3]!,
        b[s + 4]!,
        b[s + 5]!,
        b[s + 6]!,
        b[s + 7]!,
        b[s + 8]!,
        b[s + 9]!,
        b[s + 10]!,
      );
    case 12:
      return String.fromCharCode(
        b[s]!,
        b[s + 1]!,
        b[s + 2]!,
        b[s + 3]!,
        b[s + 4]!,
        b[s + 5]!,
        b[s + 6]!,
        b[s + 7]!,
        b[s + 8]!,
        b[s + 9]!,
        b[s + 10]!,
        b[s + 11]!,
      );
    default:
      return buf.latin1Slice(start, end);
  }
}

declare global {
  interface Buffer {
    utf8Slice(start: number, end: number): string;
    latin1Slice(start: number, end: number): string;
    utf8Write(text: string, offset: number): number;
    latin1Write(text: string, offset: number): number;
  }
}

/** String values at least this long are recorded when a writer records them (`Writer.shared`). */
export const SHARED_MIN = 128;

export class Writer {
  buf: Buffer;
  pos = 0;
  /** Something of the value could not be written (see codec.ts EncodeOptions.exact). */
  lossy = false;
  /** Whether unknown keys make the encoding lossy too (counted only for an exact encoding). */
  exact = true;
  /**
   * When set, long ASCII string values written, each as its end position and the string: their
   * bytes are the string's characters, so that a kept encoding can hold the object's own string
   * for them rather than a copy (codec.ts, frozen objects). Positions follow moves by `close`.
   */
  shared: (number | string)[] | undefined = undefined;
  constructor(size = 1024) {
    this.buf = Buffer.allocUnsafe(size);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** A varint of a non-negative number below 2^53. */
  varint(v: number): void {
    this.ensure(10);
    const buf = this.buf;
    while (v >= 0x80) {
      buf[this.pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    buf[this.pos++] = v;
  }

  /** An int32 or int64: negative numbers take 10 bytes of two's complement, as Go writes them. */
  int(v: number): void {
    if (v >= 0) {
      this.varint(v);
      return;
    }
    this.ensure(10);
    let lo = Number(BigInt.asUintN(64, BigInt(v)) & 0xffffffffn);
    let hi = Number(BigInt.asUintN(64, BigInt(v)) >> 32n);
    for (let i = 0; i < 9; i++) {
      this.buf[this.pos++] = (lo & 0x7f) | 0x80;
      lo = (lo >>> 7) | ((hi & 0x7f) << 25);
      hi >>>= 7;
    }
    this.buf[this.pos++] = lo & 0x01;
  }

  tag(field: number, wireType: number): void {
    const t = field * 8 + wireType;
    if (t < 0x80 && this.pos < this.buf.length) this.buf[this.pos++] = t;
    else this.varint(t);
  }

  string(field: number, s: string): void {
    this.tag(field, 2);
    // Short ASCII text is copied byte by byte; anything else goes through the native encoder.
    const n = s.length;
    if (n < 64) {
      this.ensure(1 + n * 3);
      const lenAt = this.pos++;
      let ascii = true;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        this.buf[this.pos++] = c;
      }
      if (ascii) {
        this.buf[lenAt] = n;
        return;
      }
      this.pos = lenAt;
    }
    // Written straight after room for the length as if every character took one byte (it takes
    // at most three), the length fixed after: measuring the text first (Buffer.byteLength) cost
    // as much as writing it.
    let reserve = 1;
    for (let v = n >>> 7; v > 0; v >>>= 7) reserve++;
    this.ensure(reserve + n * 3);
    const start = this.pos + reserve;
    const len = this.buf.utf8Write(s, start);
    this.pos = start + len;
    this.close(start - reserve, reserve);
    // As many bytes as characters: all of them ASCII (any other takes two or three).
    if (this.shared !== undefined && len === n && n >= SHARED_MIN) this.shared.push(this.pos, s);
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** A bytes field whose bytes are `text`'s characters (latin1: one byte each, all below 256). */
  latin1(field: number, text: string): void {
    this.tag(field, 2);
    this.varint(text.length);
    this.ensure(text.length);
    this.pos += this.buf.latin1Write(text, this.pos);
  }

  /** A bytes field whose bytes are `parts`' characters joined (`length` of them), copied part by part. */
  latin1Parts(field: number, parts: readonly string[], length: number): void {
    this.tag(field, 2);
    this.varint(length);
    this.ensure(length);
    for (const part of parts) this.pos += this.buf.latin1Write(part, this.pos);
  }

  /** A double field (wire type 1). */
  double(field: number, v: number): void {
    this.tag(field, 1);
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(v, this.pos);
  }

  /**
   * Starts a length-delimited field; `reserve` bytes (default one) are kept for its length, which
   * `close` fixes. A caller that knows how long such fields come reserves that many bytes: the
   * field's bytes then stay where they are written instead of moving when the length is longer
   * than reserved (every object of a list or watch, moved once per level it nests in).
   */
  open(field: number, reserve = 1): number {
    this.tag(field, 2);
    this.ensure(reserve);
    const at = this.pos;
    this.pos += reserve;
    return at;
  }

  /**
   * Writes the length of the field opened at `at` with `reserve` bytes (as `open` was given),
   * moving its bytes if the length takes another number of bytes; answers how many it takes.
   * The output is the same whatever was reserved: lengths are always minimal varints.
   */
  close(at: number, reserve = 1): number {
    const start = at + reserve;
    const len = this.pos - start;
    if (len < 0x80 && reserve === 1) {
      this.buf[at] = len;
      return 1;
    }
    let size = 1;
    for (let v = len >>> 7; v > 0; v >>>= 7) size++;
    if (size !== reserve) {
      if (size > reserve) this.ensure(size - reserve);
      this.buf.copyWithin(at + size, start, this.pos);
      this.pos += size - reserve;
      const shared = this.shared;
      if (shared !== undefined) {
        // Values written inside the field moved with it.
        for (let i = 0; i < shared.length; i += 2) {
          if ((shared[i] as number) > start) shared[i] = (shared[i] as number) + size - reserve;
        }
      }
    }
    let v = len;
    let i = at;
    while (v >= 0x80) {
      this.buf[i++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[i] = v;
    return size;
  }

  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** The bytes written, in a buffer of their own. */
  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}
