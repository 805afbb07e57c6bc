import assert from "node:assert/strict";
import { test } from "node:test";
import { runInRunnableScope } from "../internal/runnable-scope.js";
import { ChannelClosedError, newChannel } from "./index.js";

test("every subscriber gets every value, in order", async () => {
  const ch = newChannel<number>();
  const a = ch.subscribe({ bufferSize: 4 });
  const b = ch.subscribe({ bufferSize: 4 });
  await ch.send(1);
  await ch.send(2);
  ch.close();
  const all = async (it: AsyncIterable<number>) => {
    const out: number[] = [];
    for await (const v of it) out.push(v);
    return out;
  };
  assert.deepEqual(await Promise.all([all(a), all(b)]), [
    [1, 2],
    [1, 2],
  ]);
});

test("send waits for room in every subscriber's buffer; trySend does not wait", async () => {
  const ch = newChannel<number>();
  const it = ch.subscribe({ bufferSize: 1 });
  assert.equal(ch.trySend(1), true);
  assert.equal(ch.trySend(2), false); // the buffer of one is full
  let sent = false;
  const p = ch.send(2).then(() => {
    sent = true;
  });
  await Promise.resolve();
  assert.equal(sent, false);
  assert.deepEqual(await it.next(), { done: false, value: 1 });
  await p;
  assert.equal(sent, true);
  assert.deepEqual(await it.next(), { done: false, value: 2 });
});

test("with no subscriber the channel holds up to its capacity, then sends wait; a signal cancels the wait", async () => {
  const ch = newChannel<number>({ capacity: 1 });
  assert.equal(ch.trySend(1), true);
  const ac = new AbortController();
  const waiting = ch.send(2, { signal: ac.signal });
  ac.abort(new Error("gave up"));
  await assert.rejects(waiting, /gave up/);
  const it = ch.subscribe({ bufferSize: 0 });
  assert.deepEqual(await it.next(), { done: false, value: 1 });
});

test("a send inside a Runnable follows the Runnable's signal unless given its own", async () => {
  const ch = newChannel<number>();
  const runnable = new AbortController();
  const own = new AbortController();
  const [implicit, explicit] = runInRunnableScope(runnable.signal, () => [
    ch.send(1),
    ch.send(2, { signal: own.signal }),
  ]);
  runnable.abort(new Error("runnable stopped"));
  await assert.rejects(implicit!, /runnable stopped/);
  own.abort(new Error("own signal"));
  await assert.rejects(explicit!, /own signal/);
  // A value with room is still delivered after the Runnable stopped.
  const it = ch.subscribe({ bufferSize: 1 });
  await runInRunnableScope(runnable.signal, () => ch.send(3));
  assert.deepEqual(await it.next(), { done: false, value: 3 });
});

test("close delivers what was sent, then ends subscriptions; later sends reject", async () => {
  const ch = newChannel<string>();
  const blocked = ch.send("before close"); // no subscriber, capacity 0: waits
  ch.close();
  await assert.rejects(ch.send("after"), ChannelClosedError);
  assert.equal(ch.trySend("after"), false);
  const it = ch.subscribe();
  assert.deepEqual(await it.next(), { done: false, value: "before close" });
  await blocked;
  assert.deepEqual(await it.next(), { done: true, value: undefined });
});

test("an aborted subscription ends and stops holding senders back", async () => {
  const ch = newChannel<number>();
  const ac = new AbortController();
  const slow = ch.subscribe({ bufferSize: 0, signal: ac.signal });
  const fast = ch.subscribe({ bufferSize: 8 });
  const p = ch.send(1); // slow has no room (not reading)
  ac.abort();
  await p;
  assert.deepEqual(await slow.next(), { done: true, value: undefined });
  assert.deepEqual(await fast.next(), { done: false, value: 1 });
});
