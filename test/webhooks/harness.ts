// Test support for the webhook suites: namespaces of their own, kubectl with a private cache,
// and a bare HTTPS webhook whose answers a test writes by hand (garbage included).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { RuleWithOperations } from "kubernetes-types/admissionregistration/v1.js";
import type { Namespace } from "kubernetes-types/core/v1.js";
import { eventually } from "controller-runtime/envtest";
import { kinds } from "controller-runtime/api";
import { newCertificateAuthority } from "controller-runtime/certs";
import type { RESTClient } from "controller-runtime/rest";
import { resourceOf } from "controller-runtime/rest";

const run = promisify(execFile);

/** A new namespace with a random suffix and the given labels. */
export async function newNamespace(
  client: RESTClient,
  prefix: string,
  labels: Record<string, string> = {},
): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString("hex")}`;
  await client.create<Namespace>(resourceOf(kinds.Namespace), {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels },
  });
  return name;
}

export interface Kubectl {
  available: boolean;
  /** Runs kubectl; resolves with stdout and stderr whatever the exit code. */
  run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  cleanup(): void;
}

export async function kubectlFor(kubeconfigPath: string): Promise<Kubectl> {
  const cache = mkdtempSync(join(tmpdir(), "kubectl-cache-"));
  let available = true;
  try {
    await run("kubectl", ["version", "--client"]);
  } catch {
    available = false;
  }
  return {
    available,
    async run(...args) {
      try {
        const { stdout, stderr } = await run("kubectl", ["--cache-dir", cache, ...args], {
          env: { ...process.env, KUBECONFIG: kubeconfigPath },
        });
        return { code: 0, stdout, stderr };
      } catch (e) {
        const err = e as { code?: number; stdout?: string; stderr?: string };
        return { code: err.code ?? 1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
      }
    },
    cleanup: () => rmSync(cache, { recursive: true, force: true }),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: reviews are arbitrary JSON
export type Review = any;

/** What a bare webhook answers: an HTTP status and a raw body (JSON-encoded unless a string). */
export interface RawAnswer {
  status?: number;
  body: unknown;
}

export interface RawWebhook {
  /** `https://127.0.0.1:PORT` */
  url: string;
  /** Base64 PEM of the CA that signed its certificate. */
  caBundle: string;
  /** PEM of its own serving certificate (which is not a CA). */
  servingCertPem: string;
  /** Every review received, in order, with the request's path and query. */
  calls: { path: string; review: Review }[];
  close(): Promise<void>;
}

/** A webhook on 127.0.0.1 (its certificate also names `dnsNames`) whose answer `handler` decides; `undefined` never answers. */
export async function startRawWebhook(
  handler: (review: Review, path: string) => RawAnswer | undefined,
  dnsNames: string[] = [],
): Promise<RawWebhook> {
  const ca = await newCertificateAuthority("raw-webhook-ca");
  const serving = await ca.issueServing({ ipAddresses: ["127.0.0.1"], dnsNames });
  const calls: RawWebhook["calls"] = [];
  const server: Server = createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const path = req.url ?? "/";
      calls.push({ path, review });
      const answer = handler(review, path);
      if (answer === undefined) return;
      const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status ?? 200, { "Content-Type": "application/json" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caBundle: Buffer.from(ca.certPem).toString("base64"),
    servingCertPem: serving.certPem,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An AdmissionReview v1 answer to `review`. */
export function answer(review: Review, response: Record<string, unknown>): RawAnswer {
  return {
    body: {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: review.request.uid, ...response },
    },
  };
}

/** A JSON patch as a mutating webhook returns it. */
export function jsonPatch(ops: unknown[]): { patch: string; patchType: "JSONPatch" } {
  return { patch: Buffer.from(JSON.stringify(ops)).toString("base64"), patchType: "JSONPatch" };
}

/** A webhook rule. kubernetes-types' RuleWithOperations lacks `resources` and `scope` (Go embeds them). */
export function rule(r: {
  apiGroups: string[];
  apiVersions: string[];
  operations: string[];
  resources: string[];
  scope?: string;
}): RuleWithOperations {
  return r as RuleWithOperations;
}

/**
 * Waits until a webhook configuration just written is in effect: kube-apiserver reads them
 * through an informer, so the first requests after the write may not call the webhook yet.
 * `probe` makes a request the new webhook intercepts (a dry run is best); it is repeated until
 * one reaches `hook`.
 */
export async function untilWebhookCalled(hook: RawWebhook, probe: () => Promise<unknown>): Promise<void> {
  await eventually(
    "the webhook configuration to be in effect",
    async () => {
      const before = hook.calls.length;
      await probe().catch(() => {});
      return hook.calls.length > before;
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
}
