// Webhooks for tests, as controller-runtime's envtest.WebhookInstallOptions: a CA and a serving
// certificate for a local address written to a certificate directory, and every webhook of the
// given Mutating/ValidatingWebhookConfigurations (and every CRD conversion webhook) pointed at
// `https://<host>:<port><path>` with that CA as `caBundle`. A manager started with
// `webhookServer: installed.server` then receives the API server's calls.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
  WebhookClientConfig,
} from "kubernetes-types/admissionregistration/v1.js";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { parseAllDocuments } from "yaml";
import { kinds } from "../api/index.js";
import { newCertificateAuthority } from "../certs/index.js";
import type { RESTConfig } from "../rest/index.js";
import { newRESTClient, isAlreadyExists, resourceOf } from "../rest/index.js";
import { freePort } from "./free-port.js";

export interface WebhookInstallOptions {
  /** Files and directories of Mutating/ValidatingWebhookConfiguration manifests (YAML or JSON;
   * other documents are skipped; directories are not recursed). Default: none. */
  paths?: string[];
  /** Configurations to install besides those in `paths`. Default: none. */
  mutatingWebhooks?: MutatingWebhookConfiguration[];
  /** Default: none. */
  validatingWebhooks?: ValidatingWebhookConfiguration[];
  /** Skip paths that do not exist instead of failing. Default: false. */
  ignoreErrorIfPathMissing?: boolean;
  /** The address the test's webhook server listens on. Default: "127.0.0.1". */
  localServingHost?: string;
  /**
   * The name (or address) the API server reaches the webhook server by, when not
   * `localServingHost` (controller-runtime's `LocalServingHostExternalName`): an API server in a
   * container reaching the host as `host.docker.internal`, say. It goes into the webhooks' URLs and
   * the serving certificate. Default: `localServingHost`.
   */
  localServingHostExternalName?: string;
  /** Default: a free port on `localServingHost`. */
  localServingPort?: number;
  /** Where `tls.crt` and `tls.key` are written. Default: a new temporary directory, removed at stop. */
  localServingCertDir?: string;
}

/** What `Environment.webhookInstallOptions` answers once started. */
export interface InstalledWebhooks {
  localServingHost: string;
  localServingPort: number;
  localServingCertDir: string;
  /** The CA (PEM) that signed the serving certificate: the webhooks' `caBundle`. */
  localServingCAData: string;
  /** Ready for the Manager's `webhookServer` option. */
  server: { host: string; port: number; certDir: string };
  /** The configurations as the API server stored them. */
  mutatingWebhooks: MutatingWebhookConfiguration[];
  validatingWebhooks: ValidatingWebhookConfiguration[];
}

/** Thrown when a webhook manifest path is missing or a manifest cannot be read. */
export class WebhookManifestError extends Error {
  override readonly name = "WebhookManifestError";
  readonly code = "ERR_ENVTEST_WEBHOOK_MANIFEST";
}

const manifestExtensions = new Set([".yaml", ".yml", ".json"]);
const admissionGroup = "admissionregistration.k8s.io/";

/** Reads the webhook configurations in the given files and directories. */
export function readWebhookManifests(
  paths: readonly string[],
  ignoreMissing: boolean,
): { mutating: MutatingWebhookConfiguration[]; validating: ValidatingWebhookConfiguration[] } {
  const mutating: MutatingWebhookConfiguration[] = [];
  const validating: ValidatingWebhookConfiguration[] = [];
  for (const path of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      if (ignoreMissing) continue;
      throw new WebhookManifestError(`envtest: the webhook manifest path ${path} does not exist`);
    }
    const files = isDir
      ? readdirSync(path)
          .filter((f) => manifestExtensions.has(extname(f)))
          .sort()
          .map((f) => join(path, f))
      : [path];
    for (const file of files) {
      for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
        if (doc.errors.length > 0)
          throw new WebhookManifestError(`envtest: ${file}: ${doc.errors[0]?.message}`);
        const value = doc.toJS() as { kind?: string; apiVersion?: string } | null;
        if (!value?.apiVersion?.startsWith(admissionGroup)) continue;
        if (value.kind === "MutatingWebhookConfiguration")
          mutating.push(value as MutatingWebhookConfiguration);
        if (value.kind === "ValidatingWebhookConfiguration")
          validating.push(value as ValidatingWebhookConfiguration);
      }
    }
  }
  return { mutating, validating };
}

/** The local serving address and its certificates; `cleanup` removes a generated directory. */
export interface LocalServing {
  host: string;
  /** The name in the webhooks' URLs. */
  externalHost: string;
  port: number;
  certDir: string;
  caPem: string;
  cleanup(): void;
}

/** Generates the CA and serving certificate for the local address and writes them to the cert dir. */
export async function prepareLocalServing(opts: WebhookInstallOptions): Promise<LocalServing> {
  const host = opts.localServingHost || "127.0.0.1";
  const port = opts.localServingPort || (await freePort(isIP(host) ? host : "127.0.0.1"));
  const generated = !opts.localServingCertDir;
  const certDir = opts.localServingCertDir || mkdtempSync(join(tmpdir(), "envtest-serving-certs-"));
  const ca = await newCertificateAuthority("envtest-webhook-ca");
  const external = opts.localServingHostExternalName || host;
  const names = [...new Set([host, external])];
  const ipAddresses = ["127.0.0.1", ...names.filter((n) => isIP(n) && n !== "127.0.0.1")];
  const dnsNames = ["localhost", ...names.filter((n) => !isIP(n) && n !== "localhost")];
  const serving = await ca.issueServing({ dnsNames, ipAddresses });
  writeFileSync(join(certDir, "tls.key"), serving.keyPem, { mode: 0o600 });
  writeFileSync(join(certDir, "tls.crt"), serving.certPem);
  return {
    host,
    externalHost: external,
    port,
    certDir,
    caPem: ca.certPem,
    cleanup: () => {
      if (generated) rmSync(certDir, { recursive: true, force: true });
    },
  };
}

/** `clientConfig` pointed at the local server: the service's (or URL's) path kept, the CA as bundle. */
export function localClientConfig(
  cfg: WebhookClientConfig | undefined,
  serving: LocalServing,
): WebhookClientConfig {
  let path = cfg?.service?.path ?? "";
  if (!cfg?.service && cfg?.url) {
    const u = new URL(cfg.url);
    path = `${u.pathname}${u.search}`;
  }
  const name = serving.externalHost ?? serving.host;
  const host = isIP(name) === 6 ? `[${name}]` : name;
  return {
    url: `https://${host}:${serving.port}${path}`,
    caBundle: Buffer.from(serving.caPem).toString("base64"),
  };
}

function rewrite<T extends { webhooks?: { clientConfig: WebhookClientConfig }[] }>(
  cfg: T,
  serving: LocalServing,
): T {
  const copy = structuredClone(cfg);
  for (const w of copy.webhooks ?? []) w.clientConfig = localClientConfig(w.clientConfig, serving);
  return copy;
}

/** CRDs whose conversion webhook is rewritten to the local server (others unchanged). */
export function withLocalConversion(
  crds: readonly CustomResourceDefinition[],
  serving: LocalServing,
): CustomResourceDefinition[] {
  return crds.map((crd) => {
    const conversion = crd.spec.conversion;
    if (conversion?.strategy !== "Webhook") return crd;
    const copy = structuredClone(crd);
    const webhook = copy.spec.conversion?.webhook ?? { conversionReviewVersions: ["v1", "v1beta1"] };
    webhook.clientConfig = localClientConfig(webhook.clientConfig, serving);
    copy.spec.conversion = { strategy: "Webhook", webhook };
    return copy;
  });
}

async function createOrReplace<T extends { metadata?: { name?: string; resourceVersion?: string } }>(
  client: ReturnType<typeof newRESTClient>,
  kind: Parameters<ReturnType<typeof newRESTClient>["create"]>[0],
  obj: T,
): Promise<T> {
  try {
    return (await client.create(kind, obj as never)) as T;
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const existing = (await client.get(kind, obj.metadata?.name ?? "")) as T;
    const next = {
      ...obj,
      metadata: { ...obj.metadata, resourceVersion: existing.metadata?.resourceVersion },
    };
    return (await client.update(kind, next as never)) as T;
  }
}

/** Rewrites and installs the configurations (created, or replaced when they exist). */
export async function installWebhooks(
  config: RESTConfig,
  opts: WebhookInstallOptions,
  serving: LocalServing,
): Promise<InstalledWebhooks> {
  const fromFiles = readWebhookManifests(opts.paths ?? [], opts.ignoreErrorIfPathMissing ?? false);
  const mutating = [...(opts.mutatingWebhooks ?? []), ...fromFiles.mutating].map((c) => rewrite(c, serving));
  const validating = [...(opts.validatingWebhooks ?? []), ...fromFiles.validating].map((c) =>
    rewrite(c, serving),
  );
  const client = newRESTClient(config);
  try {
    const installedMutating: MutatingWebhookConfiguration[] = [];
    for (const c of mutating) {
      installedMutating.push(
        await createOrReplace(client, resourceOf(kinds.MutatingWebhookConfiguration), c),
      );
    }
    const installedValidating: ValidatingWebhookConfiguration[] = [];
    for (const c of validating) {
      installedValidating.push(
        await createOrReplace(client, resourceOf(kinds.ValidatingWebhookConfiguration), c),
      );
    }
    return {
      localServingHost: serving.host,
      localServingPort: serving.port,
      localServingCertDir: serving.certDir,
      localServingCAData: serving.caPem,
      server: { host: serving.host, port: serving.port, certDir: serving.certDir },
      mutatingWebhooks: installedMutating,
      validatingWebhooks: installedValidating,
    };
  } finally {
    await client.close();
  }
}
