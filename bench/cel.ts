// CEL validation rules' cost in the embedded API server (issue 14). One server process per
// round; two CRDs with the same schema, one with 20 x-kubernetes-validations rules spread over
// its levels (root, nested objects, list items, map values), one with none; the same creates of
// the same objects for each (1 000 after a 200-create warm-up, 8 clients), order alternating,
// 3 rounds. Reported: the server's CPU per create for each and their ratio (target <= 1.5x), and
// the wall time of creating a CRD with 100 rules (compiled and checked as it is written).
// `npx tsx bench/cel.ts`, or `npm run bench -- cel`.
import { pathToFileURL } from "node:url";
import { newRESTClient, type RESTClient } from "controller-runtime/rest";
import { rangeNote, summarize } from "./internal/stats.js";
import { type ServerProcess, startServerProcess } from "./internal/server-process.js";
import { type BenchRow, printRows } from "./report.js";

const CREATES = Number(process.env.CEL_BENCH_CREATES ?? 3_000);
const WARMUP = 1_000;
const CHUNKS = 10;
const ROUNDS = 3;
const CLIENTS = 8;
const GROUP = "bench.cel.example.com";
const CRDS = { group: "apiextensions.k8s.io", version: "v1", resource: "customresourcedefinitions" };

/** The rules: 20 spread over the schema, each true for the objects created. */
function rules(n: number): { root: object[]; spec: object[]; item: object[]; value: object[] } {
  const all = [
    (i: number) => ({ rule: `self.replicas >= 0 && self.replicas < ${1000 + i}`, message: `replicas ${i}` }),
    (i: number) => ({ rule: `self.name.size() < ${64 + i}`, message: `name ${i}` }),
    (i: number) => ({ rule: `self.ports.all(p, p.port > ${i % 5})`, message: `ports ${i}` }),
    (i: number) => ({ rule: `self.labels.all(k, k.size() < ${64 + i})`, message: `labels ${i}` }),
  ];
  const spec = Array.from({ length: n }, (_, i) => all[i % all.length]!(i));
  return {
    root: [{ rule: "self.metadata.name.startsWith('o')" }],
    spec: spec.slice(0, Math.max(0, n - 3)),
    item: [{ rule: "self.port < 65536" }],
    value: [{ rule: "self.size() < 100" }],
  };
}

function crd(plural: string, n: number): object {
  const r = rules(n);
  const v = (list: object[]) => (n === 0 ? {} : { "x-kubernetes-validations": list });
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: {
        plural,
        singular: plural.slice(0, -1),
        kind: plural[0]!.toUpperCase() + plural.slice(1, -1),
        listKind: `${plural}List`,
      },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              ...v(r.root),
              properties: {
                spec: {
                  type: "object",
                  ...v(r.spec),
                  properties: {
                    replicas: { type: "integer" },
                    name: { type: "string", maxLength: 63 },
                    ports: {
                      type: "array",
                      maxItems: 16,
                      items: { type: "object", ...v(r.item), properties: { port: { type: "integer" } } },
                    },
                    labels: {
                      type: "object",
                      maxProperties: 16,
                      additionalProperties: { type: "string", maxLength: 63, ...v(r.value) },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

async function installed(rest: RESTClient, plural: string, n: number): Promise<void> {
  await rest.create(CRDS, crd(plural, n));
  const resource = { group: GROUP, version: "v1", resource: plural, namespaced: true };
  for (let i = 0; i < 500; i++) {
    try {
      await rest.list(resource, { namespace: "default" });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  throw new Error(`${plural} never served`);
}

async function creates(server: ServerProcess, plural: string, kind: string, tag: string, count: number) {
  const clients = Array.from({ length: CLIENTS }, () => newRESTClient(server.restConfig));
  const resource = { group: GROUP, version: "v1", resource: plural, namespaced: true };
  const spec = {
    replicas: 3,
    name: "web",
    ports: [{ port: 80 }, { port: 443 }, { port: 8080 }],
    labels: { app: "web", tier: "front", team: "a" },
  };
  let next = 0;
  const cpu0 = await server.cpuMs();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = next++; i < count; i = next++) {
        const body = { apiVersion: `${GROUP}/v1`, kind, metadata: { name: `o-${tag}-${i}` }, spec };
        await c.create(resource, body, { namespace: "default" });
      }
    }),
  );
  const cpuUs = (((await server.cpuMs()) - cpu0) * 1000) / count;
  await Promise.all(clients.map((c) => c.close()));
  return cpuUs;
}

export async function run(): Promise<BenchRow[]> {
  const withRules: number[] = [];
  const without: number[] = [];
  const ratios: number[] = [];
  const crdMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const server = await startServerProcess();
    const rest = newRESTClient(server.restConfig);
    try {
      await installed(rest, "ruleds", 20);
      await installed(rest, "plains", 0);
      await creates(server, "ruleds", "Ruled", "warm", WARMUP);
      await creates(server, "plains", "Plain", "warm", WARMUP);
      // Interleaved in chunks, order alternating, so that both sides see the same server state
      // (JIT, heap, store size): measured one after the other, whichever ran first paid more.
      const got: Record<string, number> = { ruleds: 0, plains: 0 };
      for (let chunk = 0; chunk < CHUNKS; chunk++) {
        const order = (chunk + round) % 2 ? ["plains", "ruleds"] : ["ruleds", "plains"];
        for (const plural of order) {
          const kind = plural === "ruleds" ? "Ruled" : "Plain";
          got[plural]! += (await creates(server, plural, kind, `m${chunk}`, CREATES / CHUNKS)) / CHUNKS;
        }
      }
      withRules.push(got.ruleds!);
      without.push(got.plains!);
      ratios.push(got.ruleds! / got.plains!);
      const t0 = performance.now();
      await rest.create(CRDS, crd(`hundreds${round}s`, 100));
      crdMs.push(performance.now() - t0);
    } finally {
      await rest.close();
      await server.stop();
    }
  }
  return [
    {
      name: "server CPU per create, custom resource with 20 CEL rules",
      value: summarize(withRules).median,
      unit: "µs",
      note: rangeNote(withRules),
    },
    {
      name: "server CPU per create, the same custom resource without rules",
      value: summarize(without).median,
      unit: "µs",
      note: rangeNote(without),
    },
    {
      name: "20 rules / none, server CPU per create",
      value: summarize(ratios).median,
      unit: "×",
      note: `${rangeNote(ratios)}; target <= 1.5`,
    },
    {
      name: "create of a CRD with 100 CEL rules (compiled and checked)",
      value: summarize(crdMs).median,
      unit: "ms",
      note: `${rangeNote(crdMs)}; wall, first CRD with rules in a fresh server excluded`,
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
