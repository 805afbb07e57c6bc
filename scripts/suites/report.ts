// `tsx scripts/suites/report.ts RESULTS.jsonl`: the Markdown report of a run of scripts/suites/run.sh.
// One table per suite (package | embedded | real | verdict), then the specs that fail on the
// embedded server but pass on the real one, then those that fail on both. Exits 1 iff the embedded
// server does worse than the real one for some package: a spec failing on embedded that passes on
// real (that does not fail there, when a suite names no passes), a spec passing on real that did
// not run on embedded, or a package that ran on real but not on embedded.
import { existsSync, readFileSync } from "node:fs";

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

const file = process.argv[2];
if (!file) {
  console.error("usage: tsx scripts/suites/report.ts RESULTS.jsonl");
  process.exit(2);
}
const results: Result[] = [];
for (const line of existsSync(file) ? readFileSync(file, "utf8").split("\n") : []) {
  if (!line.trim()) continue;
  try {
    results.push(JSON.parse(line) as Result);
  } catch {
    console.error(`report: not JSON, skipped: ${line.slice(0, 120)}`);
  }
}

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
  for (const [pkg, servers] of [...byPkg].sort(([a], [b]) => a.localeCompare(b))) {
    const emb = servers.get("embedded");
    const real = servers.get("real");
    let verdict: string;
    if (!real) {
      verdict = ran("real") ? "did not run on real" : "embedded only";
      for (const f of emb?.failures ?? []) embeddedOnly.push(`- ${pkg}: ${f}`);
    } else if (!emb) {
      verdict = "**worse**: did not run on embedded";
      regressions.push(`- ${pkg}: did not run on embedded`);
    } else {
      const realFailed = new Set(real.failures.map(specName));
      const embFailed = new Set(emb.failures.map(specName));
      let lost: string[]; // failing on embedded, passing on real
      let missing: string[] = []; // passing on real, not run on embedded
      let unmatched: string[] = []; // failing on embedded, not run on real
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
      for (const f of lost) regressions.push(`- ${pkg}: ${f}`);
      if (missing.length) {
        const why = unmatched.length ? `; on embedded: ${unmatched.join("; ")}` : "";
        const some = missing.slice(0, 3).join(", ") + (missing.length > 3 ? ", ..." : "");
        regressions.push(
          `- ${pkg}: ${missing.length} specs passing on real did not run on embedded (${some})${why}`,
        );
      } else for (const f of unmatched) embeddedOnly.push(`- ${pkg}: ${f}`);
      for (const f of emb.failures.filter((x) => realFailed.has(specName(x)))) both.push(`- ${pkg}: ${f}`);
      for (const f of gained) realOnly.push(`- ${pkg}: ${f}`);
      const bad = [
        lost.length ? `${lost.length} fail only on embedded` : "",
        missing.length ? `${missing.length} did not run on embedded` : "",
      ].filter((x) => x);
      verdict = bad.length
        ? `**worse**: ${bad.join(", ")}`
        : gained.length
          ? `better: ${gained.length} fail only on real`
          : "same";
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
}
if (!suites.length) out.push("No results.");
console.log(out.join("\n"));
process.exit(worse ? 1 : 0);
