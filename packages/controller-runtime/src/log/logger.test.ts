import assert from "node:assert/strict";
import { PassThrough, Writable } from "node:stream";
import { test } from "node:test";
import { formatConsoleLine } from "./console-format.js";
import { deferredLogger } from "./deferred-logger.js";
import { LogFlagError, loggerFromFlags, parseLogFlags } from "./flags.js";
import { InvalidLogLevelError, type Logger, type LoggerOptions, newLogger } from "./logger.js";
import { nullLogger } from "./null-logger.js";

/** A logger writing into memory; `lines()` returns what was written so far, parsed. */
function capture(opts: Omit<LoggerOptions, "destination"> = {}) {
  let text = "";
  const destination = {
    write: (chunk: string) => {
      text += chunk;
    },
  };
  const logger = newLogger({ ...opts, destination });
  return {
    logger,
    text: () => text,
    lines: () =>
      text
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

test("an info line is JSON with level, ts, msg and the key/values", () => {
  const { logger, lines } = capture();
  logger.info("Starting workers", { controller: "bucket", "worker count": 2 });
  const [line] = lines();
  assert.equal(line.level, "info");
  assert.equal(line.msg, "Starting workers");
  assert.equal(line.controller, "bucket");
  assert.equal(line["worker count"], 2);
  assert.ok(!Number.isNaN(Date.parse(String(line.ts))), `ts ${line.ts} is a timestamp`);
  assert.equal(line.logger, undefined, "no name, no logger key");
  assert.equal(line.pid, undefined, "pino's pid/hostname are not added");
});

test("names join with dots in the logger key and values accumulate", () => {
  const { logger, lines } = capture();
  const child = logger
    .withName("controller-runtime")
    .withValues({ controller: "bucket" })
    .withName("metrics")
    .withValues({ reconcileID: "abc" });
  child.info("hello", { extra: true });
  logger.info("root");
  const [first, second] = lines();
  assert.equal(first.logger, "controller-runtime.metrics");
  assert.equal(first.controller, "bucket");
  assert.equal(first.reconcileID, "abc");
  assert.equal(first.extra, true);
  assert.equal(second.logger, undefined, "the parent is unchanged");
  assert.equal(second.controller, undefined);
});

test("verbosity: v(n) lines are written only up to the configured level", () => {
  const info = capture();
  info.logger.info("zero");
  info.logger.v(1).info("one");
  assert.equal(info.logger.enabled(), true);
  assert.equal(info.logger.v(1).enabled(), false);
  assert.deepEqual(
    info.lines().map((l) => l.msg),
    ["zero"],
  );

  const two = capture({ level: 2 });
  two.logger.v(1).info("one");
  two.logger.v(1).v(1).info("two");
  two.logger.v(3).info("three");
  const lines = two.lines();
  assert.deepEqual(
    lines.map((l) => [l.msg, l.level, l.v]),
    [
      ["one", "debug", undefined],
      ["two", "debug", 2],
    ],
  );
  assert.equal(two.logger.v(2).enabled(), true);
  assert.equal(two.logger.v(3).enabled(), false);

  const debug = capture({ level: "debug" });
  debug.logger.withName("x").v(1).info("dbg");
  assert.equal(debug.lines()[0].logger, "x");
});

test("level error writes errors only, at every verbosity", () => {
  const { logger, lines } = capture({ level: "error" });
  logger.info("dropped");
  assert.equal(logger.enabled(), false);
  logger.v(4).error(new Error("boom"), "Reconciler error", { controller: "c" });
  const all = lines();
  assert.equal(all.length, 1);
  assert.equal(all[0].level, "error");
  assert.equal(all[0].error, "boom");
  assert.equal(all[0].controller, "c");
});

test("error records the error's message, and its stack only at debug verbosity", () => {
  const info = capture();
  info.logger.error(new Error("conflict"), "Reconciler error");
  const [line] = info.lines();
  assert.equal(line.msg, "Reconciler error");
  assert.equal(line.error, "conflict");
  assert.equal(line.stacktrace, undefined);

  const debug = capture({ level: "debug" });
  debug.logger.error(new Error("conflict"), "Reconciler error");
  const stack = String(debug.lines()[0].stacktrace);
  assert.match(stack, /^Error: conflict\n\s+at /);

  const other = capture();
  other.logger.error("plain string", "m1");
  other.logger.error(undefined, "m2");
  assert.deepEqual(
    other.lines().map((l) => l.error),
    ["plain string", null],
  );
});

test("Error values among key/values become their message", () => {
  const { logger, lines } = capture();
  logger.withValues({ cause: new TypeError("bad") }).info("x", { other: new Error("worse") });
  const [line] = lines();
  assert.equal(line.cause, "bad");
  assert.equal(line.other, "worse");
});

test("console format follows zap's development layout", () => {
  const { logger, text } = capture({ format: "console", level: "debug" });
  logger.withName("controller-runtime").withName("metrics").info("Serving metrics server", {
    bindAddress: ":8080",
    secure: false,
  });
  logger.error(new Error("nope"), "failed");
  const [first, second, ...stack] = text().split("\n");
  const cols = first.split("\t");
  assert.equal(cols.length, 5);
  assert.ok(!Number.isNaN(Date.parse(cols[0])));
  assert.deepEqual(cols.slice(1), [
    "INFO",
    "controller-runtime.metrics",
    "Serving metrics server",
    '{"bindAddress": ":8080", "secure": false}',
  ]);
  assert.deepEqual(second.split("\t").slice(1), ["ERROR", "failed", '{"error": "nope"}']);
  assert.equal(stack[0], "Error: nope");
  assert.match(stack[1], /^\s+at /);
});

test("formatConsoleLine passes through a line that is not JSON", () => {
  assert.equal(formatConsoleLine("not json"), "not json\n");
});

test("a Node writable stream is a destination", async () => {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on("data", (c: Buffer) => chunks.push(c.toString()));
  newLogger({ destination: stream }).info("via stream");
  stream.end();
  await new Promise((resolve) => stream.on("end", resolve));
  assert.equal(JSON.parse(chunks.join("")).msg, "via stream");
});

test("invalid levels are rejected with a clear error", () => {
  assert.throws(() => newLogger({ level: -1 }), InvalidLogLevelError);
  assert.throws(() => newLogger({ level: "trace" as "info" }), /use "info", "debug", "error"/);
  assert.throws(() => capture().logger.v(-1), RangeError);
});

test("nullLogger writes nothing and is never enabled", () => {
  const log = nullLogger();
  log.withName("a").withValues({ b: 1 }).v(3).info("x");
  log.error(new Error("e"), "x");
  assert.equal(log.enabled(), false);
  assert.equal(log.v(0).enabled(), false);
});

test("zap flags: defaults, --zap-devel, explicit flags winning, Go's flag forms", () => {
  assert.deepEqual(parseLogFlags([]), { level: "info", format: "json" });
  assert.deepEqual(parseLogFlags(["--zap-devel"]), { level: "debug", format: "console" });
  assert.deepEqual(parseLogFlags(["--zap-devel=false"]), { level: "info", format: "json" });
  assert.deepEqual(parseLogFlags(["--zap-devel", "--zap-encoder=json", "--zap-log-level", "error"]), {
    level: "error",
    format: "json",
  });
  assert.deepEqual(parseLogFlags(["--metrics-bind-address=:8080", "-zap-log-level=3", "pos"]), {
    level: 3,
    format: "json",
  });
  assert.deepEqual(parseLogFlags(["--zap-log-level=DEBUG"]).level, "debug");
  assert.throws(() => parseLogFlags(["--zap-log-level=loud"]), LogFlagError);
  assert.throws(() => parseLogFlags(["--zap-encoder=xml"]), /use json or console/);
  assert.throws(() => parseLogFlags(["--zap-log-level"]), /needs an argument/);
  assert.throws(() => parseLogFlags(["--zap-devel=maybe"]), LogFlagError);
});

test("loggerFromFlags builds a logger that honours the flags", () => {
  let text = "";
  const log = loggerFromFlags(["--zap-log-level=debug"], {
    destination: {
      write: (s: string) => {
        text += s;
      },
    },
  });
  log.v(1).info("visible");
  assert.equal(JSON.parse(text).msg, "visible");
});

test("a deferred logger is made on its first use, once, and writes as the logger made", () => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split("\n")) if (l.trim() !== "") lines.push(JSON.parse(l));
      cb();
    },
  });
  let made = 0;
  const log = deferredLogger(() => {
    made++;
    return newLogger({ destination }).withValues({ reconcileID: "r1" });
  });
  assert.equal(made, 0);
  assert.equal(log.v(1).enabled(), false);
  log.info("one");
  log.error(new Error("boom"), "two");
  assert.equal(made, 1);
  assert.deepEqual(
    lines.map((l) => [l.msg, l.reconcileID, l.error]),
    [
      ["one", "r1", undefined],
      ["two", "r1", "boom"],
    ],
  );
});

test("--zap-stacktrace-level and --zap-time-encoding: stack traces by level, timestamps as zap encodes them", () => {
  assert.deepEqual(parseLogFlags(["--zap-stacktrace-level=info", "--zap-time-encoding", "epoch"]), {
    level: "info",
    format: "json",
    stacktraceLevel: "info",
    timeEncoding: "epoch",
  });
  assert.throws(() => parseLogFlags(["--zap-stacktrace-level=warn"]), /use info, error or panic/);
  assert.throws(() => parseLogFlags(["--zap-time-encoding=unix"]), /use epoch, millis, nano/);
  const lines = (argv: string[], write: (l: Logger) => void) => {
    const out: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _e, done) {
        out.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    write(loggerFromFlags(argv, { destination }));
    return out;
  };
  const info = lines(["--zap-stacktrace-level=info", "--zap-time-encoding=millis"], (l) => l.info("hi"));
  assert.equal(typeof info[0].ts, "number");
  assert.match(String(info[0].stacktrace), /logger\.test\.ts/);
  const errors = lines(["--zap-stacktrace-level=error", "--zap-time-encoding=rfc3339"], (l) => {
    l.info("quiet");
    l.error(new Error("boom"), "failed");
  });
  assert.equal(errors[0].stacktrace, undefined);
  assert.match(String(errors[1].stacktrace), /Error: boom/);
  assert.match(String(errors[1].ts), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const none = lines(["--zap-devel", "--zap-encoder=json", "--zap-stacktrace-level=panic"], (l) =>
    l.error(new Error("boom"), "failed"),
  );
  assert.equal(none[0].stacktrace, undefined, "panic: no stack traces, even at debug verbosity");
});
