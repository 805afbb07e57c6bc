// Cold start of the built API server (issue 19): a fresh Node process imports the
// `controller-runtime-apiserver` package's entry (the bundle, packages/apiserver/dist/bundle/) or
// the unbundled tsc output (with the library built, as installed packages resolve it), starts the server and gets its first /readyz answer. Beside them, the floor on this
// machine: a fresh process that does only what any such server must (Node's start, an HTTP/2 TLS
// server asking for client certificates, one /readyz over HTTPS), so that what the server itself
// adds can be read apart from how fast this machine starts Node. Reported per side: the
// process's time from its start (performance.timeOrigin) to that answer, Node's own start (to
// the first line of the script), the import alone, and the process's CPU; median and min–max
// of 9 runs, sides rotated. Builds first when dist/ is missing. The bundle runs its code with a
// V8 code cache (packages/apiserver/src/code-cache.ts), written by a first run (each side's first,
// unmeasured run warms caches); its side without one (CONTROLLER_RUNTIME_APISERVER_CODE_CACHE=off)
// is what a first start after an install or upgrade costs.
// `npx tsx bench/cold-start.ts`, or `npm run bench -- cold-start`.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { newCertificateAuthority } from "controller-runtime/certs";
import { rangeNote, summarize } from "./internal/stats.js";
import { type BenchRow, printRows } from "./report.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const FLOOR = "floor: Node, an HTTP/2 TLS server, one /readyz";
// COLD_START_BEFORE=<an earlier build's bundle/index.js> adds that build as a side, to compare a
// change before and after in one run (copy dist/bundle aside within packages/apiserver/dist/ so
// that it resolves the same packages).
const before = process.env.COLD_START_BEFORE;
const BUNDLE = `${root}packages/apiserver/dist/bundle/index.js`;
const NO_CODE_CACHE = "bundle without its code cache (a first start)";
const SIDES: Record<string, string> = {
  ...(before ? { [`before: ${before.replace(/.*packages\//, "")}`]: before } : {}),
  "bundle (the package's entry)": BUNDLE,
  [NO_CODE_CACHE]: BUNDLE,
  "unbundled tsc output": `${root}packages/apiserver/dist/index.js`,
  [FLOOR]: "",
};
const RUNS = 9;

// What both kinds of child end with: one /readyz over HTTPS with the admin's client certificate.
const readyz = `
const { request } = await import("node:https");
await new Promise((resolve, reject) => {
  const r = request(url + "/readyz", { ca: tls.ca, cert: tls.cert, key: tls.key }, (m) => {
    m.resume();
    m.on("end", resolve);
  });
  r.on("error", reject);
  r.end();
});
const ready = performance.now();
const cpu = process.cpuUsage();
console.log(JSON.stringify({ ready, bootMs: t0, importMs: t1 - t0, cpuMs: (cpu.user + cpu.system) / 1000 }));
`;

const serverChild = `
const t0 = performance.now();
const { startAPIServer } = await import(process.env.ENTRY);
const t1 = performance.now();
const s = await startAPIServer();
const cfg = s.restConfig();
const url = cfg.host, tls = cfg.tls;
${readyz}
await s.stop();
`;

// The floor serves with the same kind of certificates (EC P-256), made by the parent beforehand.
const floorChild = `
const t0 = performance.now();
const { createSecureServer } = await import("node:http2");
const t1 = performance.now();
const pem = JSON.parse(process.env.FLOOR_PEM);
const server = createSecureServer(
  { key: pem.servingKey, cert: pem.servingCert, ca: pem.ca, requestCert: true, rejectUnauthorized: false, allowHTTP1: true },
  (req, res) => res.end("ok"),
);
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = "https://127.0.0.1:" + server.address().port;
const tls = { ca: pem.ca, cert: pem.clientCert, key: pem.clientKey };
${readyz}
server.close();
`;

interface Run {
  ready: number;
  bootMs: number;
  importMs: number;
  cpuMs: number;
}

function once(side: string, entry: string, floorPem: string): Run {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", entry ? serverChild : floorChild], {
    encoding: "utf8",
    // The built packages, as a user's install resolves them: not this checkout's sources.
    env: {
      ...process.env,
      NODE_OPTIONS: "",
      ENTRY: entry ? pathToFileURL(entry).href : "",
      FLOOR_PEM: floorPem,
      ...(side === NO_CODE_CACHE ? { CONTROLLER_RUNTIME_APISERVER_CODE_CACHE: "off" } : {}),
    },
  });
  if (r.status !== 0) throw new Error(`cold start of ${entry || "the floor"} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as Run;
}

export async function run(): Promise<BenchRow[]> {
  if (!Object.values(SIDES).every((entry) => entry === "" || existsSync(entry)))
    execFileSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" });
  const ca = await newCertificateAuthority("cold-start-floor");
  const serving = await ca.issueServing({ ipAddresses: ["127.0.0.1"] });
  const client = await ca.issueClient({ user: "admin", groups: ["system:masters"] });
  const floorPem = JSON.stringify({
    ca: ca.certPem,
    servingKey: serving.keyPem,
    servingCert: serving.certPem,
    clientKey: client.keyPem,
    clientCert: client.certPem,
  });
  const sides = Object.entries(SIDES);
  const runs = new Map<string, Run[]>(sides.map(([s]) => [s, []]));
  for (const [side, entry] of sides) once(side, entry, floorPem); // warm the file and code caches
  for (let i = 0; i < RUNS; i++) {
    const order = [...sides.slice(i % sides.length), ...sides.slice(0, i % sides.length)];
    for (const [side, entry] of order) runs.get(side)!.push(once(side, entry, floorPem));
  }
  const floor = summarize(runs.get(FLOOR)!.map((r) => r.ready)).median;
  return [...runs].map(([side, rs]) => {
    const ready = rs.map((r) => r.ready);
    const median = summarize(ready).median;
    const boot = summarize(rs.map((r) => r.bootMs)).median;
    const imports = summarize(rs.map((r) => r.importMs)).median;
    const cpu = summarize(rs.map((r) => r.cpuMs)).median;
    const above =
      side === FLOOR
        ? ""
        : `; ${(median / floor).toFixed(2)}× the floor, ${(median - floor).toFixed(0)} ms above it`;
    return {
      name: `cold start to first /readyz, ${side}`,
      value: median,
      unit: "ms",
      note: `${rangeNote(ready)}${above}; Node's start ${boot.toFixed(0)} ms; import ${imports.toFixed(0)} ms; process CPU ${cpu.toFixed(0)} ms`,
    };
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
