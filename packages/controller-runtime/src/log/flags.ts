// kubebuilder's zap flags, so that a scaffolded `main` translates line for line:
// `--zap-log-level`, `--zap-devel`, `--zap-encoder`, `--zap-stacktrace-level`,
// `--zap-time-encoding`. Other arguments are left alone.
import {
  type Logger,
  type LoggerOptions,
  type LogLevel,
  newLogger,
  type TimeEncoding,
  verbosityOf,
} from "./logger.js";

const timeEncodings: readonly TimeEncoding[] = [
  "epoch",
  "millis",
  "nano",
  "iso8601",
  "rfc3339",
  "rfc3339nano",
];

export class LogFlagError extends Error {
  override readonly name = "LogFlagError";
  readonly code = "ERR_LOG_FLAG";
}

/**
 * Reads the zap flags from `argv` (Go's forms: `--flag=value`, `--flag value`, one or two dashes).
 * `--zap-devel` selects the console format and debug level; explicit flags win over it.
 * Throws LogFlagError on a value it cannot use.
 */
export function parseLogFlags(argv: readonly string[]): LoggerOptions {
  let devel = false;
  let level: LogLevel | undefined;
  let format: "json" | "console" | undefined;
  let stacktraceLevel: LoggerOptions["stacktraceLevel"];
  let timeEncoding: TimeEncoding | undefined;
  for (let i = 0; i < argv.length; i++) {
    const match =
      /^--?(zap-devel|zap-log-level|zap-encoder|zap-stacktrace-level|zap-time-encoding)(?:=(.*))?$/s.exec(
        argv[i],
      );
    if (!match) continue;
    const [, flag, inline] = match;
    if (flag === "zap-devel") {
      devel = parseBool(flag, inline ?? "true");
      continue;
    }
    let value = inline;
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new LogFlagError(`flag needs an argument: --${flag}`);
      value = argv[++i];
    }
    if (flag === "zap-log-level") level = parseLevel(value);
    else if (flag === "zap-stacktrace-level") {
      if (value !== "info" && value !== "error" && value !== "panic") {
        throw new LogFlagError(
          `invalid value ${JSON.stringify(value)} for --zap-stacktrace-level: use info, error or panic`,
        );
      }
      stacktraceLevel = value;
    } else if (flag === "zap-time-encoding") {
      if (!timeEncodings.includes(value as TimeEncoding)) {
        throw new LogFlagError(
          `invalid value ${JSON.stringify(value)} for --zap-time-encoding: use ${timeEncodings.join(", ")}`,
        );
      }
      timeEncoding = value as TimeEncoding;
    } else if (value === "json" || value === "console") format = value;
    else
      throw new LogFlagError(`invalid value ${JSON.stringify(value)} for --zap-encoder: use json or console`);
  }
  return {
    level: level ?? (devel ? "debug" : "info"),
    format: format ?? (devel ? "console" : "json"),
    ...(stacktraceLevel ? { stacktraceLevel } : {}),
    ...(timeEncoding ? { timeEncoding } : {}),
  };
}

/** A Logger configured from kubebuilder's zap flags; `destination` as in newLogger. */
export function loggerFromFlags(
  argv: readonly string[] = process.argv.slice(2),
  opts: Pick<LoggerOptions, "destination"> = {},
): Logger {
  return newLogger({ ...parseLogFlags(argv), ...opts });
}

function parseBool(flag: string, value: string): boolean {
  // The spellings Go's strconv.ParseBool accepts.
  if (["1", "t", "T", "true", "TRUE", "True"].includes(value)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(value)) return false;
  throw new LogFlagError(`invalid boolean value ${JSON.stringify(value)} for --${flag}`);
}

function parseLevel(value: string): LogLevel {
  const lower = value.toLowerCase();
  if (lower === "info" || lower === "debug" || lower === "error") return lower;
  // zap's panic level writes nothing we emit but errors, the nearest we have.
  if (lower === "panic") return "error";
  if (/^\d+$/.test(value)) {
    const n = Number(value);
    verbosityOf(n);
    return n;
  }
  throw new LogFlagError(
    `invalid value ${JSON.stringify(value)} for --zap-log-level: use debug, info, error, panic or an integer >= 0`,
  );
}
