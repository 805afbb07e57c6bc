// WatchWriter against a fake response whose socket drains when told: live events queue while it
// is congested and go out in few large writes, in order; initial events wait for it and do not
// count; held and queued live bytes do, and cut the watcher off past the limit.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, test } from "node:test";
import { WRITE_CHUNK_BYTES, WatchWriter } from "./watch-writer.js";

class FakeResponse extends EventEmitter {
  readonly writes: string[] = [];
  writableLength = 0;
  writableNeedDrain = false;
  writableEnded = false;
  destroyed = false;
  constructor(readonly highWaterMark = 16 * 1024) {
    super();
  }
  write(chunk: string): boolean {
    this.writes.push(chunk);
    this.writableLength += chunk.length;
    this.writableNeedDrain = this.writableLength > this.highWaterMark;
    return !this.writableNeedDrain;
  }
  end(chunk?: string): void {
    if (chunk) this.writes.push(chunk);
    this.writableEnded = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
  /** The client read everything the socket held. */
  drain(): void {
    this.writableLength = 0;
    if (!this.writableNeedDrain) return;
    this.writableNeedDrain = false;
    this.emit("drain");
  }
}

function writer(limit: number, hwm?: number) {
  const res = new FakeResponse(hwm);
  let overflows = 0;
  const w = new WatchWriter(res as unknown as ServerResponse, limit, () => {
    overflows++;
    w.cutOff("ERROR\n");
  });
  return { res, w, overflows: () => overflows };
}

/** The end of this turn of the loop, when the writer sends what was queued in it. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

const line = (i: number, size = 1000) => `${String(i).padStart(8, "0")}${"x".repeat(size - 9)}\n`;

describe("WatchWriter", () => {
  test("live events of one turn of the loop go out as one write at its end", async () => {
    const { res, w } = writer(16 * 1024 * 1024);
    w.goLive();
    for (let i = 0; i < 5; i++) w.writeLive(line(i, 100));
    assert.deepEqual(res.writes, [], "nothing before the turn ends");
    await turn();
    assert.deepEqual(res.writes, [Array.from({ length: 5 }, (_, i) => line(i, 100)).join("")]);
    w.writeLive(line(5, 100));
    await turn();
    assert.deepEqual(res.writes.slice(1), [line(5, 100)], "the next turn's event, its own write");
  });

  test("live events to a congested socket are queued and written in chunks, in order", async () => {
    const { res, w } = writer(16 * 1024 * 1024);
    w.goLive();
    for (let i = 0; i < 1000; i++) w.writeLive(line(i));
    await turn();
    // The first writes went out until the socket pushed back; the rest wait.
    const before = res.writes.length;
    assert.ok(before < 30, `${before} writes before the first drain`);
    while (res.writableNeedDrain) res.drain();
    const after = res.writes.slice(before);
    assert.ok(after.length <= Math.ceil((1000 * 1000) / WRITE_CHUNK_BYTES) + 1, `${after.length} writes`);
    assert.ok(after.every((c) => c.length <= WRITE_CHUNK_BYTES + 1000));
    assert.equal(res.writes.join(""), Array.from({ length: 1000 }, (_, i) => line(i)).join(""));
  });

  test("initial events wait for the socket and do not count against the limit", async () => {
    const { res, w, overflows } = writer(4 * 1024);
    let resolved = false;
    const p = w.writeInitial("x".repeat(100 * 1024)).then(() => {
      resolved = true;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(resolved, false, "waits for the drain");
    assert.equal(overflows(), 0);
    res.drain();
    await p;
    assert.equal(resolved, true);
  });

  test("live events held back during initial events count: far past the limit, a cut-off", () => {
    const { res, w, overflows } = writer(64 * 1024);
    w.hold(100 * 1024);
    assert.equal(overflows(), 0, "above the limit, within the grace");
    w.hold(300 * 1024);
    assert.equal(overflows(), 1);
    assert.equal(res.destroyed, true);
    assert.equal(res.writes.at(-1), "ERROR\n");
  });

  test("unsent live bytes above the limit for a second cut the watcher off", (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const { res, w, overflows } = writer(64 * 1024);
    w.goLive();
    for (let i = 0; i < 100; i++) w.writeLive(line(i)); // 100 KB: above, below 4×
    t.mock.timers.tick(999);
    assert.equal(overflows(), 0);
    t.mock.timers.tick(1);
    assert.equal(overflows(), 1);
    assert.equal(res.destroyed, true);
  });

  test("a burst the client reads within the grace is not cut off; end() sends what is queued", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const { res, w, overflows } = writer(64 * 1024);
    w.goLive();
    for (let i = 0; i < 100; i++) w.writeLive(line(i));
    await turn();
    t.mock.timers.tick(500);
    while (res.writableNeedDrain) res.drain();
    t.mock.timers.tick(1000);
    assert.equal(overflows(), 0);
    for (let i = 100; i < 200; i++) w.writeLive(line(i));
    w.end("BYE\n");
    assert.equal(res.writableEnded, true);
    assert.equal(res.writes.join(""), `${Array.from({ length: 200 }, (_, i) => line(i)).join("")}BYE\n`);
  });
});
