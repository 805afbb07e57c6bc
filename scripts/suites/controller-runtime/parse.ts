// `tsx parse.ts --package P --server S --log LOG --report JSON --rc N [--seconds N]`: one result line
// (../README.md's contract) for one run of a controller-runtime test binary, printed to stdout.
// Beyond the contract, `passes` names the specs that passed (the report compares by them).
// Ginkgo specs come from the suite's JSON report (-ginkgo.json-report); plain Go tests (and their
// subtests) from the `go test -v` lines of the log. A binary that ended without a report (a panic,
// a kill) counts as one failure, named after the package, with the log's last telling line.
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { addGinkgoReport, type Counts, reason, specName, tellingLine } from "../lib/ginkgo-report.js";

const { values: a } = parseArgs({
  options: {
    package: { type: "string" },
    server: { type: "string" },
    log: { type: "string" },
    report: { type: "string" },
    rc: { type: "string", default: "0" },
    seconds: { type: "string", default: "0" },
  },
});

const counts: Counts = { passed: 0, failed: 0, skipped: 0, failures: [], passes: [] };
const log = a.log && existsSync(a.log) ? readFileSync(a.log, "utf8") : "";

const haveReport = !!a.report && existsSync(a.report);
// Skipped, pending, and the specs a failed BeforeSuite kept from running (not in the report).
if (haveReport) addGinkgoReport(a.report!, counts, (suite) => suite.PreRunStats?.TotalSpecs ?? 0);

// Plain Go tests: leaves of the `--- PASS/FAIL/SKIP: Name` tree, except the tests that ran a Ginkgo suite.
const results = new Map<string, string>();
const ginkgo = new Set<string>();
const firstError = new Map<string, string>();
let current = "";
let block: { test: string; indent: number; lines: string[] } | undefined; // a t.Error's message
const endBlock = () => {
  if (block && !firstError.has(block.test)) firstError.set(block.test, block.lines.join(" "));
  block = undefined;
};
for (const line of log.split("\n")) {
  const indent = line.length - line.trimStart().length;
  if (block && line.trim() && indent > block.indent && !/^\s*(---|===) /.test(line)) {
    block.lines.push(line.trim());
    continue;
  }
  endBlock();
  const run = /^=== (?:RUN|CONT|NAME|PAUSE)\s+(\S+)/.exec(line);
  if (run) {
    current = run[1];
    continue;
  }
  const res = /^\s*--- (PASS|FAIL|SKIP): (\S+)/.exec(line);
  if (res) {
    results.set(res[2], res[1]);
    continue;
  }
  if (line.startsWith("Running Suite:") && current) ginkgo.add(current.split("/")[0]);
  const err = /^\s+\S+\.go:\d+: (.*)/.exec(line);
  if (err && current) block = { test: current, indent, lines: [err[1]] };
}
endBlock();
const names = [...results.keys()];
for (const [n, r] of results) {
  if (ginkgo.has(n.split("/")[0])) continue;
  if (names.some((m) => m.startsWith(`${n}/`))) continue; // a parent: its subtests count
  if (r === "PASS") {
    counts.passed++;
    counts.passes.push(specName([n]));
  } else if (r === "SKIP") counts.skipped++;
  else {
    counts.failed++;
    counts.failures.push(`${specName([n])}: ${reason(firstError.get(n) ?? "FAIL")}`);
  }
}

const record: Record<string, unknown> = {
  suite: "controller-runtime",
  package: a.package,
  server: a.server,
  ...counts,
};
// A binary ends with a line "PASS" or "FAIL" unless it panicked or was killed; a Ginkgo suite that
// started writes its report unless it was killed.
const finished = /^(PASS|FAIL)$/m.test(log) && (haveReport || !ginkgo.size);
if (!finished) {
  const telling = tellingLine(log, /^(panic:|fatal error:|FAIL|.*timed out|.*Error)/);
  const why = `${haveReport ? "no PASS/FAIL line" : "no Ginkgo report"} (exit ${a.rc}${telling ? `, ${telling}` : ""})`;
  record.failed = counts.failed + 1;
  counts.failures.push(`${a.package} did not finish: ${reason(why)}`);
  record.error = why;
}
record.seconds = Number(a.seconds);
record.log = a.log;
console.log(JSON.stringify(record));
