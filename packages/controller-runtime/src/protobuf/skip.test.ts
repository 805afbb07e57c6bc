// The decoder skips the fields it does not read: every wire type kube writes, by its length; a
// wire type that is not protobuf's (groups, or garbage) and a field cut short are refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Reader } from "./wire.js";

test("skip passes over a field of each wire type", () => {
  const fields: [number, number[]][] = [
    [0, [0xac, 0x02]], // varint 300
    [1, [1, 2, 3, 4, 5, 6, 7, 8]], // 64-bit
    [2, [3, 0x61, 0x62, 0x63]], // length-delimited "abc"
    [5, [1, 2, 3, 4]], // 32-bit
  ];
  for (const [wireType, bytes] of fields) {
    const buf = Buffer.from([...bytes, 0x7f]);
    const r = new Reader(buf, 0, buf.length);
    r.skip(wireType);
    assert.equal(r.pos, bytes.length, `wire type ${wireType}`);
    assert.equal(r.uint32(), 0x7f, `the byte after a field of wire type ${wireType}`);
  }
});

test("skip refuses an unknown wire type and a field cut short", () => {
  const buf = Buffer.from([1, 2, 3]);
  for (const wireType of [3, 4, 6, 7]) {
    assert.throws(() => new Reader(buf, 0, buf.length).skip(wireType), {
      message: `unsupported wire type ${wireType}`,
    });
  }
  assert.throws(() => new Reader(buf, 0, buf.length).skip(1), /truncated/);
  assert.throws(() => new Reader(buf, 0, buf.length).skip(5), /truncated/);
  assert.throws(() => new Reader(Buffer.from([5, 1]), 0, 2).skip(2), /truncated/);
});
