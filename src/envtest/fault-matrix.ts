// faultMatrix(): one scenario run fault-free and then under each fault in turn, with a table of
// which runs converged, how long each took and the seed that replays it. The scenario sets up
// its own objects (a fresh namespace each run), drives the operator and throws when it does not
// converge (settle(), then assertions); the matrix injects each fault's rules around it.
import type { FaultRule, Faults } from "../apiserver/faults.js";

/** One row of the matrix: the fault's name and whether the scenario converged under it. */
export interface FaultMatrixResult {
  readonly fault: string;
  readonly converged: boolean;
  readonly ms: number;
  /** Rule hits during the run: 0 means the fault never fired (the scenario did not reach it). */
  readonly hits: number;
  readonly seed: number;
  readonly error?: unknown;
}

export interface FaultMatrixOptions {
  /** The seed of every rule's probability draws (each rule's own seed wins). Default: 1. */
  seed?: number;
  /** Where the table goes. Default: standard output. */
  print?: (table: string) => void;
}

/**
 * Runs `scenario` fault-free, then once per entry of `faults` with that entry's rules injected
 * (rules given without a `seed` get `opts.seed`); returns a row per run and prints them as a table.
 */
export async function faultMatrix(
  env: { readonly faults: Faults },
  scenario: (run: { fault: string; seed: number }) => Promise<void>,
  faults: Readonly<Record<string, readonly FaultRule[]>>,
  opts: FaultMatrixOptions = {},
): Promise<FaultMatrixResult[]> {
  const seed = opts.seed ?? 1;
  const results: FaultMatrixResult[] = [];
  for (const [fault, rules] of [["(none)", []] as const, ...Object.entries(faults)]) {
    const handles = rules.map((r) => env.faults.inject({ seed, ...r }));
    const t0 = performance.now();
    let error: unknown;
    try {
      await scenario({ fault, seed });
    } catch (err) {
      error = err;
    } finally {
      for (const h of handles) h.clear();
    }
    const hits = handles.reduce((n, h) => n + h.hits, 0);
    results.push({ fault, converged: error === undefined, ms: performance.now() - t0, hits, seed, error });
  }
  (opts.print ?? ((table: string) => process.stdout.write(`${table}\n`)))(formatMatrix(results));
  return results;
}

/** The matrix as a Markdown table. */
export function formatMatrix(results: readonly FaultMatrixResult[]): string {
  const lines = ["| fault | converged | ms | hits | seed |", "| --- | --- | ---: | ---: | ---: |"];
  for (const r of results) {
    const why = r.error ? ` (${String((r.error as Error)?.message ?? r.error).split("\n")[0]})` : "";
    lines.push(
      `| ${r.fault} | ${r.converged ? "yes" : `no${why}`} | ${Math.round(r.ms)} | ${r.hits} | ${r.seed} |`,
    );
  }
  return lines.join("\n");
}
