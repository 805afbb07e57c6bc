// Profiles the embedded API server under the create and get phases of bench/apiserver.ts: the
// server in its own process, the bench's lean client here (8 keep-alive connections, bodies
// encoded before the phase starts), V8's sampling profiler on in the server only while a phase
// runs. Prints the server CPU per request and the top functions by self time
// for each phase, and writes the `.cpuprofile` files (open them in Chrome DevTools).
// `npx tsx bench/internal/profile-apiserver.ts [--out DIR] [--creates N] [--gets N] [--top N]
//  [--interval µs] [--no-profile] [--rounds N] [--floor] [--warmup N] [--server-flags "--max-semi-space-size=64"]`: --no-profile measures the CPU alone, --rounds
// repeats each phase (fresh names) and prints every round, as the machine is shared and noisy;
// --floor first measures GET /version, the cost of TLS + HTTP + authn + routing alone.
import { mkdir } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { kinds } from "controller-runtime/api";
import { encodeProtobuf } from "controller-runtime/protobuf";
import { newRESTClient, resourceOf } from "controller-runtime/rest";
import { type LeanClient, newLeanClient } from "./lean-client.js";
import { startServerProcess } from "./server-process.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values } = parseArgs({
  options: {
    out: { type: "string", default: ".tmp/profiles" },
    creates: { type: "string", default: "8000" },
    gets: { type: "string", default: "16000" },
    top: { type: "string", default: "30" },
    interval: { type: "string", default: "250" },
    "no-profile": { type: "boolean", default: false },
    rounds: { type: "string", default: "1" },
    floor: { type: "boolean", default: false },
    warmup: { type: "string", default: "2000" },
    "server-flags": { type: "string", default: "" },
  },
});
const creates = Number(values.creates);
const gets = Number(values.gets);
const top = Number(values.top);
const profiling = !values["no-profile"];
const rounds = Number(values.rounds);
const payload = "x".repeat(900);

/** Sends the encoded requests over the lean client's connections: the seconds it took. */
async function timed(lean: LeanClient, requests: Buffer[]): Promise<number> {
  const start = performance.now();
  await lean.run((i) => requests[i]!, requests.length);
  return (performance.now() - start) / 1000;
}

/** Self time per function (name + file:line), in ms, from the samples and their time deltas. */
function selfTimes(profile: Profile): { total: number; rows: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!)!;
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const f = node.callFrame;
    const file = f.url ? relative(process.cwd(), f.url.replace(/^file:\/\//, "")) : "";
    const key = `${f.functionName || "(anonymous)"} ${file ? `${file}:${f.lineNumber + 1}` : ""}`;
    self.set(key, (self.get(key) ?? 0) + ms);
    if (f.functionName !== "(idle)" && f.functionName !== "(program)") total += ms;
  }
  return { total, rows: [...self].sort((a, b) => b[1] - a[1]) };
}

interface Cpu {
  userMs: number;
  systemMs: number;
}
const since = (a: Cpu, b: Cpu): Cpu => ({ userMs: b.userMs - a.userMs, systemMs: b.systemMs - a.systemMs });

function report(phase: string, count: number, secs: number, cpu: Cpu, path: string | undefined): void {
  const cpuMs = cpu.userMs + cpu.systemMs;
  const per = (ms: number) => ((ms * 1000) / count).toFixed(0);
  const line = `${phase}: ${count} in ${secs.toFixed(2)} s = ${(count / secs).toFixed(0)}/s; server CPU ${per(cpuMs)} µs/request (user ${per(cpu.userMs)}, system ${per(cpu.systemMs)})`;
  if (path === undefined) {
    console.log(line);
    return;
  }
  const profile = JSON.parse(readFileSync(path, "utf8")) as Profile;
  const { total, rows } = selfTimes(profile);
  console.log(`\n== ${line}; profile ${path}`);
  console.log(`   sampled JS+native (not idle/program): ${total.toFixed(0)} ms`);
  for (const [name, ms] of rows.slice(0, top)) {
    console.log(
      `${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / (cpuMs || 1)).toFixed(1).padStart(5)}%  ${name}`,
    );
  }
}

await mkdir(values.out, { recursive: true });
const server = await startServerProcess(
  { historySize: 50_000 },
  { execArgv: values["server-flags"].split(" ").filter((f) => f !== "") },
);
const admin = newRESTClient(server.restConfig);
const lean = await newLeanClient(server.restConfig, 8);
try {
  const ns = `prof-${Date.now().toString(36)}`;
  await admin.create(resourceOf(kinds.Namespace), { metadata: { name: ns } });
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const createsOf = (name: (i: number) => string, n: number) =>
    Array.from({ length: n }, (_, i) =>
      lean.encode({
        method: "POST",
        path,
        body: encodeProtobuf(
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: name(i) }, data: { payload } },
          { exact: true },
        )!,
      }),
    );
  const getsOf = (name: (i: number) => string, n: number) =>
    Array.from({ length: n }, (_, i) => lean.encode({ method: "GET", path: `${path}/${name(i)}` }));
  // Warm-up: JIT, connections, TLS sessions.
  const warmup = Number(values.warmup);
  await timed(
    lean,
    createsOf((i) => `warm-${i}`, warmup),
  );
  await timed(
    lean,
    getsOf((i) => `warm-${i}`, warmup),
  );

  if (values.floor) {
    // The floor under any resource request: TLS, HTTP, authn and routing of GET /version.
    const version = lean.encode({ method: "GET", path: "/version" });
    const cpu0 = await server.cpuUsage();
    const secs = await timed(
      lean,
      Array.from({ length: gets }, () => version),
    );
    report("GET /version", gets, secs, since(cpu0, await server.cpuUsage()), undefined);
  }
  for (let round = 0; round < rounds; round++) {
    const createRequests = createsOf((i) => `cm-${round}-${i}`, creates);
    let cpu0 = await server.cpuUsage();
    if (profiling) await server.startProfile(Number(values.interval));
    const createSecs = await timed(lean, createRequests);
    const createProfile = join(values.out, "creates.cpuprofile");
    if (profiling) await server.stopProfile(createProfile);
    const createCpu = since(cpu0, await server.cpuUsage());

    const getRequests = getsOf((i) => `cm-${round}-${i % creates}`, gets);
    cpu0 = await server.cpuUsage();
    if (profiling) await server.startProfile(Number(values.interval));
    const getSecs = await timed(lean, getRequests);
    const getProfile = join(values.out, "gets.cpuprofile");
    if (profiling) await server.stopProfile(getProfile);
    const getCpu = since(cpu0, await server.cpuUsage());

    report("creates", creates, createSecs, createCpu, profiling ? createProfile : undefined);
    report("gets", gets, getSecs, getCpu, profiling ? getProfile : undefined);
  }
} finally {
  await lean.close();
  await admin.close();
  await server.stop();
}
