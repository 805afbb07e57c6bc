// Work queue throughput: add + get + done cycles per second.
// - Side by side: ours against a minimal client-go-style FIFO (array + dirty/processing sets, no
//   priorities, no delays) with 10 000, 100 000 and 1 000 000 keys queued, distinct keys. Each
//   side runs in its own process with the same keys and the same warm-up, in rotated order, three
//   times: medians with min–max, and the median of each repetition's ratio.
// - Ours only, in this process, with 1 000 000 keys queued: await get, a hot key set, priorities,
//   delays and Prometheus metrics.
// `npx tsx bench/workqueue.ts`, or through `npm run bench -- workqueue`.
//
// Times are this process's CPU time (process.cpuUsage), not wall time: benchmarks share the
// machine with other work, and CPU time is what "cycles per second on one core" means.
import { pathToFileURL } from "node:url";
import { Registry } from "prom-client";
import {
  newFakeClock,
  LowPriority,
  newPriorityQueue,
  type PriorityQueue,
  type PriorityQueueOptions,
  prometheusWorkqueueMetrics,
} from "controller-runtime/workqueue";
import { runChildJSON } from "./internal/child-json.js";
import { type BenchRow, printRows } from "./report.js";

const queued = 1_000_000;
const cycles = 1_000_000;
/** Cycles of the secondary rows, to keep the whole run short. */
const short = 200_000;

/**
 * Keys made up front, so that string building is not measured. A template literal this long
 * makes a V8 cons string (a pair of pointers), which the first hash or compare flattens into a new
 * string; with 2M keys made before the run, that would allocate and promote 2M strings inside the
 * measured loops (and every later access would go through the pair). A JSON round trip gives flat
 * strings, as a key built by a handler is flattened once, by its first add, while it is young.
 */
function keys(prefix: string, n: number): string[] {
  return JSON.parse(JSON.stringify(Array.from({ length: n }, (_, i) => `${prefix}/${i}`))) as string[];
}

/** A deterministic pseudo-random sequence of integers in [0, n). */
function sequence(n: number, length: number, seed = 1): Int32Array {
  const out = new Int32Array(length);
  let s = seed;
  for (let i = 0; i < length; i++) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    out[i] = s % n;
  }
  return out;
}

/** CPU milliseconds used by this process since `since` (a process.cpuUsage() reading). */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function row(name: string, count: number, ms: number, note: string): BenchRow {
  const perSecond = (count / ms) * 1000;
  return {
    name,
    value: perSecond,
    unit: "cycles/s",
    note: `${((ms * 1e6) / count).toFixed(0)} ns/op; ${note}`,
  };
}

/** add + tryGet + done for `cycles` keys from `fresh`, with `queued` keys from `backlog` waiting. */
function syncCycles(q: PriorityQueue, fresh: readonly string[], n: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    q.add(fresh[i]!);
    const r = q.tryGet()!;
    if (r.shutdown) throw new Error("unexpected shutdown");
    q.done(r.key);
  }
  return cpuMs(start);
}

function filled(backlog: readonly string[], options: PriorityQueueOptions = {}, priorities?: Int32Array) {
  const q = newPriorityQueue(options);
  for (let i = 0; i < backlog.length; i++) q.add(backlog[i]!, priorities && { priority: priorities[i]! });
  return q;
}

/** The peer: client-go's Type, reduced to what it does (a FIFO array, dirty and processing sets). */
class PlainQueue {
  #queue: string[] = [];
  #head = 0;
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  add(key: string): void {
    if (this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (!this.#processing.has(key)) this.#queue.push(key);
  }
  get(): string | undefined {
    if (this.#head === this.#queue.length) return undefined;
    const key = this.#queue[this.#head++]!;
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#processing.add(key);
    this.#dirty.delete(key);
    return key;
  }
  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key)) this.#queue.push(key);
  }
}

type Side = "ours" | "peer";
const SIDE_SIZES = [10_000, 100_000, 1_000_000];
const CHILD_ENV = "WORKQUEUE_BENCH_CHILD";

/** One side's distinct-key cycles with `size` keys queued: CPU ms of `n` cycles, after a warm-up. */
function sideRun(side: Side, size: number): { cpuMs: number; n: number } {
  const n = Math.max(size, 200_000);
  const backlog = keys("default/backlog", size);
  const fresh = keys("default/fresh", n);
  const warm = keys("default/warm", 100_000);
  if (side === "ours") {
    syncCycles(filled(backlog.slice(0, 10_000)), warm, warm.length);
    return { cpuMs: syncCycles(filled(backlog), fresh, n), n };
  }
  const cyclesOn = (peer: PlainQueue, from: readonly string[], count: number) => {
    const start = process.cpuUsage();
    for (let i = 0; i < count; i++) {
      peer.add(from[i]!);
      peer.done(peer.get()!);
    }
    return cpuMs(start);
  };
  const warmPeer = new PlainQueue();
  for (const k of backlog.slice(0, 10_000)) warmPeer.add(k);
  cyclesOn(warmPeer, warm, warm.length);
  const peer = new PlainQueue();
  for (const k of backlog) peer.add(k);
  return { cpuMs: cyclesOn(peer, fresh, n), n };
}

function runSide(side: Side, size: number): Promise<{ cpuMs: number; n: number }> {
  return runChildJSON({
    moduleUrl: import.meta.url,
    env: { [CHILD_ENV]: JSON.stringify({ side, size }) },
    what: `workqueue ${side} ${size}`,
  });
}

function spread(xs: number[]): { median: number; note: string } {
  const s = [...xs].sort((a, b) => a - b);
  const f = (x: number) => (x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toPrecision(3));
  return { median: s[Math.floor(s.length / 2)]!, note: `min–max ${f(s[0]!)}–${f(s[s.length - 1]!)}` };
}

/** The side-by-side rows: each side in its own process, rotated, three repetitions. */
async function sideBySide(): Promise<BenchRow[]> {
  const reps = Number(process.env.WORKQUEUE_BENCH_REPS ?? 3);
  const rows: BenchRow[] = [];
  for (const size of SIDE_SIZES) {
    const rates: Record<Side, number[]> = { ours: [], peer: [] };
    const ratios: number[] = [];
    for (let rep = 0; rep < reps; rep++) {
      const order: Side[] = rep % 2 === 0 ? ["ours", "peer"] : ["peer", "ours"];
      const got: Partial<Record<Side, number>> = {};
      for (const side of order) {
        const r = await runSide(side, size);
        got[side] = (r.n / r.cpuMs) * 1000;
        rates[side].push(got[side]!);
      }
      ratios.push(got.ours! / got.peer!);
    }
    const label = `${size.toLocaleString("en-US")} keys queued, distinct keys`;
    const ours = spread(rates.ours);
    const peer = spread(rates.peer);
    const ratio = spread(ratios);
    rows.push({
      name: `ours: ${label}`,
      value: ours.median,
      unit: "cycles/s",
      note: `CPU time; ${ours.note}`,
      curve: { series: "ours", x: size },
    });
    rows.push({
      name: `peer (plain FIFO): ${label}`,
      value: peer.median,
      unit: "cycles/s",
      note: `CPU time; ${peer.note}`,
      curve: { series: "peer (plain FIFO)", x: size },
    });
    rows.push({
      name: `ours / peer: ${label}`,
      value: ratio.median,
      unit: "×",
      note: `per repetition; ${ratio.note}`,
    });
  }
  return rows;
}

export async function run(): Promise<BenchRow[]> {
  const rows = await sideBySide();
  const backlog = keys("default/backlog", queued);
  const fresh = keys("default/fresh", cycles);
  const note = "1M keys queued; ours only";

  // Warm up the JIT on a small queue so that the first row is not penalised.
  syncCycles(filled(backlog.slice(0, 10_000)), fresh, 100_000);

  {
    const q = filled(backlog);
    syncCycles(q, fresh, cycles);
    {
      // The queue now holds the fresh keys, so the backlog keys are distinct again.
      const start = process.cpuUsage();
      for (let i = 0; i < cycles; i++) {
        q.add(backlog[i]!);
        const r = await q.get();
        if (r.shutdown) throw new Error("unexpected shutdown");
        q.done(r.key);
      }
      rows.push(row("distinct keys (await get)", cycles, cpuMs(start), note));
    }

    {
      // 1 000 hot keys added over and over: most adds merge into a queued entry.
      const hot = keys("default/hot", 1000);
      const start = process.cpuUsage();
      for (let i = 0; i < short; i++) {
        q.add(hot[i % 1000]!);
        const r = q.tryGet()!;
        if (r.shutdown) throw new Error("unexpected shutdown");
        q.done(r.key);
      }
      rows.push(row("hot key set (1 000 keys, merged)", short, cpuMs(start), note));
    }
  }

  {
    // Three priorities (initial list, default, urgent), aging on, on the real clock.
    const levels = [LowPriority, 0, 10];
    const pick = sequence(3, queued + cycles);
    const prios = pick.map((i) => levels[i]!);
    const q = filled(backlog, {}, prios.subarray(0, queued));
    const start = process.cpuUsage();
    for (let i = 0; i < short; i++) {
      q.add(fresh[i]!, { priority: prios[queued + i]! });
      const r = q.tryGet()!;
      if (r.shutdown) throw new Error("unexpected shutdown");
      q.done(r.key);
    }
    rows.push(row("3 priorities, aging on", short, cpuMs(start), note));
  }

  {
    // 1 000 distinct priorities: the priority heap is exercised, not just the per-priority lists.
    const prios = sequence(1000, queued + cycles, 3);
    const q = filled(backlog, {}, prios.subarray(0, queued));
    const start = process.cpuUsage();
    for (let i = 0; i < short; i++) {
      q.add(fresh[i]!, { priority: prios[queued + i]! });
      const r = q.tryGet()!;
      if (r.shutdown) throw new Error("unexpected shutdown");
      q.done(r.key);
    }
    rows.push(row("1 000 priorities", short, cpuMs(start), note));
  }

  {
    // 1M keys delayed 0-10 s on a fake clock; each cycle delays one more key, moves time by 10 µs
    // (which fires the single timer when the earliest deadline passes) and processes what is ready.
    const clock = newFakeClock();
    const delays = sequence(10_000, queued + cycles, 5);
    const q = newPriorityQueue({ clock });
    for (let i = 0; i < queued; i++) q.addAfter(backlog[i]!, delays[i]!);
    let processed = 0;
    const start = process.cpuUsage();
    for (let i = 0; i < short; i++) {
      q.addAfter(fresh[i]!, delays[queued + i]!);
      clock.advance(0.01);
      for (let r = q.tryGet(); r !== undefined && !r.shutdown; r = q.tryGet()) {
        q.done(r.key);
        processed++;
      }
    }
    const ms = cpuMs(start);
    rows.push(
      row("delays (addAfter 0-10 s, one timer)", processed, ms, "1M keys delayed; per key handed out"),
    );
  }

  {
    const q = filled(backlog, { name: "bench", metricsProvider: prometheusWorkqueueMetrics(new Registry()) });
    // A full million cycles: the metrics branches are not warmed up by the rows above, and 200k
    // cycles measured mostly the JIT.
    rows.push(row("distinct keys, Prometheus metrics on", cycles, syncCycles(q, fresh, cycles), note));
  }

  return rows;
}

const child = process.env[CHILD_ENV];
if (child) {
  const { side, size } = JSON.parse(child) as { side: Side; size: number };
  process.stdout.write(`${JSON.stringify(sideRun(side, size))}\n`);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printRows(await run());
}
