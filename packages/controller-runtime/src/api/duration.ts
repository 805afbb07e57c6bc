// Go durations as Kubernetes puts them in query strings (`?timeout=10s` on webhook calls and
// watches): time.ParseDuration's grammar, one parser for the API server and the webhook server.

const msPerUnit: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu, which Go accepts too
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Milliseconds in a Go duration (`10s`, `1m30s`, `250ms`, `-1.5h`, `0`), or undefined when the
 * text is not one (a missing unit, an unknown unit, anything left over).
 */
export function parseGoDuration(text: string): number | undefined {
  let s = text;
  let sign = 1;
  if (s.startsWith("-") || s.startsWith("+")) {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") return undefined;
  const re = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    total += Number(m[1]) * (msPerUnit[m[2]] ?? 0);
    if (re.lastIndex === s.length) return sign * total;
  }
  return undefined;
}
