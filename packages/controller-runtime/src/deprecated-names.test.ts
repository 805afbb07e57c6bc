// The names the naming rules replaced still work for one release: each old export is the new
// one, and each old option is honoured where the new one is not given (the new one wins).
import assert from "node:assert/strict";
import { test } from "node:test";
import * as api from "./api/index.js";
import * as apiserver from "controller-runtime-apiserver";
import * as cache from "./cache/index.js";
import * as certs from "./certs/index.js";
import { resolveControllerOptions } from "./controller/options.js";
import * as mapper from "./mapper/index.js";
import { resolveManagerOptions } from "./manager/options.js";
import * as patch from "./patch/index.js";
import * as rest from "./rest/index.js";
import * as workqueue from "./workqueue/index.js";
import type { RestConfig as RootRestConfig, RESTConfig } from "./index.js";

test("each deprecated export is the export that replaced it", () => {
  const pairs: [unknown, unknown, string][] = [
    [rest.createRestClient, rest.newRESTClient, "createRestClient"],
    [rest.createCredentialSource, rest.newCredentialSource, "createCredentialSource"],
    [rest.createTokenBucket, rest.newTokenBucket, "createTokenBucket"],
    [rest.createTransport, rest.newTransport, "createTransport"],
    [mapper.createRestMapper, mapper.newRESTMapper, "createRestMapper"],
    [apiserver.startApiServer, apiserver.startAPIServer, "startApiServer"],
    [api.parseApiVersion, api.parseAPIVersion, "parseApiVersion"],
    [patch.applyJsonPatch, patch.applyJSONPatch, "applyJsonPatch"],
    [patch.createJsonPatch, patch.createJSONPatch, "createJsonPatch"],
    [patch.cloneJson, patch.cloneJSON, "cloneJson"],
    [cache.createCache, cache.newCache, "createCache"],
    [workqueue.createFakeClock, workqueue.newFakeClock, "createFakeClock"],
    [certs.createCertificateAuthority, certs.newCertificateAuthority, "createCertificateAuthority"],
  ];
  for (const [old, now, name] of pairs) assert.equal(old, now, name);
  // Types: these assignments compile only while the old names denote the new types.
  const config: RESTConfig = { host: "https://127.0.0.1:1", tls: {}, auth: {} };
  const old: rest.RestConfig & RootRestConfig = config;
  const value: patch.JsonValue = { a: [1] } satisfies patch.JSONValue;
  assert.equal(old.host, config.host);
  assert.deepEqual(value, { a: [1] });
});

test("deprecated duration options are honoured, and the Ms-suffixed ones win", () => {
  const old = resolveManagerOptions({
    leaseDuration: 1,
    renewDeadline: 2,
    retryPeriod: 3,
    gracefulShutdownTimeout: 4,
  });
  assert.deepEqual(
    [old.leaseDurationMs, old.renewDeadlineMs, old.retryPeriodMs, old.gracefulShutdownTimeoutMs],
    [1, 2, 3, 4],
  );
  const both = resolveManagerOptions({ leaseDuration: 1, leaseDurationMs: 10 });
  assert.equal(both.leaseDurationMs, 10);

  const reconciler = { reconcile: async () => ({}) };
  const fromOptions = resolveControllerOptions(
    "c",
    {},
    {
      reconciler,
      cacheSyncTimeout: 5,
      reconciliationTimeout: 6,
      slowReconcileWarning: 7,
    },
  );
  assert.deepEqual(
    [fromOptions.cacheSyncTimeoutMs, fromOptions.reconciliationTimeoutMs, fromOptions.slowReconcileWarningMs],
    [5, 6, 7],
  );
  const fromDefaults = resolveControllerOptions(
    "c",
    { controllerDefaults: { cacheSyncTimeout: 8, reconciliationTimeoutMs: 9 } },
    { reconciler, reconciliationTimeout: 1 },
  );
  assert.equal(fromDefaults.cacheSyncTimeoutMs, 8);
  assert.equal(fromDefaults.reconciliationTimeoutMs, 1, "the controller's own option wins over the defaults");
});
