// A proxy in front of this run's API server that holds back watch events: each chunk of a watch
// response reaches the client `delayMs` after the server sent it, in order. Requests that are not
// watches pass at once. It makes a lagging cache on demand, in every envtest mode (the fault
// injection issue generalises it). The proxy carries the credentials; its clients need none.
import { type IncomingMessage, type ServerResponse, createServer, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { RESTConfig } from "../../src/rest/index.js";

export interface WatchDelayProxy {
  /** A config reaching the API server through the proxy (plain HTTP on loopback, no credentials). */
  readonly config: RESTConfig;
  /** How long each watch chunk is held from now on. */
  delayMs: number;
  close(): Promise<void>;
}

function isWatch(url: string): boolean {
  const query = new URL(url, "http://x").searchParams;
  const watch = query.get("watch");
  return watch === "true" || watch === "1";
}

export async function startWatchDelayProxy(upstream: RESTConfig, delayMs = 0): Promise<WatchDelayProxy> {
  const target = new URL(upstream.host);
  const secure = target.protocol === "https:";
  const auth: Record<string, string> = {};
  if (upstream.auth.bearerToken) auth.authorization = `Bearer ${upstream.auth.bearerToken}`;
  else if (upstream.auth.username !== undefined) {
    auth.authorization = `Basic ${Buffer.from(`${upstream.auth.username}:${upstream.auth.password ?? ""}`).toString("base64")}`;
  }
  const proxy: WatchDelayProxy = {
    config: { host: "", tls: {}, auth: {} },
    delayMs,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // watches stay open otherwise
      }),
  };
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const headers = { ...req.headers, ...auth, host: target.host };
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
        res.flushHeaders(); // a watch's headers come before any event
        if (!isWatch(req.url ?? "")) {
          answer.pipe(res);
          return;
        }
        // Each chunk leaves `delayMs` after it arrived; the chain keeps them in order.
        let chain = Promise.resolve();
        answer.on("data", (chunk: Buffer) => {
          const due = performance.now() + proxy.delayMs;
          chain = chain.then(async () => {
            const wait = due - performance.now();
            if (wait > 0) await sleep(wait);
            if (!res.destroyed) res.write(chunk);
          });
        });
        answer.on("end", () => {
          chain = chain.then(() => void res.end());
        });
        answer.on("error", () => res.destroy());
      },
    );
    up.on("error", () => res.destroy());
    res.on("close", () => up.destroy());
    req.pipe(up);
  };
  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  proxy.config.host = `http://127.0.0.1:${port}`;
  return proxy;
}
