// What the log says when the user's reconciler fails: one error-level line per failure, with the
// user's own stack (the file and line of the bug, not our wrapper's) and the cause's. Routine
// outcomes (a 409 conflict, a reconcile the shutdown cut short) are info lines without a stack.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { eventually } from "../envtest/index.js";
import { newLogger } from "../log/index.js";
import type { Reconciler } from "../reconcile/index.js";
import { channel, newChannel } from "../source/index.js";
import { enqueueRequestForObject } from "../handler/index.js";
import type { GenericEvent } from "../event/index.js";
import { StatusError } from "../rest/index.js";
import { newControllerContext, newUnmanagedController } from "./index.js";

interface Line {
  level: string;
  msg: string;
  error?: string;
  stacktrace?: string;
}

async function runFailing(
  reconciler: Reconciler,
  failures: number,
): Promise<{ lines: Line[]; calls: number; all: Line[] }> {
  const lines: Line[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split("\n")) if (l) lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  let calls = 0;
  const counted: Reconciler = {
    reconcile: (req, ctx) => {
      calls++;
      return reconciler.reconcile(req, ctx);
    },
  };
  const events = newChannel<GenericEvent>({ capacity: 1 });
  const c = newUnmanagedController("errors", newControllerContext({ logger: newLogger({ destination }) }), {
    reconciler: counted,
    skipNameValidation: true,
  });
  await c.watch(channel(events, enqueueRequestForObject()));
  const stop = new AbortController();
  const done = c.start(stop.signal);
  await events.send({
    object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "ns" } },
  });
  await eventually(`${failures} failed reconciles`, () => calls >= failures, { timeoutMs: 30_000 });
  stop.abort();
  await done;
  return { lines: lines.filter((l) => l.msg === "Reconciler error"), calls, all: lines };
}

function readsUndefined(): never {
  const config = undefined as unknown as { spec: { replicas: number } };
  return config.spec.replicas as never; // the user's bug: this line is in the stack
}

test("a TypeError in the reconciler is logged with the user's file and line, once per failure", async () => {
  const { lines, calls } = await runFailing({ reconcile: async () => readsUndefined() }, 3);
  assert.equal(lines.length, calls, "one line per failed reconcile");
  for (const line of lines) {
    assert.equal(line.level, "error");
    assert.match(line.error ?? "", /TypeError: Cannot read properties of undefined \(reading 'spec'\)/);
    const stack = line.stacktrace ?? "";
    assert.match(stack.split("\n")[1] ?? "", /readsUndefined .*reconciler-errors\.test\.ts:\d+/);
  }
});

test("an error with a cause is logged with both stacks and both messages", async () => {
  const { lines } = await runFailing(
    {
      reconcile: async () => {
        const cause = new Error("bucket quota exceeded");
        throw new Error("could not create the bucket", { cause });
      },
    },
    1,
  );
  assert.ok(lines.length >= 1);
  assert.equal(lines[0]?.error, "could not create the bucket: bucket quota exceeded");
  assert.match(lines[0]?.stacktrace ?? "", /^Error: could not create the bucket\n/);
  assert.match(
    lines[0]?.stacktrace ?? "",
    /\ncaused by: Error: bucket quota exceeded\n\s+at .*reconciler-errors\.test\.ts/,
  );
});

test("a 409 conflict is routine: an info line without a stack, and the key is retried", async () => {
  const conflict = new StatusError({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    reason: "Conflict",
    code: 409,
    message:
      'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
  });
  const { lines, calls, all } = await runFailing({ reconcile: async () => Promise.reject(conflict) }, 2);
  assert.ok(calls >= 2, "retried");
  assert.deepEqual(lines, [], "no error line");
  const info = all.filter((l) => l.msg.startsWith("Reconcile lost a write race"));
  assert.ok(info.length >= 1 && info.every((l) => l.level === "info" && l.stacktrace === undefined));
  assert.match(info[0]?.error ?? "", /the object has been modified/);
});

test("a reconcile the shutdown cuts short is an info line, not an error", async () => {
  const lines: Line[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split("\n")) if (l) lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  let started = false;
  const events = newChannel<GenericEvent>({ capacity: 1 });
  const c = newUnmanagedController("shutdown", newControllerContext({ logger: newLogger({ destination }) }), {
    reconciler: {
      reconcile: (_req, ctx) =>
        new Promise((_, reject) => {
          started = true;
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
        }),
    },
    skipNameValidation: true,
  });
  await c.watch(channel(events, enqueueRequestForObject()));
  const stop = new AbortController();
  const done = c.start(stop.signal);
  await events.send({
    object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "ns" } },
  });
  await eventually("the reconcile started", () => started, { timeoutMs: 30_000 });
  stop.abort();
  await done;
  assert.deepEqual(
    lines.filter((l) => l.level === "error"),
    [],
    "no error line",
  );
  assert.ok(lines.some((l) => l.msg === "Reconcile ended by shutdown" && l.level === "info"));
});
