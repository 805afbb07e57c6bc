// What a user sees when the API server refuses them or warns them: a 401 names the credential
// and what to renew, a TLS call to a plain-HTTP port says so, warnings reach the log once.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { Environment } from "../envtest/index.js";
import type { Logger } from "../log/index.js";
import { NetworkError, StatusError } from "./errors.js";
import type { RESTConfig } from "./config.js";
import { newRESTClient } from "./rest-client.js";
import { warningLogger } from "./warnings.js";

const env = new Environment();
let config: RESTConfig;
before(async () => {
  config = await env.start();
});
after(() => env.stop());

const configMaps = { group: "", version: "v1", resource: "configmaps", namespaced: true };

/** A Logger that keeps its info lines. */
function recordingLogger(lines: string[]): Logger {
  const logger: Logger = {
    info: (msg) => void lines.push(msg),
    error: (_err, msg) => void lines.push(msg),
    v: () => logger,
    enabled: () => true,
    withName: () => logger,
    withValues: () => logger,
  };
  return logger;
}

test("a 401 names the refused credential, where it came from, and what to do", async () => {
  const client = newRESTClient({
    host: config.host,
    tls: { ca: config.tls.ca },
    auth: { bearerToken: "not-a-token-this-server-issued" },
    source: 'kubeconfig /home/me/.kube/config, context "prod", user "me"',
  });
  try {
    const err = await client.get(configMaps, "x", { namespace: "default" }).then(
      () => assert.fail("an unknown token must be refused"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof StatusError);
    assert.equal(err.statusCode, 401);
    assert.match(
      err.message,
      /^Unauthorized: the server did not accept a static bearer token \(kubeconfig \/home\/me\/\.kube\/config, context "prod", user "me"\); renew the credential/,
    );
  } finally {
    await client.close();
  }
});

test("TLS to a port that speaks plain HTTP says so, not OpenSSL's text", async () => {
  const plain = createServer((_req, res) => res.end("{}")).listen(0, "127.0.0.1");
  await once(plain, "listening");
  const { port } = plain.address() as AddressInfo;
  const client = newRESTClient({ host: `https://127.0.0.1:${port}`, tls: {}, auth: {} });
  try {
    const err = await client.request({ path: "/version" }).then(
      () => assert.fail("expected a failure"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof NetworkError);
    assert.equal(
      err.message,
      `GET https://127.0.0.1:${port}/version: the server answered in plain HTTP, not TLS; use an http:// address or check the port`,
    );
  } finally {
    await client.close();
    plain.close();
  }
});

test("an unknown field's warning is logged once, however often it comes", async () => {
  const lines: string[] = [];
  const client = newRESTClient(config, { onWarning: warningLogger(recordingLogger(lines)) });
  try {
    for (const name of ["warn-a", "warn-b", "warn-c"]) {
      await client.create(
        configMaps,
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, sise: 3 },
        { namespace: "default", fieldValidation: "Warn" },
      );
    }
    assert.deepEqual(lines, ['unknown field "sise"']);
  } finally {
    await client
      .deleteCollection(configMaps, { namespace: "default", labelSelector: undefined })
      .catch(() => {});
    await client.close();
  }
});

test("onWarning: null drops warnings; a non-deduplicating logger logs each", async () => {
  const all: string[] = [];
  const log = warningLogger(recordingLogger(all), { deduplicate: false });
  for (let i = 0; i < 3; i++) log({ code: 299, agent: "-", text: "same" });
  assert.deepEqual(all, ["same", "same", "same"]);

  const deduped: string[] = [];
  const once = warningLogger(recordingLogger(deduped));
  for (let i = 0; i < 1500; i++) once({ code: 299, agent: "-", text: `w${i}` });
  for (let i = 1400; i < 1500; i++) once({ code: 299, agent: "-", text: `w${i}` });
  once({ code: 299, agent: "-", text: "w0" });
  // Memory stays bounded (1024 texts remembered): the recent repeats are dropped, the oldest
  // text, forgotten, is logged again.
  assert.equal(deduped.length, 1501);
  assert.equal(deduped.at(-1), "w0");

  const silent = newRESTClient(config, { onWarning: null });
  try {
    await silent.create(
      configMaps,
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "warn-silent", namespace: "default" },
        sise: 3,
      },
      { namespace: "default", fieldValidation: "Warn" },
    );
  } finally {
    await silent.delete(configMaps, "warn-silent", { namespace: "default" }).catch(() => {});
    await silent.close();
  }
});
