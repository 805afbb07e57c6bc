// Test harness for the API server conformance suite: plain HTTP (fetch through an undici Agent
// trusting the server's CA, as the environment's admin). The server is the run's (embedded,
// KUBEBUILDER_ASSETS or USE_EXISTING_CLUSTER: see test/support), so the same assertions check both.
import { randomBytes } from "node:crypto";
import { Agent } from "undici";
import type { Environment } from "controller-runtime/envtest";
import { embedded, testEnvironment } from "../support/environment.js";

export interface Target {
  url: string;
  /** The admin's bearer token; "" when the admin authenticates by client certificate. */
  token: string;
  caPem: string;
  embedded: boolean;
  /** Sends as the admin. */
  agent: Agent;
  /** Trusts the server, presents no client certificate: for calls with a token of their own. Default: `agent`. */
  bareAgent?: Agent;
  /** The environment that started the server (none for a server a test started itself). */
  env?: Environment;
  /** Run at close, before the server stops (agents of further users). */
  onClose?: (() => Promise<void>)[];
  close(): Promise<void>;
}

export async function startTarget(): Promise<Target> {
  const env = testEnvironment();
  const config = await env.start();
  const caPem = config.tls.ca ?? "";
  const agent = new Agent({ connect: { ca: caPem, cert: config.tls.cert, key: config.tls.key } });
  const bareAgent = new Agent({ connect: { ca: caPem } });
  const onClose: (() => Promise<void>)[] = [];
  const target: Target = {
    url: config.host,
    token: config.auth.bearerToken ?? "",
    caPem,
    embedded,
    agent,
    bareAgent,
    env,
    onClose,
    async close() {
      for (const f of onClose) await f();
      await agent.close();
      await bareAgent.close();
      await env.stop();
    },
  };
  if (!embedded) await bootstrapped(new Api(target));
  return target;
}

/**
 * Waits for what kube-apiserver's own controllers make once it is ready: the default/kubernetes
 * Service with its address, and the default ServiceCIDR's Ready status. The embedded server has
 * them before it answers; kube, under load, seconds later.
 */
async function bootstrapped(api: Api): Promise<void> {
  const deadline = Date.now() + 60_000;
  const made = async (): Promise<boolean> => {
    const svc = await api.get("/api/v1/namespaces/default/services/kubernetes");
    if (svc.status !== 200) return false;
    // ServiceCIDRs and IPAddresses where the cluster serves them (kube 1.33+).
    if ((await api.get("/apis/networking.k8s.io/v1/servicecidrs")).status !== 200) return true;
    const cidr = await api.get("/apis/networking.k8s.io/v1/servicecidrs/kubernetes");
    const ip = await api.get(`/apis/networking.k8s.io/v1/ipaddresses/${svc.body.spec.clusterIP}`);
    return (cidr.body?.status?.conditions?.length ?? 0) > 0 && ip.status === 200;
  };
  while (!(await made())) {
    if (Date.now() > deadline) throw new Error("kube-apiserver made no default/kubernetes Service in 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
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
  /** Default: fetch's own ("node"). */
  userAgent?: string;
  /** Further headers (Impersonate-User, …). */
  headers?: Record<string, string | string[]>;
}

export class Api {
  constructor(readonly target: Target) {}

  async call(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = {};
    const own = opts.token !== undefined;
    const token = own ? opts.token : this.target.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = opts.contentType ?? "application/json";
    if (opts.accept) headers.accept = opts.accept;
    if (opts.userAgent) headers["user-agent"] = opts.userAgent;
    const extra = new Headers(headers);
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      for (const one of Array.isArray(v) ? v : [v]) extra.append(k, one);
    }
    const res = await fetch(`${this.target.url}${path}`, {
      method,
      headers: extra,
      body:
        body === undefined
          ? undefined
          : typeof body === "string" || body instanceof Uint8Array
            ? body
            : JSON.stringify(body),
      // A token of the call's own must not ride along with the admin's client certificate.
      dispatcher: own ? (this.target.bareAgent ?? this.target.agent) : this.target.agent,
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

  /**
   * Sends `path` byte for byte: fetch() and new URL() resolve dot-segments and `%2e`, so paths
   * an attacker crafts need the dispatcher's own request.
   */
  async raw(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = {};
    const own = opts.token !== undefined;
    const token = own ? opts.token : this.target.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = opts.contentType ?? "application/json";
    const dispatcher = own ? (this.target.bareAgent ?? this.target.agent) : this.target.agent;
    const res = await dispatcher.request({
      origin: this.target.url,
      path,
      method: method as "GET",
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const h = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
    return { status: res.statusCode, headers: h, text, body: parsed };
  }

  get(path: string, opts?: CallOptions) {
    return this.call("GET", path, undefined, opts);
  }

  /** A GET's status, media type and raw bytes (protobuf answers are not text). */
  getBytes(path: string, accept: string): Promise<{ status: number; type: string; bytes: Buffer }> {
    return this.callBytes("GET", path, accept);
  }

  /** A request with an optional protobuf body, its answer as raw bytes (`call` sends and parses JSON). */
  async callBytes(
    method: string,
    path: string,
    accept: string,
    body?: Uint8Array,
  ): Promise<{ status: number; type: string; bytes: Buffer }> {
    const headers: Record<string, string> = { accept };
    if (this.target.token) headers.authorization = `Bearer ${this.target.token}`;
    if (body) headers["content-type"] = "application/vnd.kubernetes.protobuf";
    const res = await fetch(`${this.target.url}${path}`, {
      method,
      headers,
      body,
      dispatcher: this.target.agent,
    } as unknown as RequestInit);
    return {
      status: res.status,
      type: res.headers.get("content-type") ?? "",
      bytes: Buffer.from(await res.arrayBuffer()),
    };
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

  /**
   * An Api sending as `name` (a client certificate the server trusts, from envtest's addUser),
   * who may do only what RBAC grants. Its connections close with the target.
   */
  async as(name: string, groups: string[] = []): Promise<Api> {
    const env = this.target.env;
    if (!env) throw new Error("Api.as needs a target started through envtest");
    const config = await env.addUser({ name, groups });
    const agent = new Agent({
      connect: { ca: this.target.caPem, cert: config.tls.cert, key: config.tls.key },
    });
    this.target.onClose?.push(() => agent.close());
    return new Api({ ...this.target, token: "", agent });
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
    const headers: Record<string, string> = {};
    if (this.target.token) headers.authorization = `Bearer ${this.target.token}`;
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

/** The path CRDs are created at. */
export const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/**
 * A namespaced CRD serving `v1` (also its storage version) with `openAPIV3Schema`, by default one
 * that keeps every field. `names` may add singular, listKind, shortNames.
 */
export function customResourceDefinition(
  group: string,
  names: { plural: string; kind: string } & Record<string, unknown>,
  openAPIV3Schema: object = { type: "object", "x-kubernetes-preserve-unknown-fields": true },
) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${names.plural}.${group}` },
    spec: {
      group,
      names,
      scope: "Namespaced",
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema } }],
    },
  };
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

/** Why tests of MutatingAdmissionPolicy skip on a server without it. */
export const MUTATING_POLICIES_NOT_SERVED =
  "MutatingAdmissionPolicy v1 is not served by this server (kube 1.36+)";

/** Whether the server serves MutatingAdmissionPolicy v1 (GA in kube 1.36). */
export async function servesMutatingPolicies(api: Api): Promise<boolean> {
  const group = await api.get("/apis/admissionregistration.k8s.io/v1");
  const resources = (group.body as { resources?: { name: string }[] }).resources ?? [];
  return resources.some((r) => r.name === "mutatingadmissionpolicies");
}
