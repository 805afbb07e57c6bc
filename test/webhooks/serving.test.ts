// The manager's webhook server as the API server meets it: certificates rotated on disk while
// serving (the API server keeps calling, trusting the same CA), and webhooks served by a replica
// that is not the leader.
import assert from "node:assert/strict";
import { randomBytes, X509Certificate } from "node:crypto";
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import { webhookManagedBy } from "controller-runtime/builder";
import { type CertificateAuthority, newCertificateAuthority, type KeyPair } from "controller-runtime/certs";
import { eventually } from "controller-runtime/envtest";
import { nullLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import { newRESTClient, type RESTClient, resourceOf } from "controller-runtime/rest";
import { newNamespace, rule } from "./harness.js";
import { embedded, testEnvironment } from "../support/environment.js";

const configMaps = resourceOf(kinds.ConfigMap);
const mutatingConfigs = resourceOf(kinds.MutatingWebhookConfiguration);
const env = testEnvironment({
  webhookInstallOptions: {
    mutatingWebhooks: [
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name: "non-leader" },
        webhooks: [
          {
            name: "mconfigmap.kb.io",
            admissionReviewVersions: ["v1"],
            sideEffects: "None",
            clientConfig: {
              service: { name: "webhook-service", namespace: "system", path: "/mutate--v1-configmap" },
            },
            rules: [
              rule({
                apiGroups: [""],
                apiVersions: ["v1"],
                operations: ["CREATE"],
                resources: ["configmaps"],
              }),
            ],
            namespaceSelector: { matchLabels: { "webhooks-test": "non-leader" } },
          },
        ],
      },
    ],
  },
});
let client: RESTClient;

before(async () => {
  client = newRESTClient(await env.start());
});
after(async () => {
  await client?.close();
  await env.stop();
});

function defaulted(mgr: Manager, value: string): void {
  webhookManagedBy(mgr)
    .for(kinds.ConfigMap)
    .withDefaulter({
      default(cm: ConfigMap) {
        cm.data = { ...cm.data, defaulted: value };
      },
    })
    .complete();
}

/** The serial number of the certificate a TLS server presents now. */
function servedSerial(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, ca, servername: "localhost" }, () => {
      const serial = socket.getPeerCertificate().serialNumber.toUpperCase();
      socket.end();
      resolve(serial);
    });
    socket.on("error", reject);
  });
}

function serialOf(pair: KeyPair): string {
  return new X509Certificate(pair.certPem).serialNumber.toUpperCase();
}

test("certificates rotated on disk while serving: the API server keeps calling, trusting the same CA", async () => {
  const ns = await newNamespace(client, "rotate");
  const certDir = mkdtempSync(join(tmpdir(), "webhook-rotate-"));
  const ca: CertificateAuthority = await newCertificateAuthority("rotation-ca");
  const write = (pair: KeyPair) => {
    // As a Secret volume updates: new files renamed into place, key first.
    writeFileSync(join(certDir, ".tls.key"), pair.keyPem);
    writeFileSync(join(certDir, ".tls.crt"), pair.certPem);
    renameSync(join(certDir, ".tls.key"), join(certDir, "tls.key"));
    renameSync(join(certDir, ".tls.crt"), join(certDir, "tls.crt"));
  };
  write(await ca.issueServing({ ipAddresses: ["127.0.0.1"], dnsNames: ["localhost"] }));
  const mgr = await Manager.create(env.config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    webhookServer: { host: "127.0.0.1", port: 0, certDir, certPollIntervalMs: 100 },
  });
  defaulted(mgr, "rotated");
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  const { port } = await mgr.getWebhookServer().listening();
  const name = `rotation-${randomBytes(3).toString("hex")}`;
  await client.create(mutatingConfigs, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name },
    webhooks: [
      {
        name: "rotation.example.com",
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        clientConfig: {
          url: `https://127.0.0.1:${port}/mutate--v1-configmap`,
          caBundle: Buffer.from(ca.certPem).toString("base64"),
        },
        rules: [
          rule({ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }),
        ],
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
      },
    ],
  });
  const cm = (n: string): ConfigMap => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: n } });
  try {
    // kube-apiserver reads webhook configurations through an informer: wait until it applies.
    await eventually(
      "the webhook configuration to be in effect",
      async () =>
        (await client.create(configMaps, cm("probe"), { namespace: ns, dryRun: true })).data?.defaulted ===
        "rotated",
      { timeoutMs: 30_000 },
    );
    assert.equal(
      (await client.create(configMaps, cm("before"), { namespace: ns })).data?.defaulted,
      "rotated",
    );
    for (const round of [1, 2, 3]) {
      const next = await ca.issueServing({ ipAddresses: ["127.0.0.1"], dnsNames: ["localhost"] });
      write(next);
      const serial = serialOf(next);
      await eventually(
        "the webhook server serves the new certificate",
        async () => (await servedSerial(port, ca.certPem)) === serial,
      );
      const created = await client.create(configMaps, cm(`after-${round}`), { namespace: ns });
      assert.equal(created.data?.defaulted, "rotated");
    }
    // A certificate from another CA is refused: the API server trusts only the caBundle.
    const stranger = await (await newCertificateAuthority("stranger")).issueServing({
      ipAddresses: ["127.0.0.1"],
    });
    write(stranger);
    const strangerSerial = serialOf(stranger);
    await eventually("the webhook server serves the stranger's certificate", async () => {
      const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
      const serial = await new Promise<string>((resolve, reject) => {
        socket.once("secureConnect", () => resolve(socket.getPeerCertificate().serialNumber.toUpperCase()));
        socket.once("error", reject);
      });
      socket.end();
      return serial === strangerSerial;
    });
    // A new connection fails. kube-apiserver keeps its keep-alive connection to the webhook, so
    // only the embedded server (one connection per call) is bound to meet the new certificate.
    if (embedded) {
      await assert.rejects(
        client.create(configMaps, cm("stranger"), { namespace: ns }),
        /failed calling webhook "rotation.example.com": .*x509: certificate signed by unknown authority/,
      );
    }
  } finally {
    await client.delete(mutatingConfigs, name);
    stop.abort();
    await running;
    rmSync(certDir, { recursive: true, force: true });
  }
});

test("a manager that is not the leader serves the webhooks the API server calls", async () => {
  const ns = await newNamespace(client, "follower", { "webhooks-test": "non-leader" });
  const election = {
    leaderElection: true,
    leaderElectionID: `webhooks-${randomBytes(3).toString("hex")}`,
    leaderElectionNamespace: ns,
    leaseDurationMs: 60_000,
    renewDeadlineMs: 40_000,
    retryPeriodMs: 5_000,
  };
  const leader = await Manager.create(env.config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    ...election,
  });
  const stopLeader = new AbortController();
  const leaderDone = leader.start(stopLeader.signal);
  await leader.elected();
  const follower = await Manager.create(env.config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    ...election,
    webhookServer: env.webhookInstallOptions.server,
  });
  defaulted(follower, "by-follower");
  const stopFollower = new AbortController();
  const followerDone = follower.start(stopFollower.signal);
  let followerLeads = false;
  void follower.elected().then(() => {
    followerLeads = true;
  });
  try {
    await follower.getWebhookServer().listening();
    const cm: ConfigMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } };
    const created = await client.create(configMaps, cm, { namespace: ns });
    assert.equal(created.data?.defaulted, "by-follower");
    assert.equal(followerLeads, false);
  } finally {
    stopFollower.abort();
    await followerDone;
    stopLeader.abort();
    await leaderDone;
  }
});
