// Shared set-up of the controller tests: one embedded API server per test file, and per test a
// namespace, a cache restricted to it, a metrics registry and a controller context.
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import type { TestContext } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { Registry } from "prom-client";
import { type Kind, type KubeObject, kinds } from "controller-runtime/api";
import { type Cache, newCache } from "controller-runtime/cache";
import type { Environment } from "controller-runtime/envtest";
import { type Logger, newLogger } from "controller-runtime/log";
import { newRESTClient, type RESTClient, resourceOf } from "controller-runtime/rest";
import {
  type ControllerContext,
  newControllerContext,
} from "../../packages/controller-runtime/src/controller/context.js";
import { testEnvironment } from "./environment.js";
import { until } from "./objects.js";

export interface Harness {
  ns: string;
  rest: RESTClient;
  cache: Cache;
  ctx: ControllerContext;
  registry: Registry;
  /** Every log line, parsed. */
  lines: Record<string, unknown>[];
  /** Stops the cache and everything started with `signal`. */
  signal: AbortSignal;
  createConfigMap(name: string, meta?: Record<string, unknown>): Promise<ConfigMap>;
  touch(name: string, value: string): Promise<ConfigMap>;
  /** Resolves once the cache holds `obj`'s resourceVersion (or a later write). */
  cached<T extends KubeObject>(kind: Kind<T>, obj: T): Promise<void>;
}

/** Starts the embedded server for a test file; call `stop` in `after`. */
export async function startEnv(): Promise<{ env: Environment; rest: RESTClient }> {
  const env = testEnvironment();
  const config = await env.start();
  return { env, rest: newRESTClient(config) };
}

export async function newHarness(
  t: TestContext,
  env: Environment,
  rest: RESTClient,
  options: { logLevel?: number } = {},
): Promise<Harness> {
  const ns = `ctrl-${randomBytes(4).toString("hex")}`;
  await rest.create(resourceOf(kinds.Namespace), { metadata: { name: ns } });
  const cache = newCache(env.config, { defaultNamespaces: [ns] });
  const stop = new AbortController();
  const cacheDone = cache.start(stop.signal);
  const registry = new Registry();
  const lines: Record<string, unknown>[] = [];
  const logger = captureLogger(lines, options.logLevel);
  const ctx = newControllerContext({ logger, metricsRegistry: registry });
  t.after(async () => {
    stop.abort();
    await cacheDone;
  });
  const cm = resourceOf(kinds.ConfigMap);
  return {
    ns,
    rest,
    cache,
    ctx,
    registry,
    lines,
    signal: stop.signal,
    createConfigMap: (name, meta = {}) =>
      rest.create<ConfigMap>(cm, { metadata: { name, namespace: ns, ...meta }, data: {} }, { namespace: ns }),
    touch: (name, value) =>
      rest.patch<ConfigMap>(cm, name, { data: { v: value } }, { namespace: ns, patchType: "merge" }),
    async cached(kind, obj) {
      const want = BigInt(obj.metadata!.resourceVersion!);
      await until(`the cache holds ${obj.metadata!.name} at ${want}`, async () => {
        try {
          const got = await cache.get(kind, { namespace: ns, name: obj.metadata!.name! });
          return BigInt(got.metadata!.resourceVersion!) >= want;
        } catch {
          return false;
        }
      });
    },
  };
}

/** A JSON logger writing parsed lines into `lines`. */
export function captureLogger(lines: Record<string, unknown>[], level = 0): Logger {
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split("\n")) if (l.trim() !== "") lines.push(JSON.parse(l));
      cb();
    },
  });
  return newLogger({ destination, level });
}

/** A promise with its resolve function, to await events from reconcilers. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(v: T): void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The value of a counter or gauge series in `registry`. */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const m = registry.getSingleMetric(name);
  if (m === undefined) return undefined;
  const { values } = await m.get();
  const v = values.find((x) => Object.entries(labels).every(([k, l]) => x.labels[k] === l));
  return v?.value;
}
