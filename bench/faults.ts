// The fault layer's cost (issue 15) when a test sets no rule, measured on the create benchmark:
// 8 keep-alive clients create 1 KiB ConfigMaps against an embedded API server in its own process.
// Sides, each with a fresh server process, the same warm-up and work, order rotated, 3 rounds:
// - "no rule": the layer idle (each request checks that no rule or write log is set);
// - "one rule, never matching": every request walks the layer and matches a rule against it;
// - "write log": `recordWrites()`'s log is on, so every write is recorded.
// Reported: the server's CPU per create (median, min–max) and each side against "no rule"; the
// sides differ by less than the run-to-run noise of this A/B (a few %), so the idle layer's own
// cost is measured directly too: what it runs per request (one check that no rule or log is
// set), timed in-process over 10 million requests, as a share of the server's CPU per create.
// `npx tsx bench/faults.ts`, or `npm run bench -- faults`.
import { pathToFileURL } from "node:url";
import { type FaultRule, Faults } from "../packages/controller-runtime/src/envtest/faults/faults.js";
import { kinds } from "controller-runtime/api";
import { newRESTClient, type RESTClient, resourceOf } from "controller-runtime/rest";
import { rangeNote, summarize } from "./internal/stats.js";
import { startServerProcess } from "./internal/server-process.js";
import { type BenchRow, printRows } from "./report.js";

const CM = resourceOf(kinds.ConfigMap);
const CLIENTS = 8;
const WARMUP = 1_000;
const CREATES = Number(process.env.FAULTS_BENCH_CREATES ?? 6_000);
const ROUNDS = 5;
const payload = "x".repeat(900);

type Side = "no rule" | "one rule, never matching" | "write log";
const SIDES: readonly Side[] = ["no rule", "one rule, never matching", "write log"];

const neverMatching: FaultRule = {
  match: { userAgent: "nobody-sends-this", verbs: ["create"] },
  action: { type: "error", code: 500 },
};

async function creates(clients: RESTClient[], from: number, count: number, tag: string): Promise<void> {
  let next = from;
  const end = from + count;
  await Promise.all(
    clients.map(async (c) => {
      for (let i = next++; i < end; i = next++) {
        const obj = {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `${tag}-${i}` },
          data: { payload },
        };
        await c.create(CM, obj, { namespace: "default" });
      }
    }),
  );
}

/** One side on a fresh server process: server CPU µs and wall µs per create, after the warm-up. */
async function measure(side: Side): Promise<{ cpuUs: number; wallUs: number }> {
  const server = await startServerProcess();
  const clients = Array.from({ length: CLIENTS }, () => newRESTClient(server.restConfig));
  try {
    if (side === "one rule, never matching") await server.injectFault(neverMatching);
    if (side === "write log") await server.recordWrites();
    await creates(clients, 0, WARMUP, "warm");
    const cpu0 = await server.cpuMs();
    const t0 = performance.now();
    await creates(clients, 0, CREATES, "cm");
    const wallMs = performance.now() - t0;
    const cpuMs = (await server.cpuMs()) - cpu0;
    return { cpuUs: (cpuMs * 1000) / CREATES, wallUs: (wallMs * 1000) / CREATES };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await server.stop();
  }
}

/** CPU ns per request of the idle layer: the check the router makes before anything else. */
function idleCheckNs(): number {
  const faults = new Faults();
  let active = 0;
  const n = 10_000_000;
  for (let i = 0; i < 1_000_000; i++) if (faults.active) active++; // warm-up
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) if (faults.active) active++;
  const t = process.cpuUsage(t0);
  if (active !== 0) throw new Error("an idle fault layer reported a rule");
  return ((t.user + t.system) * 1000) / n;
}

export async function run(): Promise<BenchRow[]> {
  const cpu = new Map<Side, number[]>(SIDES.map((s) => [s, []]));
  const wall = new Map<Side, number[]>(SIDES.map((s) => [s, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = SIDES.map((_, i) => SIDES[(i + round) % SIDES.length]!);
    for (const side of order) {
      const m = await measure(side);
      cpu.get(side)!.push(m.cpuUs);
      wall.get(side)!.push(m.wallUs);
    }
  }
  const base = summarize(cpu.get("no rule")!).median;
  const checks = Array.from({ length: ROUNDS }, idleCheckNs);
  const check = summarize(checks).median;
  const idle: BenchRow = {
    name: "idle fault layer per request (its one check, in-process)",
    value: check,
    unit: "ns",
    note: `${rangeNote(checks)}; ${((check / (base * 1000)) * 100).toPrecision(2)}% of the server CPU per create`,
  };
  return [
    idle,
    ...SIDES.map((side) => {
      const c = cpu.get(side)!;
      const { median } = summarize(c);
      const vs = side === "no rule" ? "" : `; ${((median / base - 1) * 100).toFixed(1)}% against no rule`;
      return {
        name: `server CPU per create, fault layer: ${side}`,
        value: median,
        unit: "µs",
        note: `${rangeNote(c)}${vs}; wall ${summarize(wall.get(side)!).median.toFixed(0)} µs/create (${CLIENTS} clients)`,
      };
    }),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
