// A tiny local HTTP(S) server for the transport cases the embedded API server cannot produce:
// chunk splitting, streams closed mid-way, malformed lines, slow answers, 401s, odd error bodies.
// Test support only; never exported from the package.
import { once } from "node:events";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { CertificateAuthority, ServingCertOptions } from "controller-runtime/certs";
import type { RESTConfig } from "../../packages/controller-runtime/src/rest/config.js";

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export interface LocalServerOptions {
  /** Serve HTTPS with a certificate from this CA. Default: plain HTTP. */
  ca?: CertificateAuthority;
  /** Ask for (but don't require) a client certificate. Default: false. */
  requestCert?: boolean;
  /** Names in the serving certificate. Default: localhost, 127.0.0.1, ::1. */
  serving?: ServingCertOptions;
}

export interface LocalServer {
  url: string;
  server: Server;
  /** TCP connections accepted so far (TLS connections when serving HTTPS). */
  connections(): number;
  /** Sockets currently open. */
  openSockets(): Set<Socket>;
  config(overrides?: Partial<RESTConfig>): RESTConfig;
  close(): Promise<void>;
}

export async function startLocalServer(
  handler: Handler,
  opts: LocalServerOptions = {},
): Promise<LocalServer> {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      Promise.resolve(handler(req, res, body)).catch((err: unknown) => {
        res.statusCode = 599;
        res.end(String(err));
      });
    });
  };
  let server: Server;
  let caPem: string | undefined;
  if (opts.ca) {
    const serving = await opts.ca.issueServing(opts.serving);
    caPem = opts.ca.certPem;
    server = createHttpsServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: opts.ca.certPem,
        requestCert: opts.requestCert ?? false,
        rejectUnauthorized: false,
      },
      listener,
    );
  } else {
    server = createHttpServer(listener);
  }
  let accepted = 0;
  const open = new Set<Socket>();
  server.on(opts.ca ? "secureConnection" : "connection", (socket: Socket) => {
    accepted++;
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const url = `${opts.ca ? "https" : "http"}://127.0.0.1:${port}`;
  return {
    url,
    server,
    connections: () => accepted,
    openSockets: () => open,
    config: (overrides = {}) => ({ host: url, tls: { ca: caPem }, auth: {}, ...overrides }),
    async close() {
      server.closeAllConnections?.();
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends a JSON answer. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}
