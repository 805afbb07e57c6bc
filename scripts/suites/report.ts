// `tsx scripts/suites/report.ts RESULTS.jsonl [--rerun RERUN.jsonl] [--worse-list FILE]`: the
// Markdown report of a run of scripts/suites/run.sh. One table per suite (package | embedded | real
// | verdict), then the specs that fail on the embedded server but pass on the real one, then those
// that fail on both. Exits 1 iff the embedded server does worse than the real one for some package:
// a spec failing on embedded that passes on real (that does not fail there, when a suite names no
// passes), a spec passing on real that did not run on embedded, or a package that ran on real but
// not on embedded.
// --worse-list writes "suite<TAB>package" for each package judged worse, for run.sh to run again.
// --rerun gives those packages' second run on embedded: a spec counts against the embedded server
// only if it did worse in both runs; one that did in the first only is listed as flaky (a busy
// machine slows others' timing-bound specs, which says nothing of the server's behaviour).
import { existsSync, readFileSync, writeFileSync } from "node:fs";

interface Result {
  suite: string;
  package: string;
  server: string;
  passed: number;
  failed: number;
  skipped: number;
  failures: string[];
  /** Optional, beyond the contract: the names of the specs that passed. With it on both sides, a spec
   * counts against the embedded server only if it passed on real (not merely did not fail there),
   * and specs that passed on real but did not run on embedded count too. */
  passes?: string[];
  error?: string;
}

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args.splice(i, 2)[1];
};
const rerunFile = option("--rerun");
const worseListFile = option("--worse-list");
const file = args[0];
if (!file) {
  console.error(
    "usage: tsx scripts/suites/report.ts RESULTS.jsonl [--rerun RERUN.jsonl] [--worse-list FILE]",
  );
  process.exit(2);
}
function readResults(path: string | undefined): Result[] {
  const out: Result[] = [];
  for (const line of path && existsSync(path) ? readFileSync(path, "utf8").split("\n") : []) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as Result);
    } catch {
      console.error(`report: not JSON, skipped: ${line.slice(0, 120)}`);
    }
  }
  return out;
}
const results = readResults(file);
/** The second run on embedded of the packages the first judged worse, by suite and package. */
const reruns = new Map(
  readResults(rerunFile)
    .filter((r) => r.server === "embedded")
    .map((r) => [`${r.suite}\t${r.package}`, r]),
);
const worseList: string[] = [];

// "spec name: reason": the name is what precedes the first ": ".
const specName = (f: string) => {
  const i = f.indexOf(": ");
  return i < 0 ? f : f.slice(0, i);
};
const counts = (r: Result | undefined, ran: boolean) =>
  r ? `${r.passed} / ${r.failed} / ${r.skipped}` : ran ? "did not run" : "-";

let worse = false;
const suites = [...new Set(results.map((r) => r.suite))];
const out: string[] = [];
for (const suite of suites) {
  // The last line wins when a package was run twice on one server.
  const byPkg = new Map<string, Map<string, Result>>();
  for (const r of results.filter((x) => x.suite === suite)) {
    if (!byPkg.has(r.package)) byPkg.set(r.package, new Map());
    byPkg.get(r.package)!.set(r.server, r);
  }
  const ran = (server: string) => [...byPkg.values()].some((m) => m.has(server));
  const rows: string[] = [];
  const embeddedOnly: string[] = [];
  const regressions: string[] = [];
  const both: string[] = [];
  const realOnly: string[] = [];
  const flakes: string[] = [];
  for (const [pkg, servers] of [...byPkg].sort(([a], [b]) => a.localeCompare(b))) {
    // A package that did not run on embedded at first may have in its second run.
    const emb = servers.get("embedded") ?? reruns.get(`${suite}\t${pkg}`);
    const real = servers.get("real");
    let verdict: string;
    if (!real) {
      verdict = ran("real") ? "did not run on real" : "embedded only";
      for (const f of emb?.failures ?? []) embeddedOnly.push(`- ${pkg}: ${f}`);
    } else if (!emb) {
      verdict = "**worse**: did not run on embedded";
      regressions.push(`- ${pkg}: did not run on embedded`);
      worseList.push(`${suite}\t${pkg}`);
    } else {
      const first = judge(emb, real);
      const again = reruns.get(`${suite}\t${pkg}`);
      // With a second run, only what did worse both times counts; the rest was flaky.
      const second = again ? judge(again, real) : undefined;
      const confirmed = (xs: string[], ys: string[] | undefined) =>
        ys ? xs.filter((x) => ys.some((y) => specName(y) === specName(x))) : xs;
      const lost = confirmed(first.lost, second?.lost);
      const missing = confirmed(first.missing, second?.missing);
      const flaky = [...first.lost, ...first.missing].filter(
        (x) => !lost.includes(x) && !missing.includes(x),
      );
      for (const f of lost) regressions.push(`- ${pkg}: ${f}`);
      if (missing.length) {
        const why = first.unmatched.length ? `; on embedded: ${first.unmatched.join("; ")}` : "";
        const some = missing.slice(0, 3).join(", ") + (missing.length > 3 ? ", ..." : "");
        regressions.push(
          `- ${pkg}: ${missing.length} specs passing on real did not run on embedded (${some})${why}`,
        );
      } else for (const f of first.unmatched) embeddedOnly.push(`- ${pkg}: ${f}`);
      for (const f of flaky) flakes.push(`- ${pkg}: ${f}`);
      for (const f of emb.failures.filter((x) => first.realFailed.has(specName(x))))
        both.push(`- ${pkg}: ${f}`);
      for (const f of first.gained) realOnly.push(`- ${pkg}: ${f}`);
      const bad = [
        lost.length ? `${lost.length} fail only on embedded` : "",
        missing.length ? `${missing.length} did not run on embedded` : "",
      ].filter((x) => x);
      const flakyNote = flaky.length ? ` (${flaky.length} flaky on embedded: passed when run again)` : "";
      verdict = bad.length
        ? `**worse**: ${bad.join(", ")}`
        : first.gained.length
          ? `better: ${first.gained.length} fail only on real${flakyNote}`
          : `same${flakyNote}`;
      if (bad.length) worseList.push(`${suite}\t${pkg}`);
    }
    if (regressions.length) worse = true;
    rows.push(`| ${pkg} | ${counts(emb, ran("embedded"))} | ${counts(real, ran("real"))} | ${verdict} |`);
  }
  out.push(`### ${suite}`, "");
  out.push("| package | embedded passed / failed / skipped | real passed / failed / skipped | verdict |");
  out.push("|---|---|---|---|", ...rows, "");
  const sum = (server: string) => {
    const rs = [...byPkg.values()].map((m) => m.get(server)).filter((r): r is Result => !!r);
    return rs.length
      ? `${rs.reduce((n, r) => n + r.passed, 0)} / ${rs.reduce((n, r) => n + r.failed, 0)} / ${rs.reduce((n, r) => n + r.skipped, 0)}`
      : "-";
  };
  out.push(`Totals: embedded ${sum("embedded")}; real ${sum("real")}.`, "");
  if (regressions.length) out.push("Failing on embedded, passing on real:", "", ...regressions, "");
  if (both.length) out.push("Failing on both (reason on embedded):", "", ...both, "");
  if (embeddedOnly.length)
    out.push("Failing on embedded, not run on real (not compared):", "", ...embeddedOnly, "");
  if (realOnly.length) out.push("Failing on real only:", "", ...realOnly, "");
  if (flakes.length)
    out.push(
      "Failing on embedded in the first run only (passed when run again; not counted):",
      "",
      ...flakes,
      "",
    );
}
if (!suites.length) out.push("No results.");
if (worseListFile) writeFileSync(worseListFile, worseList.map((l) => `${l}\n`).join(""));
console.log(out.join("\n"));
process.exit(worse ? 1 : 0);

/**
 * How one embedded run of a package compares with the real one: `lost` (failing on embedded,
 * passing on real), `missing` (passing on real, not run on embedded), `unmatched` (failing on
 * embedded, not run on real), `gained` (failing on real only).
 */
function judge(emb: Result, real: Result) {
  const realFailed = new Set(real.failures.map(specName));
  const embFailed = new Set(emb.failures.map(specName));
  let lost: string[];
  let missing: string[] = [];
  let unmatched: string[] = [];
  if (real.passes && emb.passes) {
    const realPassed = new Set(real.passes);
    const embPassed = new Set(emb.passes);
    lost = emb.failures.filter((f) => realPassed.has(specName(f)));
    missing = real.passes.filter((n) => !embPassed.has(n) && !embFailed.has(n));
    unmatched = emb.failures.filter((f) => !realPassed.has(specName(f)) && !realFailed.has(specName(f)));
  } else {
    lost = emb.failures.filter((f) => !realFailed.has(specName(f)));
  }
  const gained = real.failures.filter((f) => !embFailed.has(specName(f)));
  return { realFailed, lost, missing, unmatched, gained };
}
