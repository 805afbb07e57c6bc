// A kind whose CRD is not installed: the cache says so at once, in words a newcomer can act on,
// instead of the server's bare "could not find the requested resource" until the sync times out.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { defineKind } from "../api/index.js";
import { eventually } from "../envtest/index.js";
import { newLogger } from "../log/index.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { newCache } from "./cache.js";

const env = testEnvironment();
before(() => env.start());
after(() => env.stop());

test("an informer of a kind the server does not serve names the likely cause and the fix", async () => {
  const lines: { level: string; msg: string; kind?: string; group?: string }[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split("\n")) if (l) lines.push(JSON.parse(l));
      done();
    },
  });
  const Gadget = defineKind({
    group: "missing.example.com",
    version: "v1",
    kind: "Gadget",
    plural: "gadgets",
    namespaced: true,
  });
  const cache = newCache(env.config, { logger: newLogger({ destination }) });
  const stop = new AbortController();
  const running = cache.start(stop.signal);
  try {
    await cache.getInformer(Gadget, { blockUntilSynced: false });
    const line = await eventually(
      "the cache's error line",
      () => lines.find((l) => l.level === "error" && l.msg.includes("does not serve this kind")),
      { timeoutMs: 30_000 },
    );
    assert.match(
      line.msg,
      /is its CRD installed\? \(kubectl apply -f config\/crd; in tests, envtest's crdDirectoryPaths\)/,
    );
    assert.equal(line.kind, "Gadget");
    assert.equal(line.group, "missing.example.com");
  } finally {
    stop.abort();
    await running.catch(() => {});
  }
});
