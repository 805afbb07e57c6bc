// The fuzz run: seeded, bounded batches of hostile requests against the servers in a child
// process (target.ts), and hostile watch streams against the client's decoder in this one.
// After every batch: the servers still answer /readyz, memory stays bounded, the canary objects
// are unchanged byte for byte. Every answer must be a Status (or the resource) with one of kube's
// codes; every 5xx is classified by cause, and those kube-apiserver would not give are failures.
import { type ChildProcess, fork } from "node:child_process";
import { createServer, type Server } from "node:http";
import { availableParallelism, loadavg } from "node:os";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Agent } from "undici";
import { decodeProtobuf } from "controller-runtime/protobuf";
import { WatchDecodeError } from "../../packages/controller-runtime/src/rest/errors.js";
import { newRESTClient } from "controller-runtime/rest";
import {
  apiRequest,
  CANARY_NAMESPACE,
  type FuzzRequest,
  hostileStream,
  type HostileStream,
  serverRequest,
} from "./generators.js";
import { Random } from "./random.js";

export interface FuzzOptions {
  seed: number;
  apiRequests: number;
  serverRequests: number;
  streams: number;
  /** Requests between checks. */
  batch?: number;
  /**
   * A request slower than this (to its response headers) on a machine with a core to spare is a
   * stall; on a busier machine the bound grows with the run queue (`loadScaled`), and a slow
   * request counts only if it is slow again when sent alone, twice (`confirmStall`). Default: 1000 ms.
   */
  stallMs?: number;
  /** The servers' heap may not pass this. Default: 1 GiB. */
  maxHeapBytes?: number;
  log?: (line: string) => void;
}

export interface FuzzReport {
  seed: number;
  requests: { api: number; servers: number; streams: number };
  crashes: string[];
  stalls: { request: string; ms: number }[];
  /** 5xx answers by cause; `unexpected` are those kube-apiserver would not give. */
  serverErrors: Record<string, number>;
  unexpected: { request: string; status: number; body: string }[];
  /** Answers that are not a Status (or the resource) with a code kube uses. */
  malformed: { request: string; status: number; body: string }[];
  /** Errors the servers reported to their onError hook: their own bugs. */
  reportedBugs: string[];
  canariesChanged: string[];
  streamFailures: string[];
  maxHeapBytes: number;
  maxClientHeapBytes: number;
  durationMs: number;
}

const STANDARD_METHODS = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "TRACE",
  "CONNECT",
]);

const KUBE_CODES = new Set([
  200, 201, 202, 301, 304, 400, 401, 403, 404, 405, 406, 409, 410, 413, 415, 422, 429, 431, 500, 503, 504,
]);

// 5xx answers kube-apiserver gives for the same request, by the start of their message.
const KUBE_5XX: [string, RegExp][] = [
  ["etcd limits (object size, quota)", /^(etcdserver: |rpc error: code = ResourceExhausted)/],
  ["etcd key check (a namespace of dots)", /^invalid key: /],
  ["resourceVersion not a uint64", /^resourceVersion: Invalid value: /],
  ["create in a namespace of dots", /^Internal error occurred: invalid resource name /],
  ["resourceVersion ahead of the server", /^(Timeout: )?Too large resource version/],
  // kube answers an apply configuration its schema does not type (a field it lacks, a value of
  // the wrong shape) with structured-merge-diff's 500.
  ["apply the schema does not type", /^failed to create typed patch object \(.*\): /],
  // An object whose managedFields take it past 10 000 levels: kube stores it and cannot read it.
  ["object too deep to read back", /^object not decodable revision=\d+: invalid character/],
  // Strategic merge patch errors kube does not classify (mergepatch.ErrBadArgType and others).
  [
    "strategic merge patch kube leaves unclassified",
    /^(expected a \[\]interface \{\}, but received a |unknown patch type: |map: .* does not contain declared merge key: |list element types are not identical: |merging lists cannot yet be specified)/,
  ],
  // A service CIDR with no address left.
  ["service range full", /^Internal error occurred: failed to allocate a serviceIP for Service /],
];

interface Ready {
  api: { url: string; token: string; ca: string };
  webhook: { url: string; ca: string };
  metrics: string;
  health: string;
}

class Target {
  readonly child: ChildProcess;
  readonly stderr: string[] = [];
  exited: string | undefined;
  #waiting: ((m: { heapUsed: number; errors: string[] }) => void) | undefined;

  constructor() {
    const entry = fileURLToPath(new URL("./target.ts", import.meta.url));
    this.child = fork(entry, [], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    this.child.stderr?.on("data", (d: Buffer) => {
      this.stderr.push(d.toString());
      if (this.stderr.length > 200) this.stderr.shift();
    });
    this.child.on("exit", (code, signal) => {
      this.exited = `the servers' process ended (code ${code}, signal ${signal}): ${this.stderr.join("").slice(-2000)}`;
      this.#waiting?.({ heapUsed: 0, errors: [] });
    });
    this.child.on("message", (m: { type: string; heapUsed: number; errors: string[] }) => {
      if (m.type === "status") this.#waiting?.(m);
    });
  }

  ready(): Promise<Ready> {
    return new Promise((resolve, reject) => {
      this.child.once("message", (m: Ready & { type: string }) => resolve(m));
      this.child.once("exit", () => reject(new Error(this.exited)));
    });
  }

  status(): Promise<{ heapUsed: number; errors: string[] }> {
    if (this.exited) return Promise.resolve({ heapUsed: 0, errors: [] });
    return new Promise((resolve) => {
      this.#waiting = resolve;
      this.child.send({ type: "status" });
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const done = new Promise((r) => this.child.once("exit", r));
    this.child.send({ type: "stop" });
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await done;
    clearTimeout(timer);
  }
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body's bytes, for answers that are not text (protobuf). */
  bytes?: Buffer;
  ms: number;
}

/**
 * Sends a request byte for byte; reads at most 4 MiB of the answer, for at most 2 s after the
 * headers (a watch streams on). A request without headers after 10 s is answered as status 0.
 */
async function send(agent: Agent, origin: string, req: FuzzRequest): Promise<Answer> {
  const started = performance.now();
  const ac = new AbortController();
  const noAnswer = setTimeout(() => ac.abort(), 10_000);
  let res: Awaited<ReturnType<Agent["request"]>>;
  try {
    res = await agent.request({
      origin,
      path: req.path,
      method: req.method as "GET",
      headers: req.headers,
      body: req.body,
      signal: ac.signal,
    });
  } catch (e) {
    if (!ac.signal.aborted) throw e;
    return { status: 0, headers: {}, body: "no answer in 10 s", ms: performance.now() - started };
  } finally {
    clearTimeout(noAnswer);
  }
  const ms = performance.now() - started;
  const chunks: Buffer[] = [];
  let size = 0;
  const cutoff = setTimeout(() => ac.abort(), 2_000);
  try {
    for await (const chunk of res.body) {
      if (size < 4 * 1024 * 1024) chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
  } catch {
    // A watch cut off by the 2 s read: what arrived is enough.
  } finally {
    clearTimeout(cutoff);
  }
  const bytes = Buffer.concat(chunks);
  return { status: res.statusCode, headers: res.headers, body: bytes.toString("utf8"), bytes, ms };
}

/**
 * A body over the server's 3 MiB limit may be cut off: the server answers and closes the
 * connection while the client still writes (Go's MaxBytesReader closes it too), so the client
 * can see EPIPE or a reset instead of the answer. Not a server failure.
 */
function cutOffUpload(req: FuzzRequest, e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  const closed = code === "EPIPE" || code === "ECONNRESET" || code === "UND_ERR_SOCKET";
  return closed && (req.body?.length ?? 0) > 3 * 1024 * 1024;
}

function describe(req: FuzzRequest): string {
  const body =
    req.body === undefined ? "" : ` (${req.body.length} bytes ${req.headers["content-type"] ?? ""})`;
  return `${req.method} ${req.path.slice(0, 200)}${body}: ${req.what}`;
}

/** Whether an answer is shaped as kube-apiserver (or Go's HTTP server before it) answers. */
function wellFormed(req: FuzzRequest, a: Answer): boolean {
  if (!KUBE_CODES.has(a.status)) return false;
  if (req.method === "HEAD" || a.status === 431) return true;
  // Node's HTTP parser refuses a method it does not know before any handler (Go's would pass it
  // on, and kube answer 405): a difference of the transport, not of the server.
  if (a.status === 400 && a.body === "" && !STANDARD_METHODS.has(req.method)) return true;
  // Go's server refuses an unparsable target in plain text.
  if (a.status === 400 && a.body === "400 Bad Request") return true;
  const type = String(a.headers["content-type"] ?? "");
  if (a.status < 300) return true;
  // A client that prefers protobuf is answered in it, as kube answers: a protobuf Status.
  if (type.startsWith("application/vnd.kubernetes.protobuf")) {
    try {
      const s = decodeProtobuf(a.bytes ?? Buffer.alloc(0), { apiVersion: "v1", kind: "Status" });
      return s.kind === "Status" && s.code === a.status;
    } catch {
      return false;
    }
  }
  // Paths no handler of kube's serves (/healthz/x, /openapi/..., a group kube does not know)
  // end in Go's http.NotFound.
  if (a.status === 404 && a.body === "404 page not found\n") return true;
  // Non-API paths answer Go's mux's plain text.
  if (!type.includes("json")) return !req.path.startsWith("/api");
  try {
    const s = JSON.parse(a.body) as { kind?: string; code?: number };
    return s.kind === "Status" && s.code === a.status;
  } catch {
    return false;
  }
}

function classify5xx(a: Answer): string | undefined {
  let message = a.body;
  try {
    message = (JSON.parse(a.body) as { message?: string }).message ?? a.body;
  } catch {
    // A client that prefers protobuf gets its errors in protobuf too, as from kube.
    try {
      const s = decodeProtobuf(a.bytes ?? Buffer.alloc(0), { apiVersion: "v1", kind: "Status" });
      if (typeof s.message === "string") message = s.message;
    } catch {}
  }
  for (const [cause, re] of KUBE_5XX) if (re.test(message)) return cause;
  return undefined;
}

/** Serves hostile watch bodies, one per request, in the order given. */
async function streamServer(queue: HostileStream[]): Promise<{ server: Server; url: string }> {
  const server = createServer(async (_req, res) => {
    const s = queue.shift();
    if (!s) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    try {
      for (const chunk of s.chunks()) {
        if (res.destroyed) return;
        if (!res.write(chunk)) {
          await new Promise<void>((resolve) => {
            const go = () => {
              res.off("drain", go).off("close", go);
              resolve();
            };
            res.on("drain", go).on("close", go);
          });
        }
        if (s.delayMs > 0) await new Promise((r) => setTimeout(r, s.delayMs));
      }
    } finally {
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * `ms` times how many runnable processes the machine has per core (the last minute's load
 * average), at least 1: a server that answers within 1 s alone is not stalled when eight
 * processes share each core, as under a parallel test run on two cores.
 */
export function loadScaled(ms: number): number {
  return ms * Math.max(1, loadavg()[0] / availableParallelism());
}

/**
 * Whether a request that took `firstMs` stalled the server: it is timed again alone with
 * `replay`, up to `replays` times, and counts only if it was over `bound()` every time. A machine
 * busy for a moment (other test files, a CI neighbour) slows one answer, not the same request
 * three times over; a request that makes the server work for seconds, or never answer, does
 * it every time, so the check can still fail. Resolves to the times taken, or undefined.
 */
export async function confirmStall(
  firstMs: number,
  replay: () => Promise<number>,
  bound: () => number,
  replays = 2,
): Promise<number[] | undefined> {
  const times = [firstMs];
  if (firstMs <= bound()) return undefined;
  for (let i = 0; i < replays; i++) {
    const ms = await replay();
    times.push(ms);
    if (ms <= bound()) return undefined;
  }
  return times.map(Math.round);
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const log = opts.log ?? (() => {});
  const batch = opts.batch ?? 100;
  const stallMs = opts.stallMs ?? 1_000;
  const maxHeap = opts.maxHeapBytes ?? 1024 ** 3;
  const report: FuzzReport = {
    seed: opts.seed,
    requests: { api: 0, servers: 0, streams: 0 },
    crashes: [],
    stalls: [],
    serverErrors: {},
    unexpected: [],
    malformed: [],
    reportedBugs: [],
    canariesChanged: [],
    streamFailures: [],
    maxHeapBytes: 0,
    maxClientHeapBytes: 0,
    durationMs: 0,
  };
  const r = new Random(opts.seed);
  const target = new Target();
  const ready = await target.ready();
  const apiAgent = new Agent({ connect: { ca: ready.api.ca }, connections: 8 });
  const webhookAgent = new Agent({ connect: { ca: ready.webhook.ca } });
  const plainAgent = new Agent();
  const admin = (path: string) =>
    send(apiAgent, ready.api.url, {
      method: "GET",
      path,
      headers: { authorization: `Bearer ${ready.api.token}` },
      what: "check",
    });
  const canaryPaths = [
    `/api/v1/namespaces/${CANARY_NAMESPACE}`,
    `/api/v1/namespaces/${CANARY_NAMESPACE}/configmaps/canary`,
    `/api/v1/namespaces/${CANARY_NAMESPACE}/secrets/canary`,
  ];
  const canaries = new Map<string, string>();
  for (const p of canaryPaths) canaries.set(p, (await admin(p)).body);

  const bound = () => loadScaled(stallMs);
  // Slow answers, timed again alone once their batch is done (confirmStall).
  const suspects: { req: FuzzRequest; ms: number; replay: () => Promise<number> }[] = [];
  const confirmSuspects = async () => {
    for (const s of suspects.splice(0)) {
      const times = await confirmStall(s.ms, s.replay, bound);
      if (times)
        report.stalls.push({ request: `${describe(s.req)} (${times.join(", ")} ms)`, ms: times[0]! });
    }
  };
  const record = async (
    req: FuzzRequest,
    a: Answer,
    server: "api" | "other",
    replay: () => Promise<Answer>,
  ) => {
    // kube's watch cache waits ~3 s for a resourceVersion ahead of it before its 504: kube's
    // own answer, not a stall.
    const freshWait = a.status === 504 && a.body.includes("Too large resource version");
    if (a.ms > bound() && !freshWait)
      suspects.push({ req, ms: a.ms, replay: async () => (await replay()).ms });
    if (!wellFormed(req, a))
      report.malformed.push({ request: describe(req), status: a.status, body: a.body.slice(0, 300) });
    if (a.status >= 500) {
      // A HEAD answer has no body to name its cause: the same request as a GET does.
      const named =
        req.method === "HEAD" && server === "api"
          ? await send(apiAgent, ready.api.url, { ...req, method: "GET" })
          : a;
      const cause = server === "api" ? classify5xx(named) : undefined;
      const key = cause ?? "unexpected";
      report.serverErrors[key] = (report.serverErrors[key] ?? 0) + 1;
      if (!cause)
        report.unexpected.push({ request: describe(req), status: a.status, body: a.body.slice(0, 300) });
    }
  };

  const check = async (when: string): Promise<boolean> => {
    const status = await target.status();
    if (target.exited) {
      report.crashes.push(`${when}: ${target.exited}`);
      return false;
    }
    report.maxHeapBytes = Math.max(report.maxHeapBytes, status.heapUsed);
    report.reportedBugs.push(...status.errors.map((e) => e.slice(0, 1000)));
    const readyz = await admin("/readyz").catch((e: Error) => ({
      status: 0,
      body: e.message,
      ms: 0,
      headers: {},
    }));
    if (readyz.status !== 200)
      report.stalls.push({ request: `GET /readyz ${when}`, ms: Math.round(readyz.ms) });
    else {
      const times = await confirmStall(readyz.ms, async () => (await admin("/readyz")).ms, bound);
      if (times)
        report.stalls.push({ request: `GET /readyz ${when} (${times.join(", ")} ms)`, ms: times[0]! });
    }
    for (const [p, before] of canaries) {
      const now = (await admin(p)).body;
      if (now !== before) {
        report.canariesChanged.push(`${when}: ${p}`);
        canaries.set(p, now);
      }
    }
    if (status.heapUsed > maxHeap) {
      report.crashes.push(`${when}: the servers' heap reached ${status.heapUsed} bytes`);
      return false;
    }
    return true;
  };

  try {
    // The API server.
    for (let done = 0; done < opts.apiRequests; ) {
      const n = Math.min(batch, opts.apiRequests - done);
      const reqs = Array.from({ length: n }, () => apiRequest(r, ready.api.token));
      // A few at a time, as clients do: concurrency finds what order alone does not.
      for (let i = 0; i < reqs.length; i += 4) {
        await Promise.all(
          reqs.slice(i, i + 4).map(async (req) => {
            try {
              if (process.env.FUZZ_DEBUG) log(`> ${describe(req)}`);
              const again = () => send(apiAgent, ready.api.url, req);
              await record(req, await again(), "api", again);
              if (process.env.FUZZ_DEBUG) log(`< ${describe(req)}`);
            } catch (e) {
              if (!target.exited && !cutOffUpload(req, e))
                report.malformed.push({
                  request: describe(req),
                  status: 0,
                  body: String((e as Error).message),
                });
            }
          }),
        );
      }
      await confirmSuspects();
      done += n;
      report.requests.api = done;
      if (!(await check(`after ${done} API requests`))) return report;
      log(`api ${done}/${opts.apiRequests}`);
    }
    // The webhook, metrics and health servers.
    for (let done = 0; done < opts.serverRequests; ) {
      const n = Math.min(batch, opts.serverRequests - done);
      for (let i = 0; i < n; i++) {
        const req = serverRequest(r);
        const origin =
          req.server === "webhook"
            ? ready.webhook.url
            : req.server === "metrics"
              ? ready.metrics
              : ready.health;
        try {
          const again = () => send(req.server === "webhook" ? webhookAgent : plainAgent, origin, req);
          await record(req, await again(), "other", again);
        } catch (e) {
          if (!target.exited && !cutOffUpload(req, e))
            report.malformed.push({
              request: `${req.server} ${describe(req)}`,
              status: 0,
              body: String((e as Error).message),
            });
        }
      }
      await confirmSuspects();
      done += n;
      report.requests.servers = done;
      if (!(await check(`after ${done} webhook/metrics/health requests`))) return report;
      log(`servers ${done}/${opts.serverRequests}`);
    }
    // Hostile watch streams against the client's decoder, in this process.
    const queue: HostileStream[] = [];
    const { server, url } = await streamServer(queue);
    const client = newRESTClient({ host: url, tls: {}, auth: {} }, { onWarning: null });
    try {
      for (let i = 0; i < opts.streams; i++) {
        const s = hostileStream(r);
        queue.push(s);
        const t0 = performance.now();
        try {
          const ac = new AbortController();
          const deadline = setTimeout(() => ac.abort(new Error("the watch did not end within 20 s")), 20_000);
          try {
            const w = await client.watch(
              { group: "", version: "v1", resource: "configmaps" },
              { signal: ac.signal, inactivityTimeoutMs: 5_000 },
            );
            for await (const _ of w) {
              // Events are consumed as an informer would; nothing to check in them.
            }
          } finally {
            clearTimeout(deadline);
          }
        } catch (e) {
          const expected =
            e instanceof WatchDecodeError || (e as { code?: string }).code === "ERR_K8S_NETWORK";
          if (!expected) report.streamFailures.push(`${s.what}: ${(e as Error).message}`);
        }
        const ms = performance.now() - t0;
        if (ms > 20_000) report.streamFailures.push(`${s.what}: took ${Math.round(ms)} ms`);
        report.maxClientHeapBytes = Math.max(report.maxClientHeapBytes, process.memoryUsage().heapUsed);
        report.requests.streams = i + 1;
      }
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((res) => server.close(res));
    }
    await check("at the end");
    return report;
  } finally {
    report.durationMs = Math.round(performance.now() - started);
    await Promise.all([apiAgent.close(), webhookAgent.close(), plainAgent.close()]);
    await target.stop();
  }
}

/** The failures of a report, one line each; empty when the run is clean. */
export function failuresOf(report: FuzzReport): string[] {
  return [
    ...report.crashes.map((c) => `crash: ${c}`),
    ...report.stalls.map((s) => `stall (${s.ms} ms): ${s.request}`),
    ...report.unexpected.map((u) => `unexpected ${u.status}: ${u.request} -> ${u.body}`),
    ...report.malformed.map((m) => `malformed ${m.status}: ${m.request} -> ${m.body}`),
    ...report.reportedBugs.map((b) => `server bug: ${b}`),
    ...report.canariesChanged.map((c) => `canary changed: ${c}`),
    ...report.streamFailures.map((s) => `watch stream: ${s}`),
  ];
}

/** The report as the note quotes it. */
export function summaryOf(report: FuzzReport): string {
  const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
  const causes = Object.entries(report.serverErrors)
    .map(([k, v]) => `${v} ${k}`)
    .join("; ");
  return [
    `seed ${report.seed}: ${report.requests.api} API requests, ${report.requests.servers} webhook/metrics/health requests, ${report.requests.streams} hostile watch streams in ${(report.durationMs / 1000).toFixed(1)} s`,
    `crashes ${report.crashes.length}, stalls (slow every time it was sent) ${report.stalls.length}, canaries changed ${report.canariesChanged.length}, malformed answers ${report.malformed.length}, bugs reported by the servers ${report.reportedBugs.length}, watch stream failures ${report.streamFailures.length}`,
    `5xx by cause: ${causes || "none"}`,
    `max heap: servers ${mb(report.maxHeapBytes)}, client ${mb(report.maxClientHeapBytes)}`,
  ].join("\n");
}
