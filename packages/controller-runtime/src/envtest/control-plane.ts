// The real control plane: etcd and kube-apiserver binaries on loopback, started with the flags
// controller-runtime's envtest uses (generated certificates, a service-account key, an admin user
// in system:masters authenticated by client certificate).
import { createPrivateKey, createPublicKey } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { type CertificateAuthority, newCertificateAuthority } from "../certs/index.js";
import type { RESTConfig } from "../rest/index.js";
import { freePort } from "./free-port.js";
import { ControlPlaneError, checkBinary, type ManagedProcess, startProcess } from "./process.js";
import type { EnvtestSettings } from "./settings.js";

export interface RunningControlPlane {
  config: RESTConfig;
  /** The CA kube-apiserver trusts for client certificates (`--client-ca-file`). */
  clientCa: CertificateAuthority;
  stop(): Promise<void>;
}

const binaryHint =
  "set KUBEBUILDER_ASSETS to a directory holding etcd and kube-apiserver (as setup-envtest installs them), " +
  "or TEST_ASSET_ETCD and TEST_ASSET_KUBE_APISERVER to their paths";

/** A binary exited because a port it was given was taken in between (by another process). */
export class PortTakenError extends ControlPlaneError {}

// freePort() closes its probe socket before the binary binds the port, so another process (a
// parallel test's server) can take it in between. Go's envtest has the same window; a binary
// that fails this way is started again on fresh ports rather than failing the test.
const portAttempts = 5;

export async function withFreshPorts<T>(start: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(attempt);
    } catch (err) {
      if (!(err instanceof PortTakenError) || attempt >= portAttempts) throw err;
    }
  }
}

export async function waitUntil(
  what: string,
  proc: ManagedProcess,
  deadline: number,
  probe: () => Promise<boolean>,
): Promise<void> {
  let exitCode: number | null | undefined;
  void proc.exited.then((code) => {
    exitCode = code;
  });
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      const Failure = /address already in use/.test(proc.output()) ? PortTakenError : ControlPlaneError;
      throw new Failure(`envtest: ${proc.name} exited with code ${exitCode}:\n${proc.output()}`);
    }
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new ControlPlaneError(`envtest: timed out waiting for ${what}:\n${proc.output()}`);
}

function publicKeyPem(privateKeyPem: string): string {
  return createPublicKey(createPrivateKey(privateKeyPem)).export({ type: "spki", format: "pem" }).toString();
}

/** envtest's flags with `overrides` over them (by name; a list repeats a flag, null drops it). */
export function withFlags(
  defaults: readonly string[],
  overrides: Readonly<Record<string, string | readonly string[] | null>> = {},
): string[] {
  const byName = new Map<string, string[]>();
  for (const flag of defaults) {
    const eq = flag.indexOf("=");
    const name = flag.slice(2, eq < 0 ? undefined : eq);
    byName.set(name, [...(byName.get(name) ?? []), eq < 0 ? "" : flag.slice(eq + 1)]);
  }
  for (const [raw, value] of Object.entries(overrides)) {
    const name = raw.replace(/^--?/, "");
    if (value === null) byName.delete(name);
    else byName.set(name, typeof value === "string" ? [value] : [...value]);
  }
  return [...byName].flatMap(([name, values]) =>
    values.map((v) => (v === "" ? `--${name}` : `--${name}=${v}`)),
  );
}

export async function startControlPlane(
  settings: EnvtestSettings,
  kubeAPIServerFlags?: Readonly<Record<string, string | readonly string[] | null>>,
): Promise<RunningControlPlane> {
  const etcdPath = checkBinary("etcd", settings.etcdPath, binaryHint);
  const apiserverPath = checkBinary("kube-apiserver", settings.kubeApiserverPath, binaryHint);
  const dir = mkdtempSync(join(tmpdir(), "envtest-"));
  const started: ManagedProcess[] = [];
  const stopAll = async () => {
    for (const proc of started.reverse()) await proc.stop(settings.stopTimeoutMs);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + settings.startTimeoutMs;
    const etcdUrl = await withFreshPorts(async (attempt) => {
      const [etcdPort, etcdPeerPort] = await Promise.all([freePort(), freePort()]);
      const url = `http://127.0.0.1:${etcdPort}`;
      const etcd = startProcess(
        "etcd",
        etcdPath,
        [
          `--data-dir=${join(dir, `etcd-${attempt}`)}`,
          `--listen-client-urls=${url}`,
          `--advertise-client-urls=${url}`,
          `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
          "--unsafe-no-fsync=true",
        ],
        settings.attachOutput,
      );
      started.push(etcd);
      await waitUntil("etcd to be healthy", etcd, deadline, async () => {
        const res = await request(`${url}/health`);
        const body = (await res.body.json()) as { health?: string };
        return res.statusCode === 200 && body.health === "true";
      });
      return url;
    });

    const servingCa = await newCertificateAuthority("envtest-serving-ca");
    const clientCa = await newCertificateAuthority("envtest-client-ca");
    const serving = await servingCa.issueServing({ dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"] });
    const admin = await clientCa.issueClient({ user: "envtest-admin", groups: ["system:masters"] });
    const saKey = await servingCa.issueServing({ dnsNames: ["service-accounts"] });
    const files = {
      cert: join(dir, "apiserver.crt"),
      key: join(dir, "apiserver.key"),
      clientCa: join(dir, "client-cert-auth-ca.crt"),
      saKey: join(dir, "sa-signer.key"),
      saPub: join(dir, "sa-signer.pub"),
    };
    writeFileSync(files.cert, serving.certPem);
    writeFileSync(files.key, serving.keyPem, { mode: 0o600 });
    writeFileSync(files.clientCa, clientCa.certPem);
    writeFileSync(files.saKey, saKey.keyPem, { mode: 0o600 });
    // --service-account-key-file takes public keys only (kube-apiserver refuses a PKCS#8 private
    // key there), so the verifying half goes in a file of its own.
    writeFileSync(files.saPub, publicKeyPem(saKey.keyPem));

    const host = await withFreshPorts(async () => {
      const securePort = await freePort();
      const apiserver = startProcess(
        "kube-apiserver",
        apiserverPath,
        withFlags(
          [
            `--etcd-servers=${etcdUrl}`,
            `--cert-dir=${dir}`,
            `--tls-cert-file=${files.cert}`,
            `--tls-private-key-file=${files.key}`,
            `--client-ca-file=${files.clientCa}`,
            `--secure-port=${securePort}`,
            "--bind-address=127.0.0.1",
            // No --advertise-address (as controller-runtime's envtest): kube-apiserver ≥ 1.36 refuses
            // a loopback one with its endpoint reconciler, and picks the host's address itself.
            "--service-cluster-ip-range=10.0.0.0/24",
            "--allow-privileged=true",
            "--authorization-mode=RBAC",
            "--disable-admission-plugins=ServiceAccount",
            `--service-account-key-file=${files.saPub}`,
            `--service-account-signing-key-file=${files.saKey}`,
            `--service-account-issuer=https://127.0.0.1:${securePort}/`,
          ],
          kubeAPIServerFlags,
        ),
        settings.attachOutput,
      );
      started.push(apiserver);
      const url = `https://127.0.0.1:${securePort}`;
      const probeAgent = new Agent({
        connect: { ca: servingCa.certPem, cert: admin.certPem, key: admin.keyPem },
      });
      try {
        await waitUntil("kube-apiserver to be ready", apiserver, deadline, async () => {
          const res = await request(`${url}/readyz`, { dispatcher: probeAgent });
          await res.body.dump();
          return res.statusCode === 200;
        });
        // Ready comes before kube-apiserver's bootstrap controller has made the system
        // namespaces: a test that writes to "default" at once would find none.
        await waitUntil("kube-apiserver to create the default namespace", apiserver, deadline, async () => {
          const res = await request(`${url}/api/v1/namespaces/default`, { dispatcher: probeAgent });
          await res.body.dump();
          return res.statusCode === 200;
        });
      } finally {
        await probeAgent.close();
      }
      return url;
    });
    return {
      config: {
        host,
        tls: { ca: servingCa.certPem, cert: admin.certPem, key: admin.keyPem },
        auth: {},
        source: `envtest control plane in ${dir}`,
      },
      clientCa,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
