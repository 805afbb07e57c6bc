// What authorization costs (issue 13). Two experiments:
// 1. GETs of one ConfigMap by a user RBAC allows through a RoleBinding (among 200 other users'
//    bindings), against an embedded server in its own process with `authorization: "RBAC"` and
//    one with `"AlwaysAllow"`; 8 keep-alive clients, a warm-up round per side, sides alternated,
//    5 repetitions. Reported: the server's CPU per GET on each side (median, min–max) and the
//    RBAC side's extra as a share of a GET's server time (target < 5 %).
//    The A/B difference is within the run-to-run noise of a GET, so the cost is also measured
//    directly: requestAttributes() plus authorize() for that GET, timed in this process against
//    an embedded server holding the same bindings, as a share of the RBAC side's CPU per GET.
// 2. A metrics scrape behind withAuthenticationAndAuthorization(): with a token never seen (a
//    TokenReview and a SubjectAccessReview to the API server: cold) and the same token again
//    (cached: warm), beside the same scrape without the filter; median and min–max of 60.
// `npx tsx bench/authorization.ts`, or `npm run bench -- authorization`.
import { cpuUsage } from "node:process";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { Agent, request } from "undici";
import { startAPIServer } from "controller-runtime-apiserver";
import { requestAttributes } from "../packages/apiserver/src/authz/index.js";
import { requestTarget } from "../packages/apiserver/src/request-path.js";
import { nullLogger } from "controller-runtime/log";
import {
  newMetricsRegistry,
  newMetricsServer,
  withAuthenticationAndAuthorization,
} from "controller-runtime/metrics";
import { newRESTClient, type RESTClient } from "controller-runtime/rest";
import { startServerProcess } from "./internal/server-process.js";
import { type BenchRow, printRows } from "./report.js";

const userToken = "bench-user-token";
const ns = "default";
const rbac = "/apis/rbac.authorization.k8s.io/v1";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
const range = (xs: number[], digits = 1) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

async function grantGets(admin: RESTClient): Promise<void> {
  const post = (path: string, body: object) => admin.request({ method: "POST", path, body });
  await post(`/api/v1/namespaces/${ns}/configmaps`, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "target" },
    data: { a: "b" },
  });
  await post(`${rbac}/namespaces/${ns}/roles`, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: "reader" },
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
  });
  // A cluster with other tenants: 200 bindings for other users before the one that applies.
  for (let i = 0; i < 200; i++) {
    await post(`${rbac}/namespaces/${ns}/rolebindings`, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: `other-${String(i).padStart(3, "0")}` },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: `user-${i}` }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
    });
  }
  await post(`${rbac}/namespaces/${ns}/rolebindings`, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: "zz-bench" },
    subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "bench-user" }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
  });
}

type Mode = "RBAC" | "AlwaysAllow";

async function startSide(mode: Mode) {
  const server = await startServerProcess({
    authorization: mode,
    users: [{ token: userToken, name: "bench-user" }],
  });
  const admin = newRESTClient(server.restConfig);
  await grantGets(admin);
  await admin.close();
  const userConfig = { ...server.restConfig, auth: { bearerToken: userToken } };
  const clients = Array.from({ length: 8 }, () => newRESTClient(userConfig));
  return { server, clients };
}

/** Server CPU µs per GET and GETs/s over `total` GETs. */
async function gets(side: Awaited<ReturnType<typeof startSide>>, total: number) {
  const cpuBefore = await side.server.cpuMs();
  const start = performance.now();
  let next = 0;
  await Promise.all(
    side.clients.map(async (c) => {
      for (let i = next++; i < total; i = next++)
        await c.request({ path: `/api/v1/namespaces/${ns}/configmaps/target` });
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const cpu = (await side.server.cpuMs()) - cpuBefore;
  return { cpuUsPerGet: (cpu * 1000) / total, getsPerSec: total / seconds };
}

/** ns per requestAttributes() + authorize() of the benchmark's GET, in this process. */
async function authorizeNs(): Promise<number[]> {
  const server = await startAPIServer({ users: [{ token: userToken, name: "bench-user" }] });
  try {
    const admin = newRESTClient(server.restConfig());
    await grantGets(admin);
    await admin.close();
    const user = { name: "bench-user", groups: ["system:authenticated"] };
    const target = requestTarget(`/api/v1/namespaces/${ns}/configmaps/target`);
    const once = () => {
      const decision = server.authorization.authorize(requestAttributes("GET", target, user));
      if (!decision.allowed) throw new Error("the benchmark's GET is not allowed");
    };
    const n = 200_000;
    for (let i = 0; i < n; i++) once(); // warm-up
    const samples: number[] = [];
    for (let rep = 0; rep < 5; rep++) {
      const start = performance.now();
      for (let i = 0; i < n; i++) once();
      samples.push(((performance.now() - start) * 1e6) / n);
    }
    return samples;
  } finally {
    await server.stop();
  }
}

async function getCost(): Promise<BenchRow[]> {
  const sides = { RBAC: await startSide("RBAC"), AlwaysAllow: await startSide("AlwaysAllow") };
  const samples: Record<Mode, { cpuUsPerGet: number; getsPerSec: number }[]> = { RBAC: [], AlwaysAllow: [] };
  try {
    for (const mode of ["RBAC", "AlwaysAllow"] as const) await gets(sides[mode], 2000); // warm-up
    for (let rep = 0; rep < 5; rep++) {
      const order: Mode[] = rep % 2 === 0 ? ["RBAC", "AlwaysAllow"] : ["AlwaysAllow", "RBAC"];
      for (const mode of order) samples[mode].push(await gets(sides[mode], 4000));
    }
  } finally {
    for (const s of Object.values(sides)) {
      await Promise.all(s.clients.map((c) => c.close()));
      await s.server.stop();
    }
  }
  const cpu = (m: Mode) => samples[m].map((s) => s.cpuUsPerGet);
  const rate = (m: Mode) => samples[m].map((s) => s.getsPerSec);
  const shares = samples.RBAC.map((s, i) => (s.cpuUsPerGet / samples.AlwaysAllow[i].cpuUsPerGet - 1) * 100);
  const direct = await authorizeNs();
  const directShare = (median(direct) / 1000 / median(cpu("RBAC"))) * 100;
  return [
    {
      name: "authorization of that GET (attributes + RBAC)",
      value: median(direct),
      unit: "ns",
      note: `min–max ${range(direct, 0)}, 5 × 200 000 in this process`,
    },
    {
      name: "authorization's share of a GET's server CPU",
      value: directShare,
      unit: "%",
      note: "direct ÷ RBAC side's CPU per GET; target < 5 %",
    },
    {
      name: "GET, server CPU per request, RBAC",
      value: median(cpu("RBAC")),
      unit: "µs",
      note: `min–max ${range(cpu("RBAC"))}, 5 reps`,
    },
    {
      name: "GET, server CPU per request, AlwaysAllow",
      value: median(cpu("AlwaysAllow")),
      unit: "µs",
      note: `min–max ${range(cpu("AlwaysAllow"))}`,
    },
    {
      name: "GET, RBAC side over AlwaysAllow side",
      value: median(shares),
      unit: "%",
      note: `per-rep min–max ${range(shares)}: the A/B cannot resolve the cost`,
    },
    {
      name: "GETs/s, RBAC",
      value: median(rate("RBAC")),
      unit: "/s",
      note: `min–max ${range(rate("RBAC"), 0)}, 8 clients`,
    },
    {
      name: "GETs/s, AlwaysAllow",
      value: median(rate("AlwaysAllow")),
      unit: "/s",
      note: `min–max ${range(rate("AlwaysAllow"), 0)}`,
    },
  ];
}

async function scrapeLatency(): Promise<BenchRow[]> {
  const server = await startServerProcess();
  const admin = newRESTClient(server.restConfig);
  const post = (path: string, body: object) => admin.request({ method: "POST", path, body });
  await post(`/api/v1/namespaces/${ns}/serviceaccounts`, {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: "scraper" },
  });
  await post(`${rbac}/clusterroles`, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "metrics-reader" },
    rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
  });
  await post(`${rbac}/clusterrolebindings`, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "metrics-reader" },
    subjects: [{ kind: "ServiceAccount", name: "scraper", namespace: ns }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "metrics-reader" },
  });
  const token = async () =>
    (
      await admin.request<{ status: { token: string } }>({
        method: "POST",
        path: `/api/v1/namespaces/${ns}/serviceaccounts/scraper/token`,
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
      })
    ).status.token;
  const registry = newMetricsRegistry();
  const rest = newRESTClient(server.restConfig);
  const filtered = newMetricsServer({
    bindAddress: "127.0.0.1:0",
    registry,
    secureServing: true,
    filter: withAuthenticationAndAuthorization()(rest, nullLogger()),
  });
  const plain = newMetricsServer({ bindAddress: "127.0.0.1:0", registry, secureServing: true });
  const stop = new AbortController();
  const running = [filtered.start(stop.signal), plain.start(stop.signal)];
  const [fa, pa] = [await filtered.listening(), await plain.listening()];
  const agent = new Agent({ connect: { rejectUnauthorized: false } });
  const scrape = async (port: number, t?: string) => {
    const start = performance.now();
    const res = await request(`https://127.0.0.1:${port}/metrics`, {
      dispatcher: agent,
      headers: t ? { authorization: `Bearer ${t}` } : {},
    });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`scrape answered ${res.statusCode}`);
    return performance.now() - start;
  };
  const cold: number[] = [];
  const warm: number[] = [];
  const none: number[] = [];
  try {
    const tokens = await Promise.all(Array.from({ length: 65 }, token));
    const warmToken = tokens.pop()!;
    await scrape(fa!.port, warmToken); // warm-up: connections, TLS, the warm token's reviews
    await scrape(pa!.port);
    for (let i = 0; i < 60; i++) {
      // Rotated: each kind of scrape goes first in turn.
      const order = [
        () => scrape(fa!.port, tokens[i]),
        () => scrape(fa!.port, warmToken),
        () => scrape(pa!.port),
      ];
      const results: number[] = [];
      for (let k = 0; k < 3; k++) results[(k + i) % 3] = await order[(k + i) % 3]();
      cold.push(results[0]);
      warm.push(results[1]);
      none.push(results[2]);
    }
  } finally {
    stop.abort();
    await Promise.all(running);
    await agent.close();
    await rest.close();
    await admin.close();
    await server.stop();
  }
  const row = (name: string, xs: number[], note: string): BenchRow => ({
    name,
    value: median(xs),
    unit: "ms",
    note: `min–max ${range(xs, 2)}; ${note}`,
  });
  return [
    row(
      "metrics scrape, filter cold (new token)",
      cold,
      "a TokenReview and a SubjectAccessReview, 60 samples",
    ),
    row("metrics scrape, filter warm (cached)", warm, "no review"),
    row("metrics scrape, no filter", none, "the same server without the filter"),
  ];
}

export async function run(): Promise<BenchRow[]> {
  const cpuStart = cpuUsage();
  const rows = [...(await getCost()), ...(await scrapeLatency())];
  const cpu = cpuUsage(cpuStart);
  rows.push({
    name: "bench process CPU (clients)",
    value: (cpu.user + cpu.system) / 1000,
    unit: "ms",
    note: "this process, both experiments",
  });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) printRows(await run());
