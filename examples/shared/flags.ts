// Command-line flags as a kubebuilder-scaffolded main.go takes them, shared by the examples'
// entry points. Go's flag package also accepts `--leader-elect=true|false`; node's parseArgs
// does not for booleans, so those are rewritten before parsing.
import { type ParseArgsConfig, parseArgs } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The flags every kubebuilder operator takes (`--zap-*` are read by `loggerFromFlags`). */
export const managerFlags = {
  kubeconfig: { type: "string" },
  "metrics-bind-address": { type: "string", default: ":8080" },
  "health-probe-bind-address": { type: "string", default: ":8081" },
  "leader-elect": { type: "boolean", default: false },
  "zap-log-level": { type: "string" },
  "zap-encoder": { type: "string" },
  "zap-devel": { type: "boolean" },
} as const satisfies Options;

type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ options: O; args: string[]; strict: true; allowPositionals: false }>
>["values"];

/** Parses `argv` against `options`; throws (with the flag's name) on unknown flags or bad values. */
export function parseFlags<O extends Options>(
  options: O,
  argv: readonly string[] = process.argv.slice(2),
): Parsed<O> {
  return parseArgs({ options, args: goBooleans(argv, options), strict: true, allowPositionals: false })
    .values;
}

function goBooleans(argv: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (const arg of argv) {
    const m = /^--?([\w-]+)=(true|false)$/.exec(arg);
    if (m && options[m[1]]?.type === "boolean") {
      if (m[2] === "true") out.push(`--${m[1]}`);
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** A Go duration as flags take it (`500ms`, `10s`, `1m`), in milliseconds. */
export function parseDuration(flag: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (!m) throw new Error(`invalid value "${text}" for --${flag}: use a duration such as 10s or 500ms`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as "ms" | "s" | "m" | "h"];
  return Number(m[1]) * unit;
}
