// Each reconcile's ID is a random (version 4) UUID, as controller-runtime's is a UUID. node:crypto's
// randomUUID joins its 36 characters from 20 pieces, ~0.6 KB of garbage per call and ~7 % of
// everything a reconcile allocated; here the characters are written into a buffer and read out
// as one string, from random bytes drawn 4 KiB at a time (as randomUUID draws them).
import { randomFillSync } from "node:crypto";

const HEX = Buffer.from("0123456789abcdef", "latin1");
const random = Buffer.alloc(4096);
let next = random.length;
const text = Buffer.alloc(36);

/** A new random UUID, `xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx` (N one of 8, 9, a, b). */
export function newReconcileID(): string {
  if (next + 16 > random.length) {
    randomFillSync(random);
    next = 0;
  }
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = 0x2d; // "-"
    let b = random[next + i]!;
    if (i === 6)
      b = (b & 0x0f) | 0x40; // version 4
    else if (i === 8) b = (b & 0x3f) | 0x80; // RFC 4122 variant
    text[at++] = HEX[b >> 4]!;
    text[at++] = HEX[b & 0x0f]!;
  }
  next += 16;
  return text.toString("latin1", 0, 36);
}
