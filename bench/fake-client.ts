// The fake client (issue 41): ConfigMaps created, read, updated and listed per second, and the CPU
// per operation, for
// - ours: the fake client of controller-runtime-apiserver/fake (the embedded server's router and
//   handlers in the same process, no HTTP);
// - controller-runtime's fake client (Go, sigs.k8s.io/controller-runtime v0.24.1 pkg/client/fake,
//   built from bench/go/fakeclient/);
// - ours over HTTPS: newClient to the embedded API server that envtest starts (same process).
// The same work on every side, each in a process of its own: first use (a client built, then 100
// ConfigMaps created, read, updated and listed once: what one unit test costs in a fresh
// process, its modules already loaded), a warm-up of the whole sequence on N ConfigMaps in another namespace (V8 optimizes
// a path after some thousand calls: fewer left the server's read path unoptimized), then N
// (default 2 000) ConfigMaps created one after another, each read, each updated (the object
// read, one field changed), the namespace listed L (default 20) times; last, 10 clients built
// anew, each used for one create (what every test pays). Every side's process runs its server
// too, so CPU is client + server. 3 rounds (FAKE_BENCH_ROUNDS), the order of sides rotated;
// medians with min–max; ratios to controller-runtime's fake are taken within each round, then
// their median.
// `npx tsx bench/fake-client.ts`, or `npm run bench -- fake-client`.
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import type { Client } from "controller-runtime/client";
import { runChildJSON } from "./internal/child-json.js";
import { rangeNote, summarize } from "./internal/stats.js";
import { type BenchRow, printRows } from "./report.js";

const N = Number(process.env.FAKE_BENCH_N ?? 2000);
const LISTS = Number(process.env.FAKE_BENCH_LISTS ?? 20);
const ROUNDS = Number(process.env.FAKE_BENCH_ROUNDS ?? 3);
const WARM = Number(process.env.FAKE_BENCH_WARM ?? N);
const FIRST_USE = 100;
const BUILDS = 10;
const VERBS = ["create", "get", "update", "list", "firstUse", "build"] as const;
type Verb = (typeof VERBS)[number];
const UNITS: Record<Verb, string> = {
  create: "ops/s",
  get: "ops/s",
  update: "ops/s",
  list: `lists of ${N}/s`,
  firstUse: "ms",
  build: "ms/client",
};

const OURS_FAKE = "ours: fake client (in-process)";
const GO_FAKE = "controller-runtime fake client (Go)";
const OURS_HTTP = "ours: client over HTTPS to the embedded server";
const SIDES = [OURS_FAKE, GO_FAKE, OURS_HTTP] as const;
type Side = (typeof SIDES)[number];

interface Phase {
  ops: number;
  wallNs: number;
  cpuNs: number;
}
type SideResult = Record<Verb, Phase>;

function configMap(namespace: string, i: number): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${i}`, namespace, labels: { app: "bench", shard: `s${i % 4}` } },
    data: { key: `value-${i}`, mode: "initial" },
  };
}

// ---- child side: one of ours, in a process of its own -----------------------------------------

function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

async function measure(ops: number, fn: (i: number) => Promise<unknown>): Promise<Phase> {
  const c0 = cpuNs();
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) await fn(i);
  return { ops, wallNs: (performance.now() - t0) * 1e6, cpuNs: cpuNs() - c0 };
}

/** The work every side does (bench/go/fakeclient/main.go is the same in Go). */
async function work(
  client: Client,
  namespace: string,
  n: number,
  lists: number,
): Promise<Pick<SideResult, "create" | "get" | "update" | "list">> {
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  const got: ConfigMap[] = [];
  const create = await measure(n, (i) => client.create(configMap(namespace, i)));
  const get = await measure(n, async (i) => {
    got[i] = (await client.get(kinds.ConfigMap, { namespace, name: `cm-${i}` })) as ConfigMap;
  });
  const update = await measure(n, (i) => {
    const cm = got[i]!;
    return client.update({ ...cm, data: { ...cm.data, mode: "updated" } });
  });
  const list = await measure(lists, async () => {
    const l = await client.list(kinds.ConfigMap, { inNamespace: namespace });
    if (l.items.length !== n) throw new Error(`listed ${l.items.length}, want ${n}`);
  });
  return { create, get, update, list };
}

/** A client of `side` and how to stop it. */
async function newSideClient(side: Side): Promise<{ client: Client; stop: () => Promise<void> }> {
  if (side === OURS_FAKE) {
    const { newFakeClient } = await import("controller-runtime-apiserver/fake");
    const fake = await newFakeClient();
    return { client: fake, stop: () => fake.close() };
  }
  const { Environment } = await import("controller-runtime/envtest");
  const { newClient } = await import("controller-runtime/client");
  // The embedded server whatever the environment says: this side measures it, not a cluster.
  const env = new Environment({ env: {} });
  const client = newClient(await env.start());
  return {
    client,
    stop: async () => {
      await client.close();
      await env.stop();
    },
  };
}

async function child(side: Side): Promise<SideResult> {
  // Modules loaded first: first use measures the client, not tsx compiling our sources.
  await Promise.all([
    import("controller-runtime-apiserver/fake"),
    import("controller-runtime/envtest"),
    import("controller-runtime/client"),
  ]);
  let client: Client | undefined;
  let stop = async () => {};
  const firstUse = await measure(1, async () => {
    ({ client, stop } = await newSideClient(side));
    await work(client, "bench-cold", FIRST_USE, 1);
  });
  await work(client!, "bench-warm", WARM, 3);
  const result = await work(client!, "bench", N, LISTS);
  await stop();
  const build = await measure(BUILDS, async () => {
    const made = await newSideClient(side);
    await made.client.create(configMap("default", 0));
    await made.stop();
  });
  return { ...result, firstUse, build };
}

// ---- parent side ---------------------------------------------------------------------------------

const goDir = fileURLToPath(new URL("./go/fakeclient/", import.meta.url));

/** Builds the Go side; undefined (and why) when Go is not installed or the build fails. */
function buildGo(): { binary: string } | { missing: string } {
  const binary = join(tmpdir(), `cr-ts-bench-fakeclient-${process.getuid?.() ?? 0}`);
  try {
    execFileSync("go", ["build", "-o", binary, "."], { cwd: goDir, stdio: ["ignore", "ignore", "pipe"] });
    return { binary };
  } catch (err) {
    return { missing: `go build in bench/go/fakeclient failed: ${(err as Error).message.split("\n")[0]}` };
  }
}

function runGo(binary: string): SideResult {
  const args = ["-n", String(N), "-lists", String(LISTS), "-warm", String(WARM), "-builds", String(BUILDS)];
  const out = execFileSync(binary, args, {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split("\n").pop() ?? "{}") as SideResult;
}

function runSide(side: Side, go: { binary: string } | { missing: string }): Promise<SideResult> | undefined {
  if (side === GO_FAKE) return "binary" in go ? Promise.resolve(runGo(go.binary)) : undefined;
  return runChildJSON<SideResult>({
    moduleUrl: import.meta.url,
    env: { FAKE_BENCH_CHILD: side },
    what: side,
  });
}

/** The row's value of a phase: operations per second, or ms per operation for the setup phases. */
const rowValue = (verb: Verb, p: Phase) =>
  verb === "firstUse" || verb === "build" ? p.wallNs / p.ops / 1e6 : (p.ops / p.wallNs) * 1e9;
const cpuUsPerOp = (p: Phase) => p.cpuNs / p.ops / 1000;

export async function run(): Promise<BenchRow[]> {
  const go = buildGo();
  const results = new Map<Side, SideResult[]>(SIDES.map((s) => [s, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < SIDES.length; k++) {
      const side = SIDES[(k + round) % SIDES.length]!;
      const r = await runSide(side, go);
      if (r) results.get(side)!.push(await r);
    }
  }
  const rows: BenchRow[] = [];
  const goRuns = results.get(GO_FAKE)!;
  for (const verb of VERBS) {
    const slower = verb === "firstUse" || verb === "build" ? 1 : -1; // ms: more is slower; ops/s: less
    for (const side of SIDES) {
      const runs = results.get(side)!;
      if (runs.length === 0) continue;
      const values = runs.map((r) => rowValue(verb, r[verb]));
      const cpus = runs.map((r) => cpuUsPerOp(r[verb]));
      const cpuNote =
        verb === "firstUse" || verb === "build"
          ? `CPU ${(summarize(cpus).median / 1000).toPrecision(3)} ms (${rangeNote(cpus.map((c) => c / 1000))})`
          : `CPU ${summarize(cpus).median.toPrecision(3)} µs/op (${rangeNote(cpus)})`;
      const notes = [rangeNote(values), cpuNote];
      if (side !== GO_FAKE && goRuns.length === runs.length) {
        // Within each round: the two processes ran one after the other on the same machine state.
        const wall = runs.map(
          (r, i) => (rowValue(verb, r[verb]) / rowValue(verb, goRuns[i]![verb])) ** slower,
        );
        const cpu = runs.map((r, i) => cpuUsPerOp(r[verb]) / cpuUsPerOp(goRuns[i]![verb]));
        notes.push(
          `time ${summarize(wall).median.toFixed(2)}× and CPU ${summarize(cpu).median.toFixed(2)}× controller-runtime's fake`,
        );
      }
      const name =
        verb === "firstUse"
          ? `first use (build, ${FIRST_USE} objects): ${side}`
          : verb === "build"
            ? `build a client + 1 create: ${side}`
            : `${verb}: ${side}`;
      rows.push({ name, value: summarize(values).median, unit: UNITS[verb], note: notes.join("; ") });
    }
  }
  if ("missing" in go) rows.push({ name: `${GO_FAKE}: not measured`, value: 0, unit: "", note: go.missing });
  return rows;
}

if (process.env.FAKE_BENCH_CHILD) {
  const result = await child(process.env.FAKE_BENCH_CHILD as Side);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printRows(await run());
}
