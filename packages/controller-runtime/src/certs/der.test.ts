// The DER pieces of the development certificates, checked against encodings fixed by X.690 and
// RFC 5280 examples; whole certificates are checked by generate.test.ts, by Node's TLS and, in
// the binaries mode, by kube-apiserver's Go parser (client certificates, webhook serving).
import assert from "node:assert/strict";
import { test } from "node:test";
import { ipBytes, namedBits, octetString, oid, sequence, time, unsignedInteger } from "./der.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

test("OIDs, integers, named bits and lengths encode as X.690 says", () => {
  assert.equal(hex(oid("1.2.840.10045.4.3.2")), "06082a8648ce3d040302");
  assert.equal(hex(oid("2.5.29.17")), "0603551d11");
  assert.equal(hex(unsignedInteger(Buffer.from([0x80, 1]))), "0203008001", "a 0 byte keeps it positive");
  assert.equal(hex(unsignedInteger(Buffer.from([0, 0, 5]))), "020105", "leading zeros dropped");
  // KeyUsage digitalSignature (0) and keyEncipherment (2): 5 unused bits, 0b10100000.
  assert.equal(hex(namedBits([0, 2])), "030205a0");
  // keyCertSign (5) and cRLSign (6): 1 unused bit, 0b00000110.
  assert.equal(hex(namedBits([5, 6])), "03020106");
  assert.equal(hex(sequence()), "3000");
  assert.equal(hex(octetString(Buffer.alloc(200))).slice(0, 6), "0481c8", "long form from 128 bytes");
  assert.equal(hex(octetString(Buffer.alloc(300))).slice(0, 8), "0482012c");
});

test("times are UTCTime through 2049 and GeneralizedTime from 2050", () => {
  assert.equal(time(new Date("2026-11-26T02:55:07.123Z")).toString("latin1"), "\x17\x0d261126025507Z");
  assert.equal(time(new Date("2050-01-01T00:00:00Z")).toString("latin1"), "\x18\x0f20500101000000Z");
});

test("IP addresses become their 4 or 16 bytes; anything else is refused", () => {
  assert.equal(hex(ipBytes("127.0.0.1")), "7f000001");
  assert.equal(hex(ipBytes("::1")), "00000000000000000000000000000001");
  assert.equal(hex(ipBytes("::")), "0".repeat(32));
  assert.equal(hex(ipBytes("fe80::1:2")), "fe800000000000000000000000010002");
  assert.equal(hex(ipBytes("2001:db8:0:0:0:0:0:1")), "20010db8000000000000000000000001");
  for (const bad of [
    "1.2.3.256",
    "1::2::3",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "g::1",
    "1:2:3:4::5:6:7:8",
    "localhost",
  ]) {
    assert.throws(() => ipBytes(bad), TypeError, bad);
  }
});
