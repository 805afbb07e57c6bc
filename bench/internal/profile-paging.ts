// Profiles the first page of a paged list (bench/apiserver-paging.ts) in the embedded server: the
// server in its own process, filled by a load generator, V8's sampling profiler on in the server
// only while the pages are asked for. Prints the server CPU per page and writes the profile.
// `npx tsx bench/internal/profile-paging.ts [--objects N] [--pages N] [--out DIR]`
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { kinds } from "controller-runtime/api";
import { newRESTClient, resourceOf } from "controller-runtime/rest";
import { startLoadProcess } from "./load-process.js";
import { startServerProcess } from "./server-process.js";

const { values } = parseArgs({
  options: {
    objects: { type: "string", default: "10000" },
    pages: { type: "string", default: "200" },
    out: { type: "string", default: ".tmp/profiles" },
    "no-profile": { type: "boolean", default: false },
  },
});
const CM = resourceOf(kinds.ConfigMap);
await mkdir(values.out, { recursive: true });
const server = await startServerProcess({ historySize: 50_000 });
const load = await startLoadProcess({ restConfig: server.restConfig, clients: 8, payloadBytes: 400 });
const rest = newRESTClient(server.restConfig);
try {
  await rest.create(resourceOf(kinds.Namespace), { metadata: { name: "paging" } });
  await load.burst("paging", "cm", Number(values.objects));
  const pages = Number(values.pages);
  const page = () => rest.list(CM, { namespace: "paging", limit: 500 });
  for (let i = 0; i < 20; i++) await page(); // warm-up
  const path = join(values.out, "first-page.cpuprofile");
  if (!values["no-profile"]) await server.startProfile(100);
  const c0 = await server.cpuMs();
  const t0 = performance.now();
  for (let i = 0; i < pages; i++) await page();
  const wall = (performance.now() - t0) / pages;
  const cpu = ((await server.cpuMs()) - c0) / pages;
  if (!values["no-profile"]) await server.stopProfile(path);
  console.log(
    `first page of 500 @ ${values.objects}: ${wall.toFixed(2)} ms wall, server CPU ${cpu.toFixed(2)} ms`,
  );
} finally {
  await rest.close();
  await load.stop();
  await server.stop();
}
