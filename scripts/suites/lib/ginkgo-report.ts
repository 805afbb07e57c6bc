// Reading Ginkgo's JSON report (-ginkgo.json-report) into the counts of a result line
// (../README.md's contract), for the suites whose specs are Ginkgo's: controller-runtime's and
// Kubernetes' e2e.test.
import { readFileSync } from "node:fs";

interface SpecReport {
  ContainerHierarchyTexts?: string[] | null;
  LeafNodeType: string;
  LeafNodeText?: string;
  State: string;
  Failure?: { Message?: string };
}
export interface SuiteReport {
  PreRunStats?: { TotalSpecs?: number; SpecsThatWillRun?: number };
  SpecReports?: SpecReport[] | null;
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  failures: string[];
  /** Beyond the contract: what passed, so that a spec that did not run is told apart. */
  passes: string[];
}

const FAILED = new Set(["failed", "aborted", "panicked", "interrupted", "timedout"]);

/** The telling part of a failure message: a Kubernetes Status' message if one is dumped, else its start. */
export function reason(message: string): string {
  const status =
    /\bMessage: "((?:[^"\\]|\\.)*)"/.exec(message) ?? /\bmessage: "((?:[^"\\]|\\.)*)"/.exec(message);
  const text = status ? status[1].replace(/\\"/g, '"') : message;
  return text.replace(/\s+/g, " ").trim().slice(0, 240);
}

/** A spec's name from its parts. Names and reasons are joined by ": " in the contract; a name keeps none of its own. */
export const specName = (parts: string[]) =>
  parts
    .filter((p) => p)
    .join(" ")
    .replace(/: /g, " - ")
    .replace(/\s+/g, " ")
    .trim();

/**
 * Adds the report's specs to `counts`. `planned` is how many specs the suite meant to run (its
 * PreRunStats): those of them that neither passed nor failed count as skipped (skipped by the spec
 * itself, pending, or kept from running by a failed suite-level node or the deadline).
 */
export function addGinkgoReport(path: string, counts: Counts, planned: (s: SuiteReport) => number): void {
  for (const suite of JSON.parse(readFileSync(path, "utf8")) as SuiteReport[]) {
    let ran = 0;
    for (const s of suite.SpecReports ?? []) {
      const failedState = FAILED.has(s.State);
      if (s.LeafNodeType === "It") {
        const n = specName([...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText ?? ""]);
        if (s.State === "passed") {
          counts.passed++;
          counts.passes.push(n);
          ran++;
        } else if (failedState) {
          counts.failed++;
          ran++;
          counts.failures.push(`${n}: ${reason(s.Failure?.Message ?? s.State)}`);
        }
      } else if (failedState) {
        // A suite-level node (BeforeSuite, SynchronizedBeforeSuite...): when it fails, no spec runs.
        counts.failed++;
        counts.failures.push(`[${s.LeafNodeType}]: ${reason(s.Failure?.Message ?? s.State)}`);
      }
    }
    counts.skipped += Math.max(0, planned(suite) - ran);
  }
}

/** The last line of a log that says why a run ended early. */
export function tellingLine(log: string, pattern: RegExp): string | undefined {
  return log
    .split("\n")
    .filter((l) => pattern.test(l))
    .slice(-1)[0]
    ?.trim();
}
