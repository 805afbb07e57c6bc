// The health probe server: liveness (`/healthz`) and readiness (`/readyz`) endpoints, each with
// its own named checks, as the manager's `healthProbeBindAddress` serves them.
import { type Logger, nullLogger } from "../log/index.js";
import { type HTTPServerRunnable, newHTTPServerRunnable, requestTarget } from "../httpserver/index.js";
import type { Checker } from "./checker.js";
import { serveHealth } from "./handler.js";

export interface HealthProbeServerOptions {
  /**
   * `":8081"`, `"127.0.0.1:8081"`, `":0"` (a free port, see `address()`); `"0"` or `""` disable
   * the server: it opens no port and its `start()` resolves at once.
   * Default: `"0"` (disabled, as in controller-runtime).
   */
  bindAddress?: string;
  /** Default: `"/readyz"`. */
  readinessEndpointName?: string;
  /** Default: `"/healthz"`. */
  livenessEndpointName?: string;
  /**
   * How long one check may take on one probe before it counts as failed. Kubernetes' probes have
   * their own `timeoutSeconds`; this bounds checks that would otherwise hang a probe connection.
   * Default: 10000 ms.
   */
  checkTimeoutMs?: number;
  /** Default: nullLogger(). */
  logger?: Logger;
  /** Default: 2000 ms (see HTTPServerRunnableOptions). */
  shutdownTimeoutMs?: number;
}

export interface HealthProbeServer extends HTTPServerRunnable {
  /** Adds a liveness check. Names are unique per endpoint; checks may be added after start. */
  addHealthzCheck(name: string, check: Checker): void;
  /** Adds a readiness check. Names are unique per endpoint; checks may be added after start. */
  addReadyzCheck(name: string, check: Checker): void;
}

/** A check name that is empty, contains `/`, or is already taken. */
export class CheckNameError extends Error {
  override readonly name = "CheckNameError";
  readonly code = "ERR_HEALTH_CHECK_NAME";
}

/** A health probe server Runnable; nothing listens until `start()`. */
export function newHealthProbeServer(opts: HealthProbeServerOptions = {}): HealthProbeServer {
  const readyz = endpointName("readinessEndpointName", opts.readinessEndpointName ?? "/readyz");
  const healthz = endpointName("livenessEndpointName", opts.livenessEndpointName ?? "/healthz");
  if (readyz === healthz) {
    throw new Error(`the readiness and liveness endpoints must differ, both are ${JSON.stringify(readyz)}`);
  }
  const timeoutMs = opts.checkTimeoutMs ?? 10_000;
  const log = (opts.logger ?? nullLogger()).withName("controller-runtime").withName("healthz");
  const healthzChecks = new Map<string, Checker>();
  const readyzChecks = new Map<string, Checker>();
  const endpoints: [string, Map<string, Checker>][] = [
    [healthz, healthzChecks],
    [readyz, readyzChecks],
  ];

  const server = newHTTPServerRunnable({
    name: "health probe",
    bindAddress: opts.bindAddress === undefined || opts.bindAddress === "" ? "0" : opts.bindAddress,
    logger: opts.logger ?? nullLogger(),
    shutdownTimeoutMs: opts.shutdownTimeoutMs,
    handler: (req, res) => {
      const { path } = requestTarget(req);
      for (const [endpoint, checks] of endpoints) {
        if (path === endpoint || path.startsWith(`${endpoint}/`)) {
          return serveHealth(checks, req, res, path.slice(endpoint.length), { timeoutMs, log });
        }
      }
      res.writeHead(404, {
        "content-type": "text/plain; charset=utf-8",
        "x-content-type-options": "nosniff",
      });
      res.end("404 page not found\n");
    },
  });

  const add = (kind: string, checks: Map<string, Checker>, name: string, check: Checker) => {
    if (name === "" || name.includes("/")) {
      throw new CheckNameError(
        `${kind} check name ${JSON.stringify(name)} must be non-empty and contain no "/"`,
      );
    }
    if (checks.has(name)) throw new CheckNameError(`${kind} checker ${JSON.stringify(name)} already exists`);
    checks.set(name, check);
  };

  return {
    disabled: server.disabled,
    start: (signal) => server.start(signal),
    needLeaderElection: () => false,
    address: () => server.address(),
    listening: () => server.listening(),
    addHealthzCheck: (name, check) => add("healthz", healthzChecks, name, check),
    addReadyzCheck: (name, check) => add("readyz", readyzChecks, name, check),
  };
}

function endpointName(option: string, value: string): string {
  if (!/^\/[^?#\s]*[^/?#\s]$/.test(value)) {
    throw new Error(
      `${option} ${JSON.stringify(value)} must be a path like "/readyz" (leading "/", no trailing "/")`,
    );
  }
  return value;
}
