// Parsing, merging and checking kubeconfig files, and turning a context into a RESTConfig.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { newCertificateAuthority } from "../certs/index.js";
import { type ConfigErrorCode, isConfigError } from "./config-error.js";
import { configFromKubeconfig } from "./get-config.js";
import { loadKubeconfig } from "./kubeconfig.js";

let dir: string;
let caPem: string;
let client: { certPem: string; keyPem: string };

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "kubeconfig-test-"));
  const ca = await newCertificateAuthority();
  caPem = ca.certPem;
  client = await ca.issueClient({ user: "alice" });
});

after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function write(text: string, name = `config-${++n}`): string {
  const path = join(dir, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function rejects(fn: () => unknown, code: ConfigErrorCode, message: string | RegExp): void {
  assert.throws(fn, (err) => {
    assert.ok(isConfigError(err, code), `want ${code}, got ${String(err)}`);
    if (typeof message === "string") assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

test("every supported field is read, with relative paths resolved against the file", () => {
  write(caPem, "nested/pki/ca.crt");
  write(client.certPem, "nested/pki/alice.crt");
  write(client.keyPem, "nested/pki/alice.key");
  const file = write(
    `apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example:6443/prefix/
    certificate-authority: pki/ca.crt
    tls-server-name: kubernetes.default
    proxy-url: http://proxy.example:3128
users:
- name: alice
  user:
    client-certificate: pki/alice.crt
    client-key: ./pki/alice.key
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: alice
    namespace: team-a
`,
    "nested/config",
  );
  const kc = loadKubeconfig([file]);
  assert.equal(kc.clusters.get("dev-cluster")?.value.certificateAuthority, join(dir, "nested/pki/ca.crt"));
  assert.equal(kc.users.get("alice")?.value.clientKey, join(dir, "nested/pki/alice.key"));
  const config = configFromKubeconfig(kc);
  assert.deepEqual(config, {
    host: "https://dev.example:6443/prefix",
    tls: { ca: caPem, serverName: "kubernetes.default", cert: client.certPem, key: client.keyPem },
    auth: {},
    proxyUrl: "http://proxy.example:3128",
    namespace: "team-a",
    source: `kubeconfig ${file}, context "dev", user "alice"`,
  });
});

test("embedded data, a bare host:port, and a context without a user", () => {
  const file = write(`
clusters: [{name: c, cluster: {server: "10.0.0.1:6443", certificate-authority-data: ${b64(caPem)}}}]
contexts: [{name: anon, context: {cluster: c}}]
current-context: anon
`);
  const config = configFromKubeconfig(loadKubeconfig([file]));
  assert.equal(config.host, "https://10.0.0.1:6443");
  assert.equal(config.tls.ca, caPem);
  assert.deepEqual(config.auth, {});
});

test("several files merge as clientcmd does: the first to define a name or current-context wins", () => {
  const a = write(`
current-context: ctx-a
clusters: [{name: shared, cluster: {server: "https://from-a"}}]
contexts: [{name: ctx-a, context: {cluster: shared, user: u}}]
`);
  const b = write(`
current-context: ctx-b
clusters:
- {name: shared, cluster: {server: "https://from-b"}}
- {name: only-b, cluster: {server: "https://only-b"}}
users: [{name: u, user: {token: from-b}}]
contexts: [{name: ctx-b, context: {cluster: only-b, user: u}}]
`);
  const kc = loadKubeconfig([a, b, a]);
  assert.deepEqual(kc.files, [a, b]);
  assert.equal(kc.currentContext, "ctx-a");
  assert.equal(kc.currentContextFile, a);
  assert.deepEqual([...kc.clusters.keys()].sort(), ["only-b", "shared"]);
  const config = configFromKubeconfig(kc);
  assert.equal(config.host, "https://from-a");
  assert.equal(config.auth.bearerToken, "from-b", "a context in one file may name a user from another");
  assert.equal(configFromKubeconfig(kc, { context: "ctx-b" }).host, "https://only-b");
});

test("an empty file is an empty config", () => {
  const kc = loadKubeconfig([write("")]);
  assert.equal(kc.clusters.size, 0);
  assert.equal(kc.currentContext, undefined);
});

test("a missing file names the file", () => {
  const missing = join(dir, "nope", "config");
  rejects(
    () => loadKubeconfig([missing]),
    "ERR_KUBECONFIG_READ",
    `kubeconfig ${missing}: cannot read: no such file`,
  );
});

test("a YAML syntax error names the file and the line", () => {
  const file = write("clusters:\n- name: a\n  cluster: {server: x\n");
  rejects(
    () => loadKubeconfig([file]),
    "ERR_KUBECONFIG_SYNTAX",
    new RegExp(`^kubeconfig ${file}: invalid YAML: .*line \\d+`),
  );
});

test("mistyped and missing fields name the exact field", () => {
  const cases: [string, string][] = [
    ["clusters: {a: b}", "clusters must be a list"],
    ["- a\n- b", "the document must be a mapping"],
    ["clusters: [{cluster: {server: x}}]", "clusters[0].name is missing"],
    ["clusters: [{name: a, cluster: []}]", "clusters[0].cluster must be a mapping"],
    [
      "clusters: [{name: a, cluster: {insecure-skip-tls-verify: yes please}}]",
      'clusters[0].cluster.insecure-skip-tls-verify must be true or false, not "yes please"',
    ],
    ["users: [{name: u, user: {token: 42}}]", "users[0].user.token must be a string, not 42"],
    [
      "clusters: [{name: a, cluster: {}}, {name: a, cluster: {}}]",
      'clusters[1].name "a" is used twice (also clusters[0])',
    ],
    ["users: [{name: u, user: {exec: {command: x}}}]", "users[0].user.exec.apiVersion is missing"],
    [
      "users: [{name: u, user: {exec: {apiVersion: v, command: x, interactiveMode: Sometimes}}}]",
      'users[0].user.exec.interactiveMode "Sometimes" is not one of Never, IfAvailable, Always',
    ],
    [
      "users: [{name: u, user: {exec: {apiVersion: v, command: x, env: [{value: v}]}}}]",
      "users[0].user.exec.env[0].name is missing",
    ],
  ];
  for (const [yaml, want] of cases) {
    const file = write(yaml);
    rejects(() => loadKubeconfig([file]), "ERR_KUBECONFIG_INVALID", `kubeconfig ${file}: ${want}`);
  }
});

/** Loads a config whose only context is `ctx`, with the given clusters/users, and resolves it. */
function resolveWith(body: string, context?: string): () => unknown {
  const file = write(body);
  return () => configFromKubeconfig(loadKubeconfig([file]), { context });
}

test("dangling context, cluster and user names are one clear error each", () => {
  const clusters = `clusters: [{name: c, cluster: {server: "https://c"}}]\n`;
  let file = write(`${clusters}contexts:
- {name: ok, context: {cluster: c}}
- {name: bad, context: {cluster: foo}}
current-context: bad
`);
  rejects(
    () => configFromKubeconfig(loadKubeconfig([file])),
    "ERR_KUBECONFIG_INVALID",
    `kubeconfig ${file}: contexts[1].context.cluster "foo" names no cluster`,
  );
  file = write(`${clusters}contexts: [{name: x, context: {cluster: c, user: ghost}}]\ncurrent-context: x\n`);
  rejects(
    () => configFromKubeconfig(loadKubeconfig([file])),
    "ERR_KUBECONFIG_INVALID",
    `kubeconfig ${file}: contexts[0].context.user "ghost" names no user`,
  );
  file = write(`${clusters}contexts: [{name: x, context: {user: u}}]\ncurrent-context: x\n`);
  rejects(
    () => configFromKubeconfig(loadKubeconfig([file])),
    "ERR_KUBECONFIG_INVALID",
    `kubeconfig ${file}: contexts[0].context.cluster is missing`,
  );
  file = write(`${clusters}contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: gone\n`);
  rejects(
    () => configFromKubeconfig(loadKubeconfig([file])),
    "ERR_KUBECONFIG_INVALID",
    `kubeconfig ${file}: current-context "gone" names no context; defined contexts: "x"`,
  );
  rejects(
    () => configFromKubeconfig(loadKubeconfig([file]), { context: "other" }),
    "ERR_KUBECONFIG_INVALID",
    `kubeconfig ${file}: context "other" (from --context) is not defined; defined contexts: "x"`,
  );
  file = write(`${clusters}contexts: [{name: x, context: {cluster: c}}]\n`);
  rejects(
    () => configFromKubeconfig(loadKubeconfig([file])),
    "ERR_KUBECONFIG_INVALID",
    /current-context is not set/,
  );
  assert.equal(configFromKubeconfig(loadKubeconfig([file]), { context: "x" }).host, "https://c");
});

test("an unreadable certificate or token file names the field and the file", () => {
  const ctx = `contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`;
  rejects(
    resolveWith(
      `clusters: [{name: c, cluster: {server: "https://c", certificate-authority: missing-ca.crt}}]\n${ctx}users: [{name: u}]`,
    ),
    "ERR_KUBECONFIG_READ",
    new RegExp(
      `clusters\\[0\\]\\.cluster\\.certificate-authority: cannot read ${join(dir, "missing-ca.crt")}: ENOENT`,
    ),
  );
  const c = `clusters: [{name: c, cluster: {server: "https://c"}}]\n${ctx}`;
  rejects(
    resolveWith(
      `${c}users: [{name: u, user: {client-certificate: /nowhere/u.crt, client-key: /nowhere/u.key}}]`,
    ),
    "ERR_KUBECONFIG_READ",
    /users\[0\]\.user\.client-certificate: cannot read \/nowhere\/u\.crt/,
  );
  rejects(
    resolveWith(`${c}users: [{name: u, user: {tokenFile: no-token}}]`),
    "ERR_KUBECONFIG_READ",
    /users\[0\]\.user\.tokenFile: cannot read .*no-token/,
  );
  rejects(
    resolveWith(
      `${c}users: [{name: u, user: {client-certificate-data: ${b64("not a pem")}, client-key-data: ${b64(client.keyPem)}}}]`,
    ),
    "ERR_KUBECONFIG_INVALID",
    /users\[0\]\.user\.client-certificate-data holds no PEM certificate/,
  );
});

test("invalid combinations and values are refused with what to do", () => {
  const ctx = `contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`;
  const c = `clusters: [{name: c, cluster: {server: "https://c"}}]\n${ctx}`;
  const cases: [string, ConfigErrorCode, RegExp][] = [
    [
      `clusters: [{name: c, cluster: {}}]\n${ctx}users: [{name: u}]`,
      "ERR_KUBECONFIG_INVALID",
      /clusters\[0\]\.cluster\.server is missing/,
    ],
    [
      `clusters: [{name: c, cluster: {server: "ftp://c"}}]\n${ctx}users: [{name: u}]`,
      "ERR_KUBECONFIG_INVALID",
      /server "ftp:\/\/c" must be http or https/,
    ],
    [
      `clusters: [{name: c, cluster: {server: "https://c", proxy-url: "::"}}]\n${ctx}users: [{name: u}]`,
      "ERR_KUBECONFIG_INVALID",
      /proxy-url "::" is not a URL/,
    ],
    [
      `clusters: [{name: c, cluster: {server: "https://c", insecure-skip-tls-verify: true, certificate-authority-data: ${b64(caPem)}}}]\n${ctx}users: [{name: u}]`,
      "ERR_KUBECONFIG_INVALID",
      /insecure-skip-tls-verify cannot be combined with certificate-authority/,
    ],
    [
      `${c}users: [{name: u, user: {client-certificate-data: ${b64(client.certPem)}}}]`,
      "ERR_KUBECONFIG_INVALID",
      /has client-certificate but no client-key; set both/,
    ],
    [
      `${c}users: [{name: u, user: {token: t, username: a, password: b}}]`,
      "ERR_KUBECONFIG_INVALID",
      /both a token and username\/password/,
    ],
    [
      `${c}users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: x}}}]`,
      "ERR_KUBECONFIG_INVALID",
      /exec\.apiVersion "client\.authentication\.k8s\.io\/v1alpha1" is not supported/,
    ],
    [
      `${c}users: [{name: u, user: {auth-provider: {name: gcp, config: {}}}}]`,
      "ERR_AUTH_PROVIDER_UNSUPPORTED",
      /users\[0\]\.user\.auth-provider "gcp" of user "u" is not supported.*exec credential plugin/,
    ],
  ];
  for (const [yaml, code, want] of cases) rejects(resolveWith(yaml), code, want);
});

test("an auth-provider on a user the context does not use is no error", () => {
  const config = resolveWith(`clusters: [{name: c, cluster: {server: "https://c"}}]
users: [{name: old, user: {auth-provider: {name: oidc}}}, {name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`)() as { auth: { bearerToken?: string } };
  assert.equal(config.auth.bearerToken, "t");
});

test("token, tokenFile, basic auth and exec are carried into the config", () => {
  const tokenFile = write("  file-token \n", "token");
  const c = `clusters: [{name: c, cluster: {server: "https://c", extensions: [{name: client.authentication.k8s.io/exec, extension: {k: v}}]}}]\ncurrent-context: x\n`;
  const run = (user: string) =>
    resolveWith(
      `${c}contexts: [{name: x, context: {cluster: c, user: u}}]\nusers: [{name: u, user: ${user}}]`,
    )() as {
      auth: Record<string, unknown>;
    };
  assert.deepEqual(run(`{tokenFile: ${tokenFile}}`).auth, {
    bearerToken: "file-token",
    bearerTokenFile: tokenFile,
  });
  assert.deepEqual(run(`{token: t, tokenFile: ${tokenFile}}`).auth, {
    bearerToken: "t",
    bearerTokenFile: tokenFile,
  });
  assert.deepEqual(run("{username: a, password: b}").auth, { username: "a", password: "b" });
  assert.deepEqual(
    run(
      "{exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ./bin/plugin, args: [get-token], env: [{name: A, value: b}], provideClusterInfo: true}}",
    ).auth,
    {
      exec: {
        apiVersion: "client.authentication.k8s.io/v1beta1",
        command: join(dir, "bin/plugin"),
        args: ["get-token"],
        env: [{ name: "A", value: "b" }],
        installHint: undefined,
        provideClusterInfo: true,
        interactiveMode: undefined,
        clusterConfig: { k: "v" },
      },
    },
  );
  const bare = run("{exec: {apiVersion: client.authentication.k8s.io/v1, command: kubelogin}}").auth.exec as {
    command: string;
  };
  assert.equal(bare.command, "kubelogin", "a bare command is looked up on PATH, not next to the file");
});
