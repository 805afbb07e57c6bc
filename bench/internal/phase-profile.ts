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

/**
 * Samples what this process allocates (V8's sampling heap profiler, every ~256 bytes, objects the
 * GC has already collected included); the returned function stops and writes
 * `<dir>/<name>.<pid>.heapprofile`, which Chrome DevTools opens, by allocating function.
 */
export async function profileAllocations(dir: string, name: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  // The include flags are V8's (since 11.0), not yet in Node's protocol types.
  const params = {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  };
  await session.post("HeapProfiler.startSampling", params);
  return async () => {
    const { profile } = await session.post("HeapProfiler.stopSampling");
    writeFileSync(join(dir, `${name}.${process.pid}.heapprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * Starts sampling allocations as {@link profileAllocations} does; the returned function stops and
 * resolves to the bytes sampled, an estimate of everything this process allocated meanwhile.
 */
export async function sampleAllocations(): Promise<() => Promise<number>> {
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  const params = {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  };
  await session.post("HeapProfiler.startSampling", params);
  return async () => {
    const { profile } = await session.post("HeapProfiler.stopSampling");
    session.disconnect();
    let bytes = 0;
    const stack = [profile.head];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      bytes += node.selfSize;
      stack.push(...node.children);
    }
    return bytes;
  };
}
