// `tsx parse.ts --package SIG --server S --log LOG --report JSON --rc N [--seconds N]`: one result
// line (../README.md's contract) for one run of e2e.test, printed to stdout, from Ginkgo's JSON
// report (-ginkgo.json-report). Specs are named by their full text, as conformance.tsv names them;
// `passes` lists those that passed, so that the report compares spec by spec. A run that ended
// without a report (a panic, a kill) counts as one failure, named after the package.
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { addGinkgoReport, type Counts, reason, tellingLine } from "../lib/ginkgo-report.js";

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
const record: Record<string, unknown> = { suite: "kubernetes", package: a.package, server: a.server };

if (a.report && existsSync(a.report)) {
  // The focused specs: the report also holds every spec the focus left out, as skipped.
  addGinkgoReport(a.report, counts, (suite) => suite.PreRunStats?.SpecsThatWillRun ?? 0);
} else {
  const log = a.log && existsSync(a.log) ? readFileSync(a.log, "utf8") : "";
  const telling = tellingLine(log, /^(panic:|fatal error:|FAIL|.*timed out|.*did not start|.*Error)/);
  const why = `no Ginkgo report (exit ${a.rc}${telling ? `, ${telling}` : ""})`;
  counts.failed++;
  counts.failures.push(`${a.package} did not finish: ${reason(why)}`);
  record.error = why;
}

Object.assign(record, { ...counts, seconds: Number(a.seconds), log: a.log });
console.log(JSON.stringify(record));
