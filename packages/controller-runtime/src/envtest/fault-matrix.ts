// faultMatrix(): one scenario run fault-free and then under each fault in turn, with a table of
// which runs converged, how long each took and the seed that replays it. The scenario sets up
// its own objects (a fresh namespace each run), drives the operator and throws when it does not
// converge (settle(), then assertions); the matrix injects each fault's rules around it, or runs
// the fault's own acts (restarts, a partition healed after a while) beside it.
import { setTimeout as sleep } from "node:timers/promises";
import {
  delayEvents,
  dropWatch,
  duplicateEvents,
  error as faultError,
  type FaultHandle,
  type FaultMatch,
  type FaultRule,
  type Faults,
  expireWatch,
  holdEvents,
  latency,
  partition,
  staleReads,
} from "./faults/faults.js";

/** One row of the matrix: the fault's name and whether the scenario converged under it. */
export interface FaultMatrixResult {
  readonly fault: string;
  readonly converged: boolean;
  readonly ms: number;
  /** Rule hits and acts during the run: 0 means the fault never fired (the scenario did not reach it). */
  readonly hits: number;
  readonly seed: number;
  readonly error?: unknown;
}

/** What a fault that acts during the run may do; every rule and act counts among the run's hits. */
export interface FaultActs {
  /** Injects a rule for the rest of the run (the seed defaults to the run's). */
  inject(rule: FaultRule): FaultHandle;
  /** Drops every connection and watch (`Faults.restart`). */
  restart(): void;
  /** Compacts the history (`Faults.compact`; the embedded server only). */
  compact(resourceVersion?: number): void;
  /** Another holder takes a Lease (`Faults.stealLease`). */
  stealLease(name: string, opts?: { namespace?: string; holder?: string }): Promise<string>;
  /** Waits `ms`; resolves false at once when the scenario ended. */
  wait(ms: number): Promise<boolean>;
  /** Aborted when the scenario ended: the acts stop. */
  readonly signal: AbortSignal;
}

/**
 * A fault of the matrix: rules injected for the whole run, or acts run beside the scenario
 * (until it ends; the matrix awaits them before the next run).
 */
export type MatrixFault = readonly FaultRule[] | ((acts: FaultActs) => Promise<void>);

export interface FaultMatrixOptions {
  /** The seed of every rule's probability draws (each rule's own seed wins). Default: 1. */
  seed?: number;
  /** Where the table goes. Default: standard output. */
  print?: (table: string) => void;
}

/**
 * Runs `scenario` fault-free, then once per entry of `faults` with that entry's rules injected
 * (rules given without a `seed` get `opts.seed`) or its acts running; returns a row per run and
 * prints them as a table.
 */
export async function faultMatrix(
  env: { readonly faults: Faults },
  scenario: (run: { fault: string; seed: number }) => Promise<void>,
  faults: Readonly<Record<string, MatrixFault>>,
  opts: FaultMatrixOptions = {},
): Promise<FaultMatrixResult[]> {
  const seed = opts.seed ?? 1;
  const results: FaultMatrixResult[] = [];
  for (const [fault, entry] of [["(none)", []] as const, ...Object.entries(faults)]) {
    const handles: FaultHandle[] = [];
    let acted = 0;
    const ended = new AbortController();
    const acts: FaultActs = {
      inject: (rule) => {
        const h = env.faults.inject({ seed, ...rule });
        handles.push(h);
        return h;
      },
      restart: () => {
        acted++;
        env.faults.restart();
      },
      compact: (rv) => {
        acted++;
        env.faults.compact(rv);
      },
      stealLease: (name, o) => {
        acted++;
        return env.faults.stealLease(name, o);
      },
      wait: (ms) => sleep(ms, true, { signal: ended.signal }).catch(() => false),
      signal: ended.signal,
    };
    let acting: Promise<void> = Promise.resolve();
    const t0 = performance.now();
    let error: unknown;
    try {
      if (typeof entry === "function") acting = entry(acts);
      else for (const rule of entry) acts.inject(rule);
      await scenario({ fault, seed });
    } catch (err) {
      error = err;
    } finally {
      ended.abort();
      await acting.catch((err) => {
        error ??= err;
      });
      for (const h of handles) h.clear();
    }
    const hits = acted + handles.reduce((n, h) => n + h.hits, 0);
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

export interface StandardFaultsOptions {
  /**
   * Which requests the faults hit (merged into every rule's match), typically the operator's
   * `userAgent`, so that the test's own client is spared. Default: every request.
   */
  match?: FaultMatch;
  /** The faults' environment: faults it cannot act out are left out of the matrix. */
  faults?: Faults;
}

const WRITES = ["create", "update", "patch", "delete"];
const RESTARTS = 5;

/**
 * The faults clusters have, as one matrix: conflicts, throttling, errors and timeouts on writes
 * (a share of them), a slow server, watches that drop, expire, repeat, lag or stall for a
 * while, a client partitioned for a while, restarts, compactions and stale reads. Faults the
 * environment cannot act out (compaction and stale reads on the proxy) are left out.
 */
export function standardFaults(opts: StandardFaultsOptions = {}): Record<string, MatrixFault> {
  const m = opts.match ?? {};
  const writes = { ...m, verbs: WRITES };
  const watches = { ...m, watch: true };
  const can = (action: string) => opts.faults?.supports(action) ?? true;
  const matrix: Record<string, MatrixFault> = {
    "409 on 30% of writes": [{ match: writes, action: faultError({ code: 409 }), probability: 0.3 }],
    "429 Retry-After 1 s on 20% of writes": [
      { match: writes, action: faultError({ code: 429, retryAfterSeconds: 1 }), probability: 0.2 },
    ],
    "500 on 20% of writes": [{ match: writes, action: faultError({ code: 500 }), probability: 0.2 }],
    "503 on 20% of requests": [
      { match: { ...m, watch: false }, action: faultError({ code: 503 }), probability: 0.2 },
    ],
    "504 on 20% of writes": [{ match: writes, action: faultError({ code: 504 }), probability: 0.2 }],
    "50 ms on every request": [{ match: m, action: latency(50) }],
    "watches cut after 2 events": [{ match: watches, action: dropWatch({ afterEvents: 2 }), times: 20 }],
    "watches expired (410) after 2 events": [
      { match: watches, action: expireWatch({ afterEvents: 2 }), times: 20 },
    ],
    "events twice": [{ match: watches, action: duplicateEvents() }],
    "events 200 ms late": [{ match: watches, action: delayEvents(200) }],
    "events held for 1 s": async (acts) => {
      const held = acts.inject({ match: watches, action: holdEvents() });
      await acts.wait(1_000);
      held.clear();
    },
    "partitioned for 1 s": async (acts) => {
      const cut = acts.inject({ match: m, action: partition() });
      await acts.wait(1_000);
      cut.clear();
    },
    // A burst of restarts, then a server that stays up: a server restarting every 100 ms for
    // ever leaves a loaded machine no time to relist, and no operator converges on that.
    "5 restarts, 150 ms apart": async (acts) => {
      for (let i = 0; i < RESTARTS && (await acts.wait(150)); i++) acts.restart();
    },
  };
  if (can("compact")) {
    matrix["5 compactions with restarts, 150 ms apart"] = async (acts) => {
      for (let i = 0; i < RESTARTS && (await acts.wait(150)); i++) {
        acts.compact();
        acts.restart();
      }
    };
  }
  if (can("staleReads")) {
    matrix["reads at rv=0 10 versions stale, watches cut"] = [
      { match: { ...m, watch: false }, action: staleReads({ lagRV: 10 }) },
      { match: watches, action: dropWatch({ afterEvents: 3 }), times: 10 },
    ];
  }
  return matrix;
}
