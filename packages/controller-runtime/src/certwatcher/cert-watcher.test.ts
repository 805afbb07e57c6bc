// The certificate watcher and the servers that follow it: the metrics server reads certDir
// through one and serves a rotated certificate without a restart, takes TLS options, and can
// serve a watcher given to it; reads are counted in certwatcher_read_certificate_total.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { after, before, test } from "node:test";
import { type CertificateAuthority, newCertificateAuthority } from "../certs/index.js";
import { eventually } from "../envtest/index.js";
import { newMetricsRegistry, newMetricsServer } from "../metrics/index.js";
import { newWebhookServer } from "../webhook/index.js";
import { newCertWatcher } from "./index.js";

let ca: CertificateAuthority;
let dir: string;
before(async () => {
  ca = await newCertificateAuthority("certwatcher-test");
  dir = await mkdtemp(join(tmpdir(), "certwatcher-"));
});
after(() => rm(dir, { recursive: true, force: true }));

/** Writes a new serving pair into `into`, each file replaced by rename as cert-manager's does. */
async function issue(into: string): Promise<string> {
  const pair = await ca.issueServing({ dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"] });
  await writeFile(join(into, "tls.crt.tmp"), pair.certPem);
  await writeFile(join(into, "tls.key.tmp"), pair.keyPem);
  await rename(join(into, "tls.key.tmp"), join(into, "tls.key"));
  await rename(join(into, "tls.crt.tmp"), join(into, "tls.crt"));
  return pair.certPem;
}

let generation = 0;
/**
 * Writes a new serving pair into `into` as the kubelet updates a mounted Secret: both files in a
 * new folder, `..data` pointed at it by one rename, `tls.crt` and `tls.key` links through `..data`.
 * The pair changes at once, so no read can see a new key beside an old certificate (the renames
 * of {@link issue} leave a moment between the two, and a read then is rightly an error).
 */
async function issueAtOnce(into: string): Promise<string> {
  const pair = await ca.issueServing({ dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"] });
  const folder = `..${++generation}`;
  await mkdir(join(into, folder));
  await writeFile(join(into, folder, "tls.crt"), pair.certPem);
  await writeFile(join(into, folder, "tls.key"), pair.keyPem);
  await symlink(folder, join(into, "..data_tmp"));
  await rename(join(into, "..data_tmp"), join(into, "..data"));
  for (const f of ["tls.crt", "tls.key"])
    await symlink(join("..data", f), join(into, f)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
    });
  return pair.certPem;
}

/** The serial number of the certificate the server at `port` presents, over TLS `version`. */
function servedSerial(port: number, maxVersion: "TLSv1.2" | "TLSv1.3" = "TLSv1.3"): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/metrics",
        ca: ca.certPem,
        servername: "localhost",
        maxVersion,
        agent: false,
      },
      (res) => {
        const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
        res.resume();
        res.on("end", () => resolve(serial));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

function serialOf(pem: string): string {
  return new X509Certificate(pem).serialNumber;
}

test("the metrics server follows its certDir: a rotated certificate is served without a restart", async () => {
  const certDir = await mkdtemp(join(dir, "metrics-"));
  const first = await issueAtOnce(certDir);
  const registry = newMetricsRegistry();
  const server = newMetricsServer({
    bindAddress: "127.0.0.1:0",
    registry,
    secureServing: true,
    certDir,
    tlsOpts: { minVersion: "TLSv1.3" },
  });
  const stop = new AbortController();
  const running = server.start(stop.signal);
  try {
    const { port } = (await server.listening())!;
    assert.equal((await servedSerial(port)).toUpperCase(), serialOf(first).toUpperCase());
    await assert.rejects(servedSerial(port, "TLSv1.2"), "tlsOpts.minVersion holds");
    const second = await issueAtOnce(certDir);
    await eventually(
      "the rotated certificate served",
      async () => (await servedSerial(port)).toUpperCase() === serialOf(second).toUpperCase(),
    );
    const metrics = await registry.metrics();
    assert.match(metrics, /certwatcher_read_certificate_total [2-9]/);
    assert.match(metrics, /certwatcher_read_certificate_errors_total 0/);
  } finally {
    stop.abort();
    await running;
  }
});

test("one watcher serves the metrics and webhook servers given it, its callbacks see each new pair, bad files are counted and kept out", async () => {
  const certDir = await mkdtemp(join(dir, "shared-"));
  const first = await issue(certDir);
  const registry = newMetricsRegistry();
  const watcher = newCertWatcher({
    certPath: join(certDir, "tls.crt"),
    keyPath: join(certDir, "tls.key"),
    registry,
    pollIntervalMs: 50,
  });
  const seen: string[] = [];
  watcher.registerCallback((f) => seen.push(f.cert));
  const stop = new AbortController();
  const watching = watcher.start(stop.signal);
  const server = newMetricsServer({
    bindAddress: "127.0.0.1:0",
    registry: newMetricsRegistry(),
    secureServing: true,
    certWatcher: watcher,
  });
  const webhooks = newWebhookServer({ host: "127.0.0.1", port: 0, certWatcher: watcher });
  const running = Promise.all([server.start(stop.signal), webhooks.start(stop.signal)]);
  try {
    const { port } = (await server.listening())!;
    const webhookPort = (await webhooks.listening()).port;
    assert.equal(watcher.getCertificate()?.cert, first);
    assert.equal((await servedSerial(webhookPort)).toUpperCase(), serialOf(first).toUpperCase());
    assert.equal((await servedSerial(port)).toUpperCase(), serialOf(first).toUpperCase());
    // A key that does not match: read, counted as an error, not served.
    const other = await ca.issueServing({ dnsNames: ["localhost"] });
    await writeFile(join(certDir, "tls.key"), other.keyPem);
    await eventually("the bad pair counted", async () =>
      /certwatcher_read_certificate_errors_total [1-9]/.test(await registry.metrics()),
    );
    assert.equal(watcher.getCertificate()?.cert, first);
    const second = await issue(certDir);
    await eventually(
      "the new pair served",
      async () => (await servedSerial(port)).toUpperCase() === serialOf(second).toUpperCase(),
    );
    await eventually(
      "the webhook server serves it too",
      async () => (await servedSerial(webhookPort)).toUpperCase() === serialOf(second).toUpperCase(),
    );
    // A pair may be read (and reported) more than once, as Go's watcher reports every read; what
    // the callbacks must see is each new pair, in order, and never the bad one.
    assert.deepEqual(
      seen.filter((c, i) => c !== seen[i - 1]),
      [first, second],
    );
    assert.equal(watcher.needLeaderElection(), false);
  } finally {
    stop.abort();
    await Promise.all([running, watching]);
  }
  await assert.rejects(
    newCertWatcher({
      certPath: join(dir, "none.crt"),
      keyPath: join(dir, "none.key"),
      owner: "the test server",
    }).start(AbortSignal.timeout(5_000)),
    { name: "CertificateLoadError", message: /the test server could not read its certificate .*none\.crt/ },
  );
});
