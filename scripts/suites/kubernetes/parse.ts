// `tsx parse.ts --package SIG --server S --log LOG --report JSON --rc N [--seconds N]`: one result
// line (../README.md's contract) for one run of e2e.test, printed to stdout, from Ginkgo's JSON
// report (-ginkgo.json-report). Specs are named by their full text, as conformance.tsv names them;
// `passes` lists those that passed, so that the report compares spec by spec. A run that ended
// without a report (a panic, a kill) counts as one failure, named after the package.
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";

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

interface SpecReport {
  ContainerHierarchyTexts?: string[] | null;
  LeafNodeType: string;
  LeafNodeText?: string;
  State: string;
  Failure?: { Message?: string };
}
interface SuiteReport {
  PreRunStats?: { SpecsThatWillRun?: number };
  SpecReports?: SpecReport[] | null;
}

const FAILED = new Set(["failed", "aborted", "panicked", "interrupted", "timedout"]);

/** The telling part of a failure message: a Kubernetes Status' message if one is dumped, else its start. */
function reason(message: string): string {
  const status =
    /\bMessage: "((?:[^"\\]|\\.)*)"/.exec(message) ?? /\bmessage: "((?:[^"\\]|\\.)*)"/.exec(message);
  const text = status ? status[1].replace(/\\"/g, '"') : message;
  return text.replace(/\s+/g, " ").trim().slice(0, 240);
}

// Names and reasons are joined by ": " in the contract; a name keeps none of its own.
const name = (parts: string[]) =>
  parts
    .filter((p) => p)
    .join(" ")
    .replace(/: /g, " - ")
    .replace(/\s+/g, " ")
    .trim();

let passed = 0;
let failed = 0;
let skipped = 0;
const failures: string[] = [];
const passes: string[] = [];
const record: Record<string, unknown> = { suite: "kubernetes", package: a.package, server: a.server };

if (a.report && existsSync(a.report)) {
  const suites = JSON.parse(readFileSync(a.report, "utf8")) as SuiteReport[];
  for (const suite of suites) {
    let ran = 0;
    for (const s of suite.SpecReports ?? []) {
      const failedState = FAILED.has(s.State);
      if (s.LeafNodeType === "It") {
        const n = name([...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText ?? ""]);
        if (s.State === "passed") {
          passed++;
          passes.push(n);
          ran++;
        } else if (failedState) {
          failed++;
          ran++;
          failures.push(`${n}: ${reason(s.Failure?.Message ?? s.State)}`);
        }
      } else if (failedState) {
        // A suite-level node (SynchronizedBeforeSuite...): when it fails, no spec runs.
        failed++;
        failures.push(`[${s.LeafNodeType}]: ${reason(s.Failure?.Message ?? s.State)}`);
      }
    }
    // The focused specs that did not run: skipped by the spec itself (a missing feature), or kept
    // from running by a failed suite-level node or the deadline. (The report also holds every spec
    // the focus left out, as skipped: those are not counted.)
    skipped += Math.max(0, (suite.PreRunStats?.SpecsThatWillRun ?? 0) - ran);
  }
} else {
  const log = a.log && existsSync(a.log) ? readFileSync(a.log, "utf8") : "";
  const telling = log
    .split("\n")
    .filter((l) => /^(panic:|fatal error:|FAIL|.*timed out|.*did not start|.*Error)/.test(l))
    .slice(-1)[0];
  const why = `no Ginkgo report (exit ${a.rc}${telling ? `, ${telling.trim()}` : ""})`;
  failed++;
  failures.push(`${a.package} did not finish: ${reason(why)}`);
  record.error = why;
}

Object.assign(record, { passed, failed, skipped, failures, passes, seconds: Number(a.seconds), log: a.log });
console.log(JSON.stringify(record));
