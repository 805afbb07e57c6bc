// A small Go-style `fmt.Sprintf` for event messages: %v %s %d %q %f %x %t %% with optional flags,
// width and precision. Missing and extra arguments are marked as Go marks them.

const VERB = /%([-+# 0]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/g;

function plain(v: unknown): string {
  if (v instanceof Error) return v.message;
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "object") {
    try {
      return JSON.stringify(v);
    } catch {
      return String(v);
    }
  }
  return String(v);
}

function pad(s: string, flags: string, width: string | undefined): string {
  if (!width) return s;
  const w = Number(width);
  if (s.length >= w) return s;
  if (flags.includes("-")) return s.padEnd(w);
  if (flags.includes("0") && /^[-+]?\d/.test(s)) {
    const sign = /^[-+]/.test(s) ? s[0] : "";
    return sign + s.slice(sign.length).padStart(w - sign.length, "0");
  }
  return s.padStart(w);
}

function formatOne(verb: string, flags: string, precision: string | undefined, v: unknown): string {
  switch (verb) {
    case "d":
      if (typeof v === "number" || typeof v === "bigint") {
        const s = typeof v === "number" ? String(Math.trunc(v)) : String(v);
        return flags.includes("+") && !s.startsWith("-") ? `+${s}` : s;
      }
      return `%!d(${plain(v)})`;
    case "f":
    case "g":
    case "e":
      if (typeof v !== "number") return `%!${verb}(${plain(v)})`;
      if (verb === "e") return v.toExponential(precision === undefined ? 6 : Number(precision));
      if (verb === "g") return precision === undefined ? String(v) : v.toPrecision(Number(precision));
      return v.toFixed(precision === undefined ? 6 : Number(precision));
    case "x":
    case "X": {
      const s =
        typeof v === "number" || typeof v === "bigint"
          ? v.toString(16)
          : Buffer.from(plain(v), "utf8").toString("hex");
      return verb === "X" ? s.toUpperCase() : s;
    }
    case "q":
      return JSON.stringify(plain(v));
    case "t":
      return typeof v === "boolean" ? String(v) : `%!t(${plain(v)})`;
    default: {
      const s = plain(v); // %v %s and anything else
      return precision !== undefined && verb === "s" ? s.slice(0, Number(precision)) : s;
    }
  }
}

export function sprintf(format: string, ...args: unknown[]): string {
  let next = 0;
  const out = format.replace(
    VERB,
    (_m, flags: string, width: string | undefined, precision, verb: string) => {
      if (verb === "%") return "%";
      if (next >= args.length) return `%!${verb}(MISSING)`;
      return pad(formatOne(verb, flags, precision, args[next++]), flags, width);
    },
  );
  if (next >= args.length) return out;
  return `${out}%!(EXTRA ${args
    .slice(next)
    .map((a) => `${typeof a}=${plain(a)}`)
    .join(", ")})`;
}
