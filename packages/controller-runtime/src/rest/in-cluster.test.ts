// In-cluster config from a fake service-account directory and a faked environment.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { isConfigError } from "./config-error.js";
import { inClusterConfig } from "./in-cluster.js";

let dir: string;
const env = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };
const caPem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

before(() => {
  dir = mkdtempSync(join(tmpdir(), "in-cluster-test-"));
});

after(() => rmSync(dir, { recursive: true, force: true }));

function serviceAccount(name: string, files: Record<string, string>): string {
  const sa = join(dir, name);
  mkdirSync(sa);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(sa, file), text);
  return sa;
}

test("reads the host, token, CA and namespace, and records the token file for rotation", () => {
  const sa = serviceAccount("full", { token: "tok\n", "ca.crt": caPem, namespace: "team-a\n" });
  assert.deepEqual(inClusterConfig({ env, serviceAccountDir: sa }), {
    host: "https://10.96.0.1:443",
    tls: { ca: caPem },
    auth: { bearerToken: "tok", bearerTokenFile: join(sa, "token") },
    namespace: "team-a",
    source: "in-cluster",
  });
});

test("an IPv6 service host is bracketed", () => {
  const sa = serviceAccount("ipv6", { token: "tok" });
  const config = inClusterConfig({
    env: { KUBERNETES_SERVICE_HOST: "fd00:10:96::1", KUBERNETES_SERVICE_PORT: "6443" },
    serviceAccountDir: sa,
  });
  assert.equal(config.host, "https://[fd00:10:96::1]:6443");
  assert.equal(new URL(config.host).hostname, "[fd00:10:96::1]");
});

test("a missing CA or namespace file is tolerated", () => {
  const config = inClusterConfig({ env, serviceAccountDir: serviceAccount("token-only", { token: "tok" }) });
  assert.deepEqual(config.tls, {});
  assert.equal(config.namespace, undefined);
});

test("outside a Pod it says which variables are missing", () => {
  for (const partial of [{}, { KUBERNETES_SERVICE_HOST: "10.0.0.1" }, { KUBERNETES_SERVICE_PORT: "443" }]) {
    assert.throws(
      () => inClusterConfig({ env: partial, serviceAccountDir: dir }),
      (err) =>
        isConfigError(err, "ERR_NOT_IN_CLUSTER") &&
        /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT/.test(err.message),
    );
  }
});

test("a missing token names the file and the likely cause", () => {
  const sa = serviceAccount("no-token", { "ca.crt": caPem });
  assert.throws(
    () => inClusterConfig({ env, serviceAccountDir: sa }),
    (err) =>
      isConfigError(err, "ERR_IN_CLUSTER") &&
      err.message.includes(join(sa, "token")) &&
      err.message.includes("automountServiceAccountToken"),
  );
});
