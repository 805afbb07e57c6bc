// What an exec plugin may print, and how one run is set up. Caching and HTTPS are covered in
// credentials.test.ts.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import type { ExecConfig } from "./config.js";
import { isConfigError } from "./config-error.js";
import { parseExecCredential, runExecPlugin } from "./exec-credential.js";

const v1: ExecConfig = { command: "my-plugin", apiVersion: "client.authentication.k8s.io/v1" };
const print = (status: unknown, extra: object = {}) =>
  JSON.stringify({ apiVersion: v1.apiVersion, kind: "ExecCredential", status, ...extra });

test("a token, a certificate pair and an expiry are read", () => {
  assert.deepEqual(
    parseExecCredential(v1, print({ token: "t", expirationTimestamp: "2030-01-02T03:04:05Z" })),
    { token: "t", expiresAt: Date.parse("2030-01-02T03:04:05Z") },
  );
  assert.deepEqual(parseExecCredential(v1, print({ clientCertificateData: "C", clientKeyData: "K" })), {
    clientCertificate: { cert: "C", key: "K" },
  });
});

test("unusable output is refused with the reason, naming the command", () => {
  const cases: [string, RegExp][] = [
    ["not json", /"my-plugin": printed something that is not JSON/],
    ["[]", /printed JSON that is not an ExecCredential object/],
    [
      JSON.stringify({ apiVersion: v1.apiVersion, kind: "Status" }),
      /printed kind "Status", want ExecCredential/,
    ],
    [print(undefined), /printed no status/],
    [print({}), /printed neither status\.token nor/],
    [
      print({ clientCertificateData: "C" }),
      /only one of status\.clientCertificateData and status\.clientKeyData/,
    ],
    [
      print({ token: "t", expirationTimestamp: "tomorrow" }),
      /unreadable status\.expirationTimestamp "tomorrow"/,
    ],
  ];
  for (const [stdout, want] of cases) {
    assert.throws(
      () => parseExecCredential(v1, stdout),
      (err) => isConfigError(err, "ERR_EXEC_PLUGIN") && want.test(err.message),
      stdout,
    );
  }
});

const node = process.execPath;
const script = (js: string): ExecConfig => ({ ...v1, command: node, args: ["-e", js] });

test("env entries and KUBERNETES_EXEC_INFO reach the plugin; interactive is false without a terminal", async () => {
  const exec = script(
    `const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
     process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: "ExecCredential",
       status: { token: process.env.GREETING + ":" + info.spec.interactive + ":" + ("cluster" in info.spec) } }));`,
  );
  exec.env = [{ name: "GREETING", value: "hi" }];
  const result = await runExecPlugin({ exec, env: { PATH: process.env.PATH }, interactive: false });
  assert.equal(result.token, "hi:false:false", "no cluster info unless provideClusterInfo is set");
});

test("v1beta1 plugins are accepted; v1alpha1 is refused before running anything", async () => {
  const beta = script(
    `process.stdout.write(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1beta1", kind: "ExecCredential", status: { token: "b" } }))`,
  );
  beta.apiVersion = "client.authentication.k8s.io/v1beta1";
  assert.equal((await runExecPlugin({ exec: beta, interactive: false })).token, "b");
  await assert.rejects(
    runExecPlugin({ exec: { ...beta, apiVersion: "client.authentication.k8s.io/v1alpha1" } }),
    /apiVersion "client.authentication.k8s.io\/v1alpha1" is not supported/,
  );
});

test("interactiveMode Always without a terminal is refused with what to do", async () => {
  await assert.rejects(
    runExecPlugin({ exec: { ...v1, interactiveMode: "Always" }, interactive: false }),
    (err) => isConfigError(err, "ERR_EXEC_PLUGIN") && /standard input is not a terminal/.test(err.message),
  );
});

test("a plugin killed by the caller's signal reports the cancellation", async () => {
  const controller = new AbortController();
  const stderr = new PassThrough();
  const exec = script(`process.stderr.write("started"); setInterval(() => {}, 1000);`);
  const run = runExecPlugin({ exec, stderr, interactive: false, signal: controller.signal });
  stderr.once("data", () => controller.abort());
  await assert.rejects(run, (err) => isConfigError(err, "ERR_EXEC_PLUGIN") && /cancelled/.test(err.message));
});
