// The logr-like Logger and its pino implementation. Verbosity is filtered here, before pino is
// called, so a disabled `v(2).info(...)` costs one comparison; pino only encodes the lines that
// are written.
import { pino } from "pino";
import { consoleDestination } from "./console-format.js";

/** Structured key/value pairs attached to one line or to every line of a logger. */
export type KeyValues = Record<string, unknown>;

/**
 * A structured logger with logr's semantics: `info` lines carry a verbosity (`v(0)` is info,
 * higher is more detailed), `error` lines are written at every verbosity, names nest with `.`.
 */
export interface Logger {
  /** Writes `msg` with `kv` when this logger's verbosity is enabled. */
  info(msg: string, kv?: KeyValues): void;
  /** Writes `msg` with `error` set to the message of `err` (and its stack at debug verbosity). */
  error(err: unknown, msg: string, kv?: KeyValues): void;
  /** A logger `level` steps more verbose than this one (`v(1).v(1)` is `v(2)`). */
  v(level: number): Logger;
  /** True when `info` on this logger writes anything: guard costly key/values with it. */
  enabled(): boolean;
  /** A child whose `logger` key gets `name` appended, joined with `.`. */
  withName(name: string): Logger;
  /** A child that adds `kv` to every line. */
  withValues(kv: KeyValues): Logger;
}

/** `"info"` is verbosity 0, `"debug"` verbosity 1, a number N enables `v(0)` … `v(N)`. */
export type LogLevel = number | "info" | "debug" | "error";

export interface LoggerOptions {
  /**
   * The most verbose level written: `info` lines with `v(n)` for n above it are dropped;
   * `"error"` writes errors only.
   * Default: `"info"`.
   */
  level?: LogLevel;
  /**
   * `"json"`: one JSON object a line (keys `level`, `ts`, `logger`, `msg`, then key/values).
   * `"console"`: zap's development layout, tab-separated, for people reading a terminal.
   * Default: `"json"`.
   */
  format?: "json" | "console";
  /**
   * Where lines go. Writes are synchronous on the default destination so that no line is lost
   * when the process exits.
   * Default: standard output.
   */
  destination?: NodeJS.WritableStream | pino.DestinationStream;
  /**
   * Lines at or above this level carry a `stacktrace` (zap's StacktraceLevel, `--zap-stacktrace-level`):
   * `"info"` every line, `"error"` errors, `"panic"` none. Default: errors, at debug verbosity only.
   */
  stacktraceLevel?: "info" | "error" | "panic";
  /**
   * How `ts` is written (zap's TimeEncoder, `--zap-time-encoding`): `"epoch"` (seconds, a number),
   * `"millis"`, `"nano"`, `"iso8601"`, `"rfc3339"` or `"rfc3339nano"`. Default: `"rfc3339nano"`
   * at millisecond precision (`2026-01-02T15:04:05.123Z`).
   */
  timeEncoding?: TimeEncoding;
}

export type TimeEncoding = "epoch" | "millis" | "nano" | "iso8601" | "rfc3339" | "rfc3339nano";

/** The `ts` field as `encoding` writes it, for pino's `timestamp` (`,"ts":...`). */
export function timestampFor(encoding: TimeEncoding): () => string {
  switch (encoding) {
    case "epoch":
      return () => `,"ts":${Date.now() / 1000}`;
    case "millis":
      return () => `,"ts":${Date.now()}`;
    case "nano":
      return () => `,"ts":${BigInt(Date.now()) * 1_000_000n}`;
    case "rfc3339":
      return () => `,"ts":"${new Date().toISOString().replace(/\.\d+Z$/, "Z")}"`;
    case "iso8601":
      // zap's ISO8601TimeEncoder: milliseconds and a numeric zone offset.
      return () => `,"ts":"${new Date().toISOString().replace(/Z$/, "+0000")}"`;
    case "rfc3339nano":
      return () => `,"ts":"${new Date().toISOString()}"`;
    default:
      throw new Error(
        `invalid time encoding ${JSON.stringify(encoding)}: use epoch, millis, nano, iso8601, rfc3339 or rfc3339nano`,
      );
  }
}

export class InvalidLogLevelError extends Error {
  override readonly name = "InvalidLogLevelError";
  readonly code = "ERR_INVALID_LOG_LEVEL";
  constructor(level: unknown) {
    super(
      `invalid log level ${JSON.stringify(level)}: use "info", "debug", "error" or a verbosity number >= 0`,
    );
  }
}

/** Verbosity threshold for a level; -1 means errors only. */
export function verbosityOf(level: LogLevel): number {
  if (level === "info") return 0;
  if (level === "debug") return 1;
  if (level === "error") return -1;
  if (typeof level === "number" && Number.isInteger(level) && level >= 0) return level;
  throw new InvalidLogLevelError(level);
}

/** A Logger writing through pino, JSON by default. */
export function newLogger(opts: LoggerOptions = {}): Logger {
  const threshold = verbosityOf(opts.level ?? "info");
  const format = opts.format ?? "json";
  if (format !== "json" && format !== "console") {
    throw new Error(`invalid log format ${JSON.stringify(format)}: use "json" or "console"`);
  }
  let dest: pino.DestinationStream | NodeJS.WritableStream =
    opts.destination ?? pino.destination({ dest: 1, sync: true });
  if (format === "console") dest = consoleDestination(dest);
  const root = pino(
    {
      // Filtering happens in PinoLogger; pino only needs to let debug lines through.
      level: threshold >= 1 ? "debug" : threshold === 0 ? "info" : "error",
      base: undefined,
      messageKey: "msg",
      timestamp: timestampFor(opts.timeEncoding ?? "rfc3339nano"),
      formatters: { level: (label) => ({ level: label }) },
    },
    dest,
  );
  const stacks = opts.stacktraceLevel;
  if (stacks !== undefined && stacks !== "info" && stacks !== "error" && stacks !== "panic") {
    throw new Error(`invalid stacktrace level ${JSON.stringify(stacks)}: use "info", "error" or "panic"`);
  }
  return new PinoLogger(root, new Binding(() => root, undefined, {}), threshold, 0, "", stacks);
}

/**
 * A logger's pino instance with its name and values bound, made on first use: a controller makes a
 * logger with the request's values for every reconcile, and most write nothing (pino's child()
 * costs a few microseconds, several times a reconcile's own bookkeeping).
 */
class Binding {
  #bound: pino.Logger | undefined;
  #values: KeyValues | undefined;
  constructor(
    private readonly make: () => pino.Logger,
    private readonly parent: Binding | undefined,
    private readonly own: KeyValues,
  ) {}

  get bound(): pino.Logger {
    this.#bound ??= this.make();
    return this.#bound;
  }

  /** Every value bound, kept so withName can rebind from the root: pino cannot replace a bound key. */
  get values(): KeyValues {
    this.#values ??= this.parent === undefined ? this.own : { ...this.parent.values, ...this.own };
    return this.#values;
  }
}

class PinoLogger implements Logger {
  constructor(
    private readonly root: pino.Logger,
    private readonly binding: Binding,
    private readonly threshold: number,
    private readonly verbosity: number,
    private readonly name: string,
    private readonly stacks: "info" | "error" | "panic" | undefined,
  ) {}

  info(msg: string, kv?: KeyValues): void {
    if (this.verbosity > this.threshold) return;
    const fields = kv === undefined ? {} : plainValues(kv);
    if (this.stacks === "info" && fields.stacktrace === undefined) {
      fields.stacktrace = new Error().stack?.split("\n").slice(2).join("\n");
    }
    if (this.verbosity === 0) this.binding.bound.info(fields, msg);
    else {
      // zap has no name for levels below debug; keep the number so `v(3)` lines can be found.
      if (this.verbosity >= 2) fields.v = this.verbosity;
      this.binding.bound.debug(fields, msg);
    }
  }

  error(err: unknown, msg: string, kv?: KeyValues): void {
    const fields = kv === undefined ? {} : plainValues(kv);
    fields.error = errorMessage(err);
    // A caller's own stacktrace (the controller passes the reconciler's) wins over the error's.
    const wanted = this.stacks === undefined ? this.threshold >= 1 : this.stacks !== "panic";
    if (fields.stacktrace === undefined && wanted) {
      const stack = stackOf(err);
      if (stack) fields.stacktrace = stack;
    }
    this.binding.bound.error(fields, msg);
  }

  v(level: number): Logger {
    if (!Number.isInteger(level) || level < 0) {
      throw new RangeError(`verbosity must be an integer >= 0, got ${level}`);
    }
    if (level === 0) return this;
    return new PinoLogger(
      this.root,
      this.binding,
      this.threshold,
      this.verbosity + level,
      this.name,
      this.stacks,
    );
  }

  enabled(): boolean {
    return this.verbosity <= this.threshold;
  }

  withName(name: string): Logger {
    const full = this.name === "" ? name : `${this.name}.${name}`;
    const values = this.binding.values;
    const root = this.root;
    const binding = new Binding(() => root.child({ logger: full, ...values }), undefined, values);
    return new PinoLogger(root, binding, this.threshold, this.verbosity, full, this.stacks);
  }

  withValues(kv: KeyValues): Logger {
    const plain = plainValues(kv);
    const parent = this.binding;
    const binding = new Binding(() => parent.bound.child(plain), parent, plain);
    return new PinoLogger(this.root, binding, this.threshold, this.verbosity, this.name, this.stacks);
  }
}

/** Errors become their message (as zap writes `err.Error()`); JSON.stringify would give `{}`. */
function plainValues(kv: KeyValues): KeyValues {
  const out: KeyValues = {};
  for (const key of Object.keys(kv)) {
    const value = kv[key];
    out[key] = value instanceof Error ? value.message : value;
  }
  return out;
}

function errorMessage(err: unknown): string | null {
  if (err instanceof Error) {
    // Name the cause when the message does not already carry it (Go's wrapped %v reads so).
    const cause = err.cause;
    const causeText = cause instanceof Error ? cause.message : undefined;
    return causeText && !err.message.includes(causeText) ? `${err.message}: ${causeText}` : err.message;
  }
  if (err === undefined || err === null) return null;
  return String(err);
}

/**
 * `err`'s stack followed by each cause's ("caused by: ..."), at most 5 deep: a wrapper's own
 * stack points into the library, the cause's into the user's code.
 */
export function stackOf(err: unknown): string | undefined {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e.stack) parts.push(depth === 0 ? e.stack : `caused by: ${e.stack}`);
    e = e.cause;
  }
  return parts.length ? parts.join("\n") : undefined;
}
