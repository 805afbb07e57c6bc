// A proxy in front of kube-apiserver (the binaries mode) or an existing cluster that acts out
// injected faults, so that `env.faults` works against a real API server for every fault a proxy
// can make: errors with kube's Status, latency, partitions, restarts (every connection dropped),
// watches cut, expired, held, delayed or repeated, and stolen Leases (through the API). What needs
// the server's own storage (compaction, stale watch-cache reads) stays with the embedded server.
// The proxy listens on loopback in plain HTTP and adds the environment admin's credentials to
// requests that bring none.
import { createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { Faults, type FaultRequest, type Obj, type WatchFault } from "./faults/faults.js";
import { type EndFault, WatchFaultGate } from "./faults/watch-fault-gate.js";
import { FaultStatusError } from "./faults/status.js";
import type { RESTConfig } from "../rest/index.js";
import { isConflict, newRESTClient } from "../rest/index.js";

export interface FaultProxy {
  /** Reaches the API server through the proxy. */
  readonly config: RESTConfig;
  readonly faults: Faults;
  close(): Promise<void>;
}

const LEASES = { group: "coordination.k8s.io", version: "v1", resource: "leases", namespaced: true };

/** What a path names, as the embedded server's router reads it; undefined for non-resource paths. */
function parsePath(url: URL): (Omit<FaultRequest, "req" | "res" | "user"> & { watch: boolean }) | undefined {
  const seg = url.pathname
    .split("/")
    .filter((s) => s !== "")
    .map(decodeURIComponent);
  let group: string;
  let rest: string[];
  if (seg[0] === "api" && seg.length >= 3) {
    group = "";
    rest = seg.slice(2);
  } else if (seg[0] === "apis" && seg.length >= 4) {
    group = seg[1]!;
    rest = seg.slice(3);
  } else return undefined;
  let watch = false;
  if (rest[0] === "watch") {
    watch = true;
    rest = rest.slice(1);
  }
  let namespace = "";
  if (
    rest[0] === "namespaces" &&
    rest.length >= 3 &&
    !(rest.length === 3 && (rest[2] === "status" || rest[2] === "finalize"))
  ) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  const [plural = "", name = "", subresource = ""] = rest;
  if (!plural) return undefined;
  const w = url.searchParams.get("watch");
  if (!name && (w === "true" || w === "1")) watch = true;
  return { def: { group, plural, kind: "" }, namespace, name, subresource, watch };
}

/** One proxied watch: its JSON lines through the faults armed on it. */
class ProxiedWatch {
  readonly #gate: WatchFaultGate;
  #closed = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly resourceVersion: () => string,
  ) {
    this.#gate = new WatchFaultGate(
      (line) => res.write(line),
      (end) => this.#end(end),
      () => this.#closed,
    );
  }

  arm(fault: WatchFault): void {
    this.#gate.arm(fault);
  }

  /** One line of the upstream watch (a JSON event and its newline); bookmarks are not counted. */
  line(line: string): void {
    this.#gate.line(line, !line.startsWith('{"type":"BOOKMARK"'));
  }

  /** The upstream watch ended: end this one once delayed lines went out. */
  end(): void {
    this.#gate.after(() => {
      if (!this.#closed) this.res.end();
      this.#closed = true;
    });
  }

  #end(fault: EndFault): void {
    this.#closed = true;
    if (fault.type === "dropWatch") {
      this.res.socket?.end();
      return;
    }
    const rv = this.resourceVersion();
    const status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `too old resource version: ${rv} (${Number(rv) + 1})`,
      reason: "Expired",
      code: 410,
    };
    this.res.end(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
  }
}

/** Starts a fault proxy in front of the API server `upstream` reaches. */
export async function startFaultProxy(upstream: RESTConfig): Promise<FaultProxy> {
  const target = new URL(upstream.host);
  const secure = target.protocol === "https:";
  const auth: Record<string, string> = {};
  if (upstream.auth.bearerToken) auth.authorization = `Bearer ${upstream.auth.bearerToken}`;
  else if (upstream.auth.username !== undefined) {
    const pair = `${upstream.auth.username}:${upstream.auth.password ?? ""}`;
    auth.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
  }
  const sockets = new Set<Socket>();
  const api = newRESTClient(upstream);
  let lastRv = "0";
  const faults = new Faults({
    dropConnections: () => {
      for (const s of sockets) s.destroy();
    },
    getLease: async (namespace, name) => {
      try {
        return (await api.get(LEASES, name, { namespace })) as unknown as Obj;
      } catch {
        return undefined;
      }
    },
    putLease: async (lease) => {
      const meta = lease.metadata as { name: string; namespace: string };
      try {
        await api.update(LEASES, lease as never, { namespace: meta.namespace, name: meta.name });
        return true;
      } catch (err) {
        if (isConflict(err)) return false;
        throw err;
      }
    },
    unsupported: {
      staleReads: "needs the embedded API server (its watch cache's past), not a proxy",
    },
    now: () => new Date(),
  });

  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://proxy");
    const parsed = parsePath(url);
    let watch: ProxiedWatch | undefined;
    let untrack = () => {};
    if (parsed && faults.active) {
      const fr: FaultRequest = { ...parsed, req, res, user: { name: "" } };
      try {
        const { watchFault } = await faults.before(fr, req.method ?? "GET", parsed.watch);
        if (parsed.watch) {
          watch = new ProxiedWatch(res, () => lastRv);
          if (watchFault) watch.arm(watchFault);
        }
      } catch (err) {
        if (!(err instanceof FaultStatusError)) throw err;
        res.writeHead(err.code, { "content-type": "application/json" });
        res.end(JSON.stringify(err.status));
        return;
      }
    }
    if (parsed?.watch && !watch) watch = new ProxiedWatch(res, () => lastRv);
    if (parsed?.watch && watch) {
      const w = watch;
      untrack = faults.trackWatch({ ...parsed, req, res, user: { name: "" } }, (f) => w.arm(f));
    }
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host };
    if (!headers.authorization) Object.assign(headers, auth);
    // Watches as JSON lines, which the proxy can count, hold and repeat.
    if (watch) headers.accept = "application/json";
    const send = secure ? httpsRequest : httpRequest;
    const up = send(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: `${target.pathname.replace(/\/$/, "")}${req.url}`,
        headers,
        ca: upstream.tls.ca,
        cert: upstream.tls.cert,
        key: upstream.tls.key,
        rejectUnauthorized: !upstream.tls.insecureSkipVerify,
        servername: upstream.tls.serverName,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        // A watch's headers come before any event: the client waits for them to start reading.
        res.flushHeaders();
        if (!watch || (answer.statusCode ?? 0) >= 300) {
          answer.pipe(res);
          return;
        }
        const w = watch;
        let partial = "";
        answer.setEncoding("utf8");
        answer.on("data", (chunk: string) => {
          const lines = (partial + chunk).split("\n");
          partial = lines.pop() ?? "";
          for (const line of lines) {
            const rv = /"resourceVersion":"(\d+)"/.exec(line)?.[1];
            if (rv) lastRv = rv;
            w.line(`${line}\n`);
          }
        });
        answer.on("end", () => w.end());
        answer.on("error", () => res.destroy());
      },
    );
    up.on("error", () => res.destroy());
    res.on("close", () => {
      up.destroy();
      untrack();
    });
    req.pipe(up);
  };
  const server = createServer((req, res) => {
    forward(req, res).catch(() => res.destroy());
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    config: { ...upstream, host: `http://127.0.0.1:${port}`, tls: {}, auth: {} },
    faults,
    close: async () => {
      faults.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await api.close();
    },
  };
}
