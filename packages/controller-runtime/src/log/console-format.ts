// The console format: zap's development layout (`ts<TAB>LEVEL<TAB>logger<TAB>msg<TAB>{kv}` and
// the stack on the lines below), so a controller-runtime user reads it at a glance.
// It is a pino destination that rewrites each JSON line synchronously in-process; pino-pretty's
// layout (bracketed time, `err` on separate lines) differs from zap's, and a worker transport can
// lose the last lines of a short-lived process.
import { styleText } from "node:util";
import type { pino } from "pino";

type Writable = pino.DestinationStream | NodeJS.WritableStream;

const levelColors: Record<string, "blue" | "magenta" | "red" | "yellow"> = {
  debug: "magenta",
  info: "blue",
  warn: "yellow",
  error: "red",
};

/** Wraps `dest` so that the JSON lines pino writes arrive in the console format. */
export function consoleDestination(dest: Writable): pino.DestinationStream {
  const color = (dest as { isTTY?: boolean }).isTTY === true;
  return {
    write(line: string): void {
      dest.write(formatConsoleLine(line, color));
    },
  };
}

/** Formats one JSON line (as pino writes it) in zap's console layout, ending with a newline. */
export function formatConsoleLine(line: string, color = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith("\n") ? line : `${line}\n`;
  }
  const { level, ts, logger, msg, stacktrace, ...fields } = entry;
  const label = String(level ?? "info");
  let levelText = label.toUpperCase();
  if (color) levelText = styleText(levelColors[label] ?? "yellow", levelText);
  const parts = [String(ts ?? ""), levelText];
  if (typeof logger === "string" && logger !== "") parts.push(logger);
  parts.push(String(msg ?? ""));
  const keys = Object.keys(fields);
  if (keys.length > 0) {
    // zap's console encoder prints the fields as JSON with a space after `:` and `,`.
    parts.push(`{${keys.map((k) => `${JSON.stringify(k)}: ${stringify(fields[k])}`).join(", ")}}`);
  }
  let out = parts.join("\t");
  if (typeof stacktrace === "string") out += `\n${stacktrace}`;
  return `${out}\n`;
}

function stringify(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}
