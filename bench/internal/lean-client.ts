// A lean load generator for bench/apiserver.ts: keep-alive HTTP/1.1 over TLS sockets opened from
// a RESTConfig, one request in flight per connection, each request's head and body encoded into
// one buffer before the clock starts, answers framed (Content-Length or chunked) and checked by
// status code but never decoded. Both sides of the bench get exactly this client, so its CPU per
// request is small and the same for both, and the servers, not the load generator, set the pace.
// Why not the library's RESTClient (undici, encoding each object and decoding each answer) or
// node:http2: each spent about as much CPU per create as the embedded server does (150–190 µs
// measured), and on 2 shared cores the load generator's CPU caps the throughput it can measure.
import { isIP } from "node:net";
import { connect, type TLSSocket } from "node:tls";
import type { RESTConfig } from "../../packages/controller-runtime/src/rest/config.js";

/** kube's protobuf media type, asked for first as client-go does for built-in kinds. */
export const LEAN_PROTOBUF = "application/vnd.kubernetes.protobuf";

export interface LeanRequest {
  method: "GET" | "POST";
  /** Path and query, relative to the config's host. */
  path: string;
  body?: Uint8Array;
  contentType?: string;
}

export interface LeanClient {
  /** Encodes a request once, to be sent any number of times. */
  encode(req: LeanRequest): Buffer;
  /**
   * Sends `requests(i)` for every i below `total`, one in flight per connection; rejects on a
   * status ≥ 300, naming the request and the answer.
   */
  run(requests: (i: number) => Buffer, total: number): Promise<void>;
  close(): Promise<void>;
}

const CRLF2 = Buffer.from("\r\n\r\n");

/** `connections` keep-alive TLS connections to `config.host`. */
export async function newLeanClient(config: RESTConfig, connections = 8): Promise<LeanClient> {
  const url = new URL(config.host);
  const hostname = url.hostname.replace(/^\[|\]$/g, ""); // an IPv6 literal without brackets
  const prefix = url.pathname.replace(/\/$/, "");
  const auth = config.auth.bearerToken
    ? `Bearer ${config.auth.bearerToken}`
    : config.auth.username !== undefined
      ? `Basic ${Buffer.from(`${config.auth.username}:${config.auth.password ?? ""}`).toString("base64")}`
      : undefined;
  const fixed =
    `Host: ${url.host}\r\nUser-Agent: bench-lean-client\r\nAccept: ${LEAN_PROTOBUF}, */*\r\n` +
    (auth ? `Authorization: ${auth}\r\n` : "");
  const open = (): Promise<TLSSocket> =>
    new Promise((resolve, reject) => {
      const s = connect({
        host: hostname,
        port: Number(url.port || 443),
        ca: config.tls.ca,
        cert: config.tls.cert,
        key: config.tls.key,
        servername: config.tls.serverName ?? (isIP(hostname) ? undefined : hostname),
        rejectUnauthorized: !config.tls.insecureSkipVerify,
        ALPNProtocols: ["http/1.1"],
      });
      s.setNoDelay(true);
      s.once("secureConnect", () => {
        s.off("error", reject);
        resolve(s);
      });
      s.once("error", reject);
    });
  const sockets = await Promise.all(Array.from({ length: connections }, open));

  /** Sends one encoded request on `s`; resolves with the status once the whole answer arrived. */
  const exchange = (s: TLSSocket, request: Buffer): Promise<{ status: number; head: string }> =>
    new Promise((resolve, reject) => {
      let buf: Buffer = Buffer.alloc(0);
      let status = 0;
      let head = "";
      let bodyStart = -1;
      let length = -1; // Content-Length, or -1 while chunked
      let chunked = false;
      const done = (r: { status: number; head: string } | Error) => {
        s.off("data", onData);
        s.off("error", onError);
        s.off("close", onClose);
        r instanceof Error ? reject(r) : resolve(r);
      };
      const onError = (e: Error) => done(e);
      const onClose = () => done(new Error("the server closed the connection"));
      const onData = (d: Buffer) => {
        buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
        if (bodyStart < 0) {
          const end = buf.indexOf(CRLF2);
          if (end < 0) return;
          head = buf.toString("latin1", 0, end);
          status = Number(head.slice(9, 12));
          const cl = /\r\ncontent-length:\s*(\d+)/i.exec(head);
          if (cl) length = Number(cl[1]);
          else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) chunked = true;
          else length = 0;
          bodyStart = end + 4;
        }
        if (!chunked) {
          if (buf.length - bodyStart >= length) done({ status, head });
          return;
        }
        // Chunked: walk the chunk sizes to the terminating zero-size chunk.
        let at = bodyStart;
        for (;;) {
          const eol = buf.indexOf("\r\n", at);
          if (eol < 0) return;
          const size = Number.parseInt(buf.toString("latin1", at, eol), 16);
          if (size === 0) {
            if (buf.indexOf(CRLF2, eol - 2) >= 0) done({ status, head });
            return;
          }
          if (buf.length < eol + 2 + size + 2) return;
          at = eol + 2 + size + 2;
        }
      };
      s.on("data", onData);
      s.once("error", onError);
      s.once("close", onClose);
      s.write(request);
    });

  return {
    encode(req) {
      const headLines =
        `${req.method} ${prefix}${req.path} HTTP/1.1\r\n${fixed}` +
        (req.body
          ? `Content-Type: ${req.contentType ?? LEAN_PROTOBUF}\r\nContent-Length: ${req.body.length}\r\n`
          : "") +
        "\r\n";
      const h = Buffer.from(headLines, "latin1");
      return req.body ? Buffer.concat([h, req.body]) : h;
    },
    async run(requests, total) {
      let next = 0;
      await Promise.all(
        sockets.map(async (s) => {
          for (let i = next++; i < total; i = next++) {
            const r = await exchange(s, requests(i));
            if (r.status >= 300) {
              const line = requests(i).toString("latin1", 0, 200).split("\r\n")[0];
              throw new Error(`${line}: the server answered ${r.status}: ${r.head.split("\r\n")[0]}`);
            }
          }
        }),
      );
    },
    async close() {
      await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.end(() => resolve()))));
      for (const s of sockets) s.destroy();
    },
  };
}
