// Calls a webhook over HTTPS as kube-apiserver's webhook client does: `clientConfig.url`, or a
// `service` reference turned into an address by the server's service resolver, TLS that trusts
// only `caBundle` (the system roots without one), `?timeout=Ns`, and Go's wording for failures so
// that messages read as kube's. Shared by admission and CRD conversion.
import { request } from "node:https";
import { posix } from "node:path";
import { connectAnchored } from "./tls-anchors.js";
import type { ClientConfig } from "./types.js";

/** A Service named by a webhook's `clientConfig.service`. */
export interface ServiceReference {
  namespace: string;
  name: string;
  /** Default: 443. */
  port: number;
}

/**
 * Where a Service reference is reached: a base URL such as `https://127.0.0.1:9443` (the
 * reference's `path` is appended). The TLS server name stays `<name>.<namespace>.svc`, as kube
 * checks it, so the webhook's certificate must name it.
 */
export type ServiceResolver = (svc: ServiceReference) => string;

/** The default resolver: the Service's cluster DNS name, which resolves only inside a cluster. */
export const clusterDnsResolver: ServiceResolver = (svc) =>
  `https://${svc.name}.${svc.namespace}.svc:${svc.port}`;

/** Thrown when a webhook could not be called or answered something unusable. */
export class WebhookCallError extends Error {
  override readonly name = "WebhookCallError";
}

export interface WebhookCall {
  clientConfig: ClientConfig;
  body: string;
  timeoutSeconds: number;
  resolver: ServiceResolver;
  /** Aborted when the API server stops. */
  signal: AbortSignal;
  /** Largest response read. Default: 30 MiB. */
  maxResponseBytes?: number;
}

interface Target {
  url: URL;
  servername: string | undefined;
}

/**
 * The request path as kube's REST client makes it from a webhook's path: Go's
 * `path.Join("/", p)`, so `//a` is `/a`, `/a/../b` is `/b`, and no trailing slash remains.
 */
export function webhookPath(p: string): string {
  const cleaned = posix.normalize(`/${p}`);
  return cleaned.length > 1 && cleaned.endsWith("/") ? cleaned.slice(0, -1) : cleaned;
}

function targetOf(cfg: ClientConfig, resolver: ServiceResolver, timeoutSeconds: number | undefined): Target {
  let url: URL;
  let servername: string | undefined;
  if (cfg.url) {
    // kube keeps the scheme and host and joins the path; a query or fragment is not sent.
    const given = new URL(cfg.url);
    url = new URL(`${given.protocol}//${given.host}${webhookPath(given.pathname)}`);
  } else if (cfg.service) {
    const svc = cfg.service;
    const base = resolver({ namespace: svc.namespace, name: svc.name, port: svc.port ?? 443 });
    url = new URL(`${base.replace(/\/$/, "")}${webhookPath(svc.path ?? "")}`);
    servername = `${svc.name}.${svc.namespace}.svc`;
  } else {
    throw new WebhookCallError("webhook has no clientConfig.url or clientConfig.service");
  }
  if (timeoutSeconds !== undefined) url.searchParams.set("timeout", `${timeoutSeconds}s`);
  return { url, servername };
}

function goError(e: unknown, url: URL, servername: string | undefined, timedOut: boolean): string {
  const post = `Post "${url.toString()}"`;
  if (timedOut) return `${post}: context deadline exceeded`;
  const err = e as NodeJS.ErrnoException & { code?: string };
  const host = url.port ? `${url.hostname}:${url.port}` : url.hostname;
  switch (err.code) {
    case "ECONNREFUSED":
      return `${post}: dial tcp ${host}: connect: connection refused`;
    case "ENOTFOUND":
      return `${post}: dial tcp: lookup ${url.hostname}: no such host`;
    case "ECONNRESET":
      return `${post}: read: connection reset by peer`;
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
    case "UNABLE_TO_GET_ISSUER_CERT":
      return `${post}: tls: failed to verify certificate: x509: certificate signed by unknown authority`;
    case "CERT_HAS_EXPIRED":
      return `${post}: tls: failed to verify certificate: x509: certificate has expired or is not yet valid`;
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return `${post}: tls: failed to verify certificate: x509: certificate is not valid for ${servername ?? url.hostname}`;
    default:
      return `${post}: ${err.message ?? String(e)}`;
  }
}

/** POSTs `body` and answers the response body of a 2xx reply; anything else is a WebhookCallError. */
export async function callWebhook(call: WebhookCall): Promise<Buffer> {
  const { url, servername } = targetOf(
    call.clientConfig,
    call.resolver,
    call.timeoutSeconds, // the URL carries ?timeout=Ns, on admission and conversion calls alike
  );
  const ca = call.clientConfig.caBundle
    ? Buffer.from(call.clientConfig.caBundle, "base64").toString("utf8")
    : undefined;
  const timeout = AbortSignal.timeout(call.timeoutSeconds * 1000);
  const signal = AbortSignal.any([timeout, call.signal]);
  const limit = call.maxResponseBytes ?? 30 * 1024 * 1024;
  try {
    // A new connection per call: a webhook's rotated certificate is used at once. With a
    // caBundle the connection is made and trusted first, as Go trusts a bundle (tls-anchors.ts).
    const socket =
      ca === undefined
        ? undefined
        : await connectAnchored({
            host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
            port: Number(url.port || 443),
            servername: servername ?? url.hostname.replace(/^\[(.*)\]$/, "$1"),
            ca,
            signal,
          });
    return await new Promise<Buffer>((resolve, reject) => {
      const req = request(
        url,
        {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Accept: "application/json, */*",
            "Content-Length": Buffer.byteLength(call.body),
          },
          ...(socket !== undefined
            ? { createConnection: () => socket }
            : { agent: false, ...(servername !== undefined ? { servername } : {}) }),
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > limit) {
              res.destroy(new WebhookCallError(`webhook response was larger than ${limit} bytes`));
              return;
            }
            chunks.push(c);
          });
          res.on("error", reject);
          res.on("end", () => {
            const body = Buffer.concat(chunks);
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) resolve(body);
            else reject(new WebhookCallError(statusText(code, body, res.headers["content-type"])));
          });
        },
      );
      req.on("error", reject);
      req.end(call.body);
    });
  } catch (e) {
    if (e instanceof WebhookCallError) throw e;
    throw new WebhookCallError(goError(e, url, servername, timeout.aborted));
  }
}

// client-go's wording for a non-2xx answer (newUnstructuredResponseError, NewGenericServerResponse):
// the Status message when there is one; else a body is quoted only when it is text.
const GENERIC_MESSAGES: Record<number, string> = {
  400: "the server rejected our request for an unknown reason",
  401: "the server has asked for the client to provide credentials",
  404: "the server could not find the requested resource",
  405: "the server does not allow this method on the requested resource",
  406: "the server was unable to respond with a content type that the client supports",
  409: "the server reported a conflict",
  422: "the server rejected our request due to an error in our request",
  429: "the server has received too many requests and has asked us to try again later",
  503: "the server is currently unable to handle the request",
  504: "the server was unable to return a response in the time allotted, but may still be processing the request",
};

function statusText(code: number, body: Buffer, contentType: string | undefined): string {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { kind?: string; message?: string };
    if (parsed?.kind === "Status" && parsed.message) return parsed.message;
  } catch {
    // not a Status
  }
  const media = (contentType ?? "").split(";")[0].trim().toLowerCase();
  const isText = media === "" || media.startsWith("text/");
  const text = isText ? body.toString("utf8").slice(0, 1024).trim() : "unknown";
  if (code === 403) return text;
  const generic = GENERIC_MESSAGES[code];
  if (generic) return generic;
  if (code >= 500)
    return `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding`;
  return `the server responded with the status code ${code} but did not return more information`;
}
