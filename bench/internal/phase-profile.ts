// Profiles of one phase of a benchmark process over the inspector (V8's sampling CPU and heap
// profilers), so a profile shows the measured work and not module loading or set-up.
import { writeFileSync } from "node:fs";
import type { HeapProfiler } from "node:inspector";
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

type HeapProfile = HeapProfiler.SamplingHeapProfile;

/**
 * Starts V8's sampling heap profiler on this process: a sample every ~256 bytes allocated,
 * objects the GC has already collected included. The returned function stops it.
 */
async function sampleHeap(): Promise<() => Promise<HeapProfile>> {
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
    session.disconnect();
    return profile;
  };
}

/**
 * Samples what this process allocates; the returned function stops and writes
 * `<dir>/<name>.<pid>.heapprofile`, which Chrome DevTools opens, by allocating function.
 */
export async function profileAllocations(dir: string, name: string): Promise<() => Promise<void>> {
  const stop = await sampleHeap();
  return async () => {
    const profile = await stop();
    writeFileSync(join(dir, `${name}.${process.pid}.heapprofile`), JSON.stringify(profile));
  };
}

/**
 * Samples what this process allocates; the returned function stops and resolves to the bytes
 * sampled, an estimate of everything the process allocated meanwhile.
 */
export async function sampleAllocations(): Promise<() => Promise<number>> {
  const stop = await sampleHeap();
  return async () => {
    const profile = await stop();
    let bytes = 0;
    const stack = [profile.head];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      bytes += node.selfSize;
      stack.push(...node.children);
    }
    return bytes;
  };
}
