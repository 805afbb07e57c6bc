// headBucket against local servers: each answer S3 gives to HeadBucket, and no answer at all.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { headBucket } from "./probe.js";

async function withServer(
  handle: Parameters<typeof createServer>[1],
  fn: (endpoint: string) => Promise<void>,
): Promise<void> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

test("HeadBucket answers map to the Available condition's status and reason", async () => {
  const cases = [
    [200, "True", "BucketExists"],
    [404, "False", "NoSuchBucket"],
    [403, "False", "AccessDenied"],
    [500, "Unknown", "UnexpectedResponse"],
  ] as const;
  for (const [code, status, reason] of cases) {
    await withServer(
      (req, res) => {
        assert.equal(req.method, "HEAD");
        assert.equal(req.url, "/my%20bucket");
        res.writeHead(code).end();
      },
      async (endpoint) => {
        const r = await headBucket(`${endpoint}/`, "my bucket", { timeoutMs: 5000 });
        assert.deepEqual([r.status, r.reason], [status, reason]);
      },
    );
  }
});

test("an endpoint that does not answer in time is Unreachable", async () => {
  // The server takes the request and never answers.
  await withServer(
    () => {},
    async (endpoint) => {
      const r = await headBucket(endpoint, "slow", { timeoutMs: 50 });
      assert.deepEqual([r.status, r.reason], ["Unknown", "Unreachable"]);
      assert.match(r.message, /timed out/);
    },
  );
});

test("a probe cut short by shutdown is not a finding: it rejects", async () => {
  await withServer(
    () => {},
    async (endpoint) => {
      const stop = new AbortController();
      const probe = headBucket(endpoint, "b", { timeoutMs: 10_000, signal: stop.signal });
      stop.abort();
      await assert.rejects(probe);
    },
  );
});
