// `npm run fuzz`: the long run. FUZZ_SEED picks the seed (default: the time); the counts can be
// raised with FUZZ_API, FUZZ_SERVERS and FUZZ_STREAMS. Exits 1 on any failure, listing each.
import { failuresOf, runFuzz, summaryOf } from "./fuzz.js";

const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const report = await runFuzz({
  seed,
  apiRequests: Number(process.env.FUZZ_API ?? 10_000),
  serverRequests: Number(process.env.FUZZ_SERVERS ?? 3_000),
  streams: Number(process.env.FUZZ_STREAMS ?? 500),
  batch: 250,
  log: (line) => console.error(line),
});
console.log(summaryOf(report));
const failures = failuresOf(report);
for (const f of failures.slice(0, 50)) console.log(`FAIL ${f}`);
if (failures.length > 50) console.log(`... and ${failures.length - 50} more`);
console.log(
  failures.length === 0 ? "fuzz: clean" : `fuzz: ${failures.length} failures (replay with FUZZ_SEED=${seed})`,
);
process.exitCode = failures.length === 0 ? 0 : 1;
