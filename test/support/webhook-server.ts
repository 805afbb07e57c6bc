// Test support for the webhook tests (not exported): a certificate directory with a CA's serving
// pair, a started server on 127.0.0.1:0, and an HTTPS client that opens a new TLS connection per
// request (so that each sees the server's current certificate).
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { type Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { Registry } from "prom-client";
import { type CertificateAuthority, newCertificateAuthority, type KeyPair } from "controller-runtime/certs";
import type { WebhookServerOptions } from "../../packages/controller-runtime/src/webhook/server-options.js";
import {
  newWebhookServer,
  type WebhookServer,
} from "../../packages/controller-runtime/src/webhook/server.js";

export interface CertDir {
  dir: string;
  ca: CertificateAuthority;
  /** Writes `pair` as tls.crt / tls.key (by rename, as Secret volumes update). */
  write(pair: KeyPair): Promise<void>;
  cleanup(): Promise<void>;
}

export async function makeCertDir(): Promise<CertDir> {
  const dir = await mkdtemp(join(tmpdir(), "webhook-test-"));
  const ca = await newCertificateAuthority("webhook-test-ca");
  const write = async (pair: KeyPair) => {
    // Key first, then certificate, each replaced atomically.
    await writeFile(join(dir, ".tls.key.tmp"), pair.keyPem);
    await writeFile(join(dir, ".tls.crt.tmp"), pair.certPem);
    await rename(join(dir, ".tls.key.tmp"), join(dir, "tls.key"));
    await rename(join(dir, ".tls.crt.tmp"), join(dir, "tls.crt"));
  };
  await write(await ca.issueServing({ ipAddresses: ["127.0.0.1"] }));
  return { dir, ca, write, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface RunningServer {
  server: WebhookServer;
  addr: AddressInfo;
  certs: CertDir;
  registry: Registry;
  /** Aborts the server and waits for start() to settle. */
  stop(): Promise<void>;
}

/** A server on 127.0.0.1:0 over a fresh certificate directory; `setup` registers handlers. */
export async function startServer(
  setup: (server: WebhookServer) => void = () => {},
  opts: WebhookServerOptions = {},
  certs?: CertDir,
): Promise<RunningServer> {
  const dir = certs ?? (await makeCertDir());
  const registry = new Registry();
  const server = newWebhookServer({ host: "127.0.0.1", port: 0, certDir: dir.dir, registry, ...opts });
  setup(server);
  const ac = new AbortController();
  const done = server.start(ac.signal);
  done.catch(() => {});
  const addr = await server.listening();
  return {
    server,
    addr,
    certs: dir,
    registry,
    stop: async () => {
      ac.abort();
      await done;
      if (!certs) await dir.cleanup();
    },
  };
}

export interface PostOptions {
  /** Default: application/json. */
  contentType?: string;
  /** Default: the test CA. */
  ca?: string;
  /** A client certificate. */
  clientCert?: KeyPair;
  method?: string;
  /** Default: none (a new connection per request). */
  agent?: Agent;
}

export interface PostResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The serial number of the certificate the server presented (upper-case hex). */
  serial: string;
  json<T = unknown>(): T;
}

/** Sends `body` (a value is JSON-encoded) over a new TLS connection. */
export function post(
  run: Pick<RunningServer, "addr" | "certs">,
  path: string,
  body: unknown,
  opts: PostOptions = {},
): Promise<PostResult> {
  const payload =
    typeof body === "string" || Buffer.isBuffer(body) ? (body as string | Buffer) : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: run.addr.port,
        path,
        method: opts.method ?? "POST",
        agent: opts.agent ?? false,
        ca: opts.ca ?? run.certs.ca.certPem,
        cert: opts.clientCert?.certPem,
        key: opts.clientCert?.keyPem,
        headers: {
          "content-type": opts.contentType ?? "application/json",
          "content-length": Buffer.byteLength(payload),
        },
      },
      (res) => {
        const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            serial,
            json: <T>() => JSON.parse(text) as T,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** The value of one sample of `name` with exactly `labels`, or undefined. */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const metrics = await registry.getMetricsAsJSON();
  for (const m of metrics) {
    for (const v of m.values as Array<{
      metricName?: string;
      labels: Record<string, string | number>;
      value: number;
    }>) {
      const metricName = v.metricName ?? m.name;
      if (metricName !== name) continue;
      const keys = Object.keys(labels);
      if (keys.length !== Object.keys(v.labels).filter((k) => k !== "le").length) continue;
      if (keys.every((k) => String(v.labels[k]) === labels[k])) return v.value;
    }
  }
  return undefined;
}
