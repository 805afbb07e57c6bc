// Each kind of credential, from a kubeconfig on disk through getConfig and the CredentialSource,
// sent over real HTTPS to a tiny local server that reports what it saw.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { TLSSocket } from "node:tls";
import { after, before, test } from "node:test";
import { type CertificateAuthority, newCertificateAuthority } from "../certs/index.js";
import type { RESTConfig } from "./config.js";
import { isConfigError } from "./config-error.js";
import { type CredentialSource, type CredentialSourceOptions, newCredentialSource } from "./credentials.js";
import { getConfig } from "./get-config.js";
import { inClusterConfig } from "./in-cluster.js";

interface Seen {
  authorization?: string;
  clientCN?: string;
}

let ca: CertificateAuthority;
let server: Server;
let port: number;
let dir: string;

// The plugin is configured through env entries in the kubeconfig: it counts its runs in a file,
// can dump KUBERNETES_EXEC_INFO, write to stderr, fail, hang, or return a client certificate.
const plugin = `
const fs = require("node:fs");
const env = process.env;
const n = (fs.existsSync(env.COUNTER) ? Number(fs.readFileSync(env.COUNTER, "utf8")) : 0) + 1;
fs.writeFileSync(env.COUNTER, String(n));
if (env.INFO_OUT) fs.writeFileSync(env.INFO_OUT, env.KUBERNETES_EXEC_INFO);
if (env.STDERR) process.stderr.write(env.STDERR);
if (env.MODE === "fail") process.exit(3);
if (env.MODE === "hang") setInterval(() => {}, 1000);
else {
  const status = {};
  if (env.MODE === "cert") {
    status.clientCertificateData = fs.readFileSync(env.CERT, "utf8");
    status.clientKeyData = fs.readFileSync(env.KEY, "utf8");
  } else {
    status.token = "token-" + n;
  }
  if (env.EXPIRES) status.expirationTimestamp = env.EXPIRES;
  const apiVersion = env.PRINT_VERSION || "client.authentication.k8s.io/v1";
  process.stdout.write(JSON.stringify({ apiVersion, kind: "ExecCredential", status }));
}
`;

before(async () => {
  ca = await newCertificateAuthority();
  const serving = await ca.issueServing({ dnsNames: ["localhost", "api.example"] });
  server = createServer(
    {
      key: serving.keyPem,
      cert: serving.certPem,
      ca: ca.certPem,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      const peer = socket.authorized ? socket.getPeerCertificate() : undefined;
      const seen: Seen = { authorization: req.headers.authorization, clientCN: cn(peer?.subject?.CN) };
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(seen));
    },
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
  dir = mkdtempSync(join(tmpdir(), "credentials-test-"));
  writeFileSync(join(dir, "plugin.cjs"), plugin);
  writeFileSync(join(dir, "ca.crt"), ca.certPem);
});

after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

function cn(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** One request the way a transport makes it: header and client certificate from the source. */
async function whoami(config: RESTConfig, creds: CredentialSource): Promise<Seen> {
  const authorization = await creds.authorization();
  const cert = await creds.clientCertificate();
  const res = await new Promise<import("node:http").IncomingMessage>((resolve, reject) => {
    const req = request(`${config.host}/whoami`, {
      agent: false,
      ca: config.tls.ca,
      cert: cert?.cert,
      key: cert?.key,
      servername: config.tls.serverName,
      rejectUnauthorized: !config.tls.insecureSkipVerify,
      headers: authorization ? { authorization } : {},
    });
    req.on("response", resolve).on("error", reject).end();
  });
  let body = "";
  for await (const chunk of res) body += chunk;
  return JSON.parse(body) as Seen;
}

let fileCount = 0;
/** Writes a kubeconfig for the test server with the given user and loads it through getConfig. */
function configWithUser(userYaml: string, clusterExtra = ""): RESTConfig {
  const file = join(dir, `kubeconfig-${++fileCount}`);
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
current-context: test
clusters:
- name: local
  cluster:
    server: https://localhost:${port}
    certificate-authority: ca.crt
${clusterExtra}
users:
- name: tester
  user:
${userYaml}
contexts:
- name: test
  context: {cluster: local, user: tester}
`,
  );
  return getConfig({ kubeconfig: file, argv: [], env: {} });
}

function execUser(env: Record<string, string>, extra = ""): string {
  const entries = Object.entries(env)
    .map(([name, value]) => `      - name: ${name}\n        value: ${JSON.stringify(value)}`)
    .join("\n");
  return `    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(join(dir, "plugin.cjs"))}]
      interactiveMode: Never
      installHint: install the test plugin
${extra}
      env:
${entries}`;
}

function runs(counter: string): number {
  return Number(readFileSync(counter, "utf8"));
}

const quiet: CredentialSourceOptions = { stderr: new PassThrough(), interactive: false };

test("a bearer token from the kubeconfig reaches the server", async () => {
  const config = configWithUser("    token: abc123");
  assert.deepEqual(await whoami(config, newCredentialSource(config)), { authorization: "Bearer abc123" });
});

test("username and password are sent as basic auth", async () => {
  const config = configWithUser("    username: admin\n    password: s3cret");
  const seen = await whoami(config, newCredentialSource(config));
  assert.equal(seen.authorization, `Basic ${Buffer.from("admin:s3cret").toString("base64")}`);
});

test("a client certificate from files named relative to the kubeconfig is presented", async () => {
  const alice = await ca.issueClient({ user: "alice", groups: ["devs"] });
  writeFileSync(join(dir, "alice.crt"), alice.certPem);
  writeFileSync(join(dir, "alice.key"), alice.keyPem);
  const config = configWithUser("    client-certificate: alice.crt\n    client-key: alice.key");
  assert.deepEqual(await whoami(config, newCredentialSource(config)), { clientCN: "alice" });
});

test("a client certificate embedded as data is presented", async () => {
  const bob = await ca.issueClient({ user: "bob" });
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const config = configWithUser(
    `    client-certificate-data: ${b64(bob.certPem)}\n    client-key-data: ${b64(bob.keyPem)}`,
  );
  assert.deepEqual(await whoami(config, newCredentialSource(config)), { clientCN: "bob" });
});

test("tls-server-name and insecure-skip-tls-verify reach the TLS settings", async () => {
  const named = configWithUser("    token: t", "    tls-server-name: api.example");
  assert.equal(named.tls.serverName, "api.example");
  named.host = `https://127.0.0.1:${port}`; // the certificate names no IP; the server name makes it pass
  assert.equal((await whoami(named, newCredentialSource(named))).authorization, "Bearer t");

  const file = join(dir, "insecure");
  writeFileSync(
    file,
    `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
  );
  const insecure = getConfig({ kubeconfig: file, argv: [], env: {} });
  assert.equal(insecure.tls.insecureSkipVerify, true);
  assert.equal((await whoami(insecure, newCredentialSource(insecure))).authorization, "Bearer t");
});

test("a token file is re-read after a minute or after invalidate(), and survives a missing file", async () => {
  const tokenFile = join(dir, "rotating-token");
  writeFileSync(tokenFile, "first\n");
  const config = configWithUser(`    tokenFile: ${tokenFile}`);
  assert.equal(config.auth.bearerTokenFile, tokenFile);
  let clock = 1_000_000;
  const creds = newCredentialSource(config, { now: () => clock });
  assert.equal((await whoami(config, creds)).authorization, "Bearer first");

  writeFileSync(tokenFile, "second\n");
  assert.equal((await whoami(config, creds)).authorization, "Bearer first", "cached within the minute");
  clock += 60_001;
  assert.equal((await whoami(config, creds)).authorization, "Bearer second");

  writeFileSync(tokenFile, "third");
  creds.invalidate();
  assert.equal((await whoami(config, creds)).authorization, "Bearer third");

  unlinkSync(tokenFile);
  creds.invalidate();
  assert.equal((await whoami(config, creds)).authorization, "Bearer third", "the last good token is kept");
});

test("an unreadable token file with no token to fall back on is a ConfigError naming the file", async () => {
  const missing = join(dir, "no-such-token");
  const creds = newCredentialSource({ host: "https://x", tls: {}, auth: { bearerTokenFile: missing } });
  await assert.rejects(creds.authorization(), (err) => {
    assert.ok(isConfigError(err, "ERR_TOKEN_FILE"));
    assert.match(err.message, /no-such-token/);
    return true;
  });
});

test("in-cluster config from a service-account dir authenticates and follows token rotation", async () => {
  const sa = join(dir, "serviceaccount");
  rmSync(sa, { recursive: true, force: true });
  mkdirSync(sa);
  writeFileSync(join(sa, "token"), "sa-token-1");
  writeFileSync(join(sa, "ca.crt"), ca.certPem);
  writeFileSync(join(sa, "namespace"), "team-a");
  const config = inClusterConfig({
    env: { KUBERNETES_SERVICE_HOST: "localhost", KUBERNETES_SERVICE_PORT: String(port) },
    serviceAccountDir: sa,
  });
  const creds = newCredentialSource(config);
  assert.equal((await whoami(config, creds)).authorization, "Bearer sa-token-1");
  writeFileSync(join(sa, "token"), "sa-token-2");
  creds.invalidate(); // as the transport does after a 401
  assert.equal((await whoami(config, creds)).authorization, "Bearer sa-token-2");
});

test("an exec plugin's token is cached until invalidate(), and concurrent callers share one run", async () => {
  const counter = join(dir, "count-shared");
  const config = configWithUser(execUser({ COUNTER: counter }));
  const creds = newCredentialSource(config, quiet);
  const all = await Promise.all([1, 2, 3, 4, 5].map(() => creds.authorization()));
  assert.deepEqual(new Set(all), new Set(["Bearer token-1"]));
  assert.equal(runs(counter), 1);

  assert.equal((await whoami(config, creds)).authorization, "Bearer token-1", "no expiry: cached");
  assert.equal(runs(counter), 1);
  creds.invalidate();
  assert.equal((await whoami(config, creds)).authorization, "Bearer token-2");
  assert.equal(runs(counter), 2);
});

test("an exec credential is re-fetched once its expirationTimestamp passes", async () => {
  const counter = join(dir, "count-expiry");
  const expires = "2030-01-01T00:00:00Z";
  const config = configWithUser(execUser({ COUNTER: counter, EXPIRES: expires }));
  let clock = Date.parse(expires) - 10_000;
  const creds = newCredentialSource(config, { ...quiet, now: () => clock });
  assert.equal(await creds.authorization(), "Bearer token-1");
  clock += 5_000;
  assert.equal(await creds.authorization(), "Bearer token-1");
  clock = Date.parse(expires);
  assert.equal(await creds.authorization(), "Bearer token-2");
  assert.equal(runs(counter), 2);
});

test("an exec plugin's client certificate is presented to the server", async () => {
  const carol = await ca.issueClient({ user: "carol" });
  writeFileSync(join(dir, "carol.crt"), carol.certPem);
  writeFileSync(join(dir, "carol.key"), carol.keyPem);
  const counter = join(dir, "count-cert");
  const config = configWithUser(
    execUser({ COUNTER: counter, MODE: "cert", CERT: join(dir, "carol.crt"), KEY: join(dir, "carol.key") }),
  );
  const creds = newCredentialSource(config, quiet);
  assert.deepEqual(await whoami(config, creds), { clientCN: "carol" });
  assert.equal(runs(counter), 1, "authorization() and clientCertificate() share the run");
});

test("the plugin gets KUBERNETES_EXEC_INFO with cluster info and the exec extension", async () => {
  const counter = join(dir, "count-info");
  const infoOut = join(dir, "exec-info.json");
  const config = configWithUser(
    execUser({ COUNTER: counter, INFO_OUT: infoOut }, "      provideClusterInfo: true"),
    `    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: test-audience}`,
  );
  await newCredentialSource(config, quiet).authorization();
  const info = JSON.parse(readFileSync(infoOut, "utf8"));
  assert.equal(info.kind, "ExecCredential");
  assert.equal(info.apiVersion, "client.authentication.k8s.io/v1");
  assert.equal(info.spec.interactive, false);
  assert.equal(info.spec.cluster.server, `https://localhost:${port}`);
  assert.equal(Buffer.from(info.spec.cluster["certificate-authority-data"], "base64").toString(), ca.certPem);
  assert.deepEqual(info.spec.cluster.config, { audience: "test-audience" });
});

test("a failing plugin is a ConfigError with its exit code and stderr, which is passed through", async () => {
  const stderr = new PassThrough();
  let copied = "";
  stderr.on("data", (c) => {
    copied += c;
  });
  const config = configWithUser(
    execUser({ COUNTER: join(dir, "count-fail"), MODE: "fail", STDERR: "login expired" }),
  );
  const creds = newCredentialSource(config, { stderr, interactive: false });
  await assert.rejects(creds.authorization(), (err) => {
    assert.ok(isConfigError(err, "ERR_EXEC_PLUGIN"));
    assert.match(err.message, /failed with exit code 3: login expired/);
    assert.ok(err.message.includes(process.execPath));
    return true;
  });
  assert.equal(copied, "login expired");
});

test("a missing plugin names the command and shows the installHint", async () => {
  const config = configWithUser(`    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: no-such-auth-plugin-x7
      installHint: "run: brew install no-such-auth-plugin-x7"`);
  await assert.rejects(newCredentialSource(config, quiet).authorization(), (err) => {
    assert.ok(isConfigError(err, "ERR_EXEC_PLUGIN"));
    assert.match(err.message, /"no-such-auth-plugin-x7": executable not found/);
    assert.match(err.message, /brew install no-such-auth-plugin-x7/);
    return true;
  });
});

test("a plugin that does not finish is killed after its timeout", async () => {
  const config = configWithUser(execUser({ COUNTER: join(dir, "count-hang"), MODE: "hang" }));
  config.auth.exec!.timeoutMs = 300;
  await assert.rejects(newCredentialSource(config, quiet).authorization(), /did not finish within 300 ms/);
});

test("a plugin answering with another apiVersion is refused", async () => {
  const config = configWithUser(
    execUser({ COUNTER: join(dir, "count-version"), PRINT_VERSION: "client.authentication.k8s.io/v1beta1" }),
  );
  await assert.rejects(
    newCredentialSource(config, quiet).authorization(),
    /configured for apiVersion "client.authentication.k8s.io\/v1" but printed "client.authentication.k8s.io\/v1beta1"/,
  );
});

test("a caller's abort rejects its own wait without failing the shared run", async () => {
  const counter = join(dir, "count-abort");
  const config = configWithUser(execUser({ COUNTER: counter }));
  const creds = newCredentialSource(config, quiet);
  const controller = new AbortController();
  const abandoned = creds.authorization(controller.signal);
  const patient = creds.authorization();
  controller.abort(new Error("caller gave up"));
  await assert.rejects(abandoned, /caller gave up/);
  assert.equal(await patient, "Bearer token-1");
  assert.equal(runs(counter), 1);
});

test("a static token wins over an exec plugin, which then never runs", async () => {
  const counter = join(dir, "count-static");
  const config = configWithUser(`    token: static\n${execUser({ COUNTER: counter })}`);
  const creds = newCredentialSource(config, quiet);
  assert.deepEqual(await whoami(config, creds), { authorization: "Bearer static" });
  assert.throws(() => readFileSync(counter), /ENOENT/);
});
