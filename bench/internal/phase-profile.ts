// A CPU profile of one phase of a benchmark process (V8's sampling profiler over the inspector),
// so a profile shows the measured work and not module loading or set-up.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";

/** Starts profiling this process; the returned function stops and writes `<dir>/<name>.cpuprofile`. */
export async function profilePhase(
  dir: string,
  name: string,
  intervalUs = 200,
): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: intervalUs });
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(join(dir, `${name}.${process.pid}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}
