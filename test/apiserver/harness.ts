// Test harness for the API server conformance suite: plain HTTP (fetch through an undici Agent
// trusting the server's CA, an admin bearer token). By default it starts the embedded server;
// with APISERVER_TEST_URL, APISERVER_TEST_TOKEN and APISERVER_TEST_CA_FILE it talks to any
// kube-apiserver instead, so the same assertions check both.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent } from "undici";
import { startApiServer } from "../../src/apiserver/index.js";

export interface Target {
  url: string;
  token: string;
  caPem: string;
  embedded: boolean;
  agent: Agent;
  close(): Promise<void>;
}

export async function startTarget(): Promise<Target> {
  const url = process.env.APISERVER_TEST_URL;
  if (url) {
    const caPem = readFileSync(process.env.APISERVER_TEST_CA_FILE ?? "", "utf8");
    const agent = new Agent({ connect: { ca: caPem } });
    return {
      url,
      token: process.env.APISERVER_TEST_TOKEN ?? "",
      caPem,
      embedded: false,
      agent,
      close: () => agent.close(),
    };
  }
  const server = await startApiServer();
  const agent = new Agent({ connect: { ca: server.caPem } });
  return {
    url: server.url,
    token: server.adminToken,
    caPem: server.caPem,
    embedded: true,
    agent,
    async close() {
      await agent.close();
      await server.stop();
    },
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  body: any;
}

export interface CallOptions {
  contentType?: string;
  accept?: string;
  /** Default: the admin token. `null` sends no credentials. */
  token?: string | null;
}

export class Api {
  constructor(readonly target: Target) {}

  async call(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = {};
    const token = opts.token === undefined ? this.target.token : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = opts.contentType ?? "application/json";
    if (opts.accept) headers.accept = opts.accept;
    const res = await fetch(`${this.target.url}${path}`, {
      method,
      headers,
      body:
        body === undefined
          ? undefined
          : typeof body === "string" || body instanceof Uint8Array
            ? body
            : JSON.stringify(body),
      dispatcher: this.target.agent,
    } as unknown as RequestInit);
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  }

  get(path: string, opts?: CallOptions) {
    return this.call("GET", path, undefined, opts);
  }
  post(path: string, body: unknown, opts?: CallOptions) {
    return this.call("POST", path, body, opts);
  }
  put(path: string, body: unknown, opts?: CallOptions) {
    return this.call("PUT", path, body, opts);
  }
  patch(path: string, body: unknown, contentType = "application/merge-patch+json") {
    return this.call("PATCH", path, body, { contentType });
  }
  delete(path: string, body?: unknown) {
    return this.call("DELETE", path, body);
  }

  /** Creates a namespace with a unique name for one test. */
  async namespace(prefix = "t"): Promise<string> {
    const name = `${prefix}-${randomBytes(4).toString("hex")}`;
    const r = await this.post("/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name },
    });
    if (r.status !== 201) throw new Error(`creating namespace ${name}: ${r.status} ${r.text}`);
    return name;
  }

  /** Opens a watch and yields each event as it arrives; stops when the stream ends or on `signal`. */
  async *watch(path: string, signal?: AbortSignal, accept?: string): AsyncGenerator<WatchEvent> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.target.token}` };
    if (accept) headers.accept = accept;
    const res = await fetch(`${this.target.url}${path}`, {
      headers,
      signal,
      dispatcher: this.target.agent,
    } as unknown as RequestInit);
    if (res.status !== 200) throw new Error(`watch ${path}: ${res.status} ${await res.text()}`);
    const decoder = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let nl = buf.indexOf("\n");
        while (nl >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) yield JSON.parse(line) as WatchEvent;
          nl = buf.indexOf("\n");
        }
      }
    } catch (e) {
      if ((e as Error).name !== "AbortError") throw e;
    }
  }
}

export interface WatchEvent {
  type: string;
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  object: any;
}

/** A ConfigMap body. */
export function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(labels ? { labels } : {}) }, data };
}

/** Collects events until `until` says stop (checked after each event). */
export async function collect(
  events: AsyncGenerator<WatchEvent>,
  until: (seen: WatchEvent[]) => boolean,
): Promise<WatchEvent[]> {
  const seen: WatchEvent[] = [];
  for await (const ev of events) {
    seen.push(ev);
    if (until(seen)) break;
  }
  return seen;
}
