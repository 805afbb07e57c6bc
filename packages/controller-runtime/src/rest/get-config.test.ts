// getConfig's resolution order, flags and context selection, with every input faked: argv, env,
// the home directory and the service-account mount all live in a temp dir.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, before, test } from "node:test";
import { isConfigError } from "./config-error.js";
import { type GetConfigOptions, getConfig } from "./get-config.js";

let dir: string;
let flagFile: string;
let envFile: string;
let home: string;
let sa: string;
const inCluster = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };

/** A kubeconfig with two contexts: `main` (current) and `other`, on servers named after `tag`. */
function kubeconfig(tag: string): string {
  return `apiVersion: v1
kind: Config
current-context: main
clusters:
- {name: c, cluster: {server: "https://${tag}.example"}}
- {name: c2, cluster: {server: "https://${tag}-other.example"}}
users: [{name: u, user: {token: ${tag}-token}}]
contexts:
- {name: main, context: {cluster: c, user: u}}
- {name: other, context: {cluster: c2, user: u, namespace: ns-${tag}}}
`;
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), "get-config-test-"));
  flagFile = join(dir, "flag-config");
  envFile = join(dir, "env-config");
  writeFileSync(flagFile, kubeconfig("flag"));
  writeFileSync(envFile, kubeconfig("env"));
  home = join(dir, "home");
  mkdirSync(join(home, ".kube"), { recursive: true });
  writeFileSync(join(home, ".kube", "config"), kubeconfig("home"));
  sa = join(dir, "serviceaccount");
  mkdirSync(sa);
  writeFileSync(join(sa, "token"), "sa-token");
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** Everything present; each test removes what it wants to fall past. */
function everything(over: Partial<GetConfigOptions> = {}): GetConfigOptions {
  return {
    argv: ["node", "main.js", "--kubeconfig", flagFile],
    env: { KUBECONFIG: envFile, ...inCluster },
    homeDir: home,
    serviceAccountDir: sa,
    ...over,
  };
}

test("the --kubeconfig flag beats KUBECONFIG, in-cluster and the home config", () => {
  assert.equal(getConfig(everything()).host, "https://flag.example");
  assert.equal(
    getConfig(everything({ argv: ["node", `--kubeconfig=${flagFile}`] })).host,
    "https://flag.example",
  );
  assert.equal(
    getConfig(everything({ argv: ["-kubeconfig", flagFile] })).host,
    "https://flag.example",
    "Go's one-dash form",
  );
});

test("the kubeconfig option is used in place of the flag", () => {
  assert.equal(getConfig(everything({ argv: [], kubeconfig: flagFile })).host, "https://flag.example");
});

test("KUBECONFIG beats in-cluster and the home config", () => {
  const config = getConfig(everything({ argv: [] }));
  assert.equal(config.host, "https://env.example");
  assert.equal(config.auth.bearerToken, "env-token");
  assert.equal(config.source, `kubeconfig ${envFile}, context "main", user "u"`);
});

test("in-cluster beats the home config when KUBECONFIG is unset", () => {
  const config = getConfig(everything({ argv: [], env: { ...inCluster } }));
  assert.equal(config.host, "https://10.96.0.1:443");
  assert.equal(config.source, "in-cluster");
  assert.equal(config.auth.bearerTokenFile, join(sa, "token"));
});

test("~/.kube/config is the last resort, with HOME from the injected env", () => {
  assert.equal(getConfig(everything({ argv: [], env: {} })).host, "https://home.example");
  assert.equal(
    getConfig({ argv: [], env: { HOME: home }, serviceAccountDir: sa }).host,
    "https://home.example",
  );
});

test("a broken in-cluster mount falls through to the home config", () => {
  const empty = join(dir, "empty-sa");
  mkdirSync(empty, { recursive: true });
  const config = getConfig(everything({ argv: [], env: { ...inCluster }, serviceAccountDir: empty }));
  assert.equal(config.host, "https://home.example");
});

test("KUBECONFIG lists several files, merged; missing entries are skipped", () => {
  const extra = join(dir, "extra-config");
  writeFileSync(
    extra,
    `current-context: extra
clusters: [{name: c, cluster: {server: "https://shadowed.example"}}, {name: x, cluster: {server: "https://extra.example"}}]
contexts: [{name: extra, context: {cluster: x}}]
`,
  );
  const list = [join(dir, "missing"), extra, envFile].join(delimiter);
  const env = { KUBECONFIG: list };
  assert.equal(getConfig(everything({ argv: [], env })).host, "https://extra.example");
  const main = getConfig(everything({ argv: [], env, context: "main" }));
  assert.equal(main.host, "https://shadowed.example", "the first file to define cluster c wins");
  assert.equal(main.auth.bearerToken, "env-token");
});

test("KUBECONFIG naming only missing files is an error, even in a cluster", () => {
  const missing = join(dir, "missing-1");
  assert.throws(
    () => getConfig(everything({ argv: [], env: { KUBECONFIG: missing, ...inCluster } })),
    (err) => {
      assert.ok(isConfigError(err, "ERR_CONFIG_NOT_FOUND"));
      assert.match(err.message, new RegExp(`KUBECONFIG: none of ${missing} exists`));
      return true;
    },
  );
});

test("the context comes from --context or the option, else current-context", () => {
  const other = getConfig(everything({ argv: ["--kubeconfig", flagFile, "--context", "other"] }));
  assert.equal(other.host, "https://flag-other.example");
  assert.equal(other.namespace, "ns-flag");
  assert.equal(getConfig(everything({ argv: ["--context=other"] })).host, "https://env-other.example");
  assert.equal(
    getConfig(everything({ argv: [], env: {}, context: "other" })).host,
    "https://home-other.example",
  );
  assert.equal(
    getConfig(everything({ argv: ["--context", "other"], context: "main" })).host,
    "https://env.example",
  );
});

test("flags after -- are not flags", () => {
  assert.equal(getConfig(everything({ argv: ["--", "--kubeconfig", flagFile] })).host, "https://env.example");
});

test("a flag without a value is an error", () => {
  assert.throws(
    () => getConfig(everything({ argv: ["node", "--kubeconfig"] })),
    (err) => isConfigError(err, "ERR_INVALID_FLAG") && /--kubeconfig needs a value/.test(err.message),
  );
});

test("an explicit kubeconfig that does not exist is an error, not a fallback", () => {
  const missing = join(dir, "not-there");
  assert.throws(
    () => getConfig(everything({ argv: ["--kubeconfig", missing] })),
    (err) =>
      isConfigError(err, "ERR_KUBECONFIG_READ") &&
      err.message === `kubeconfig ${missing}: cannot read: no such file`,
  );
});

test("no config anywhere lists everything that was tried", () => {
  const nowhere = join(dir, "no-home");
  assert.throws(
    () => getConfig({ argv: [], env: {}, homeDir: nowhere, serviceAccountDir: join(dir, "no-sa") }),
    (err) => {
      assert.ok(isConfigError(err, "ERR_CONFIG_NOT_FOUND"));
      assert.equal(
        err.message,
        "no Kubernetes config found; tried --kubeconfig: not set; KUBECONFIG: not set; " +
          "in-cluster: not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set; " +
          `${join(nowhere, ".kube", "config")}: no such file. ` +
          "Pass --kubeconfig PATH, set KUBECONFIG, or run in a Pod with a service account.",
      );
      return true;
    },
  );
});
