// Clients that go away are normal: a body cut off midway or a watch closed is nobody's bug, so
// it never reaches onError (meant for the server's own bugs), and any number of open watches
// is not a listener leak.
import assert from "node:assert/strict";
import { connect } from "node:tls";
import { test } from "node:test";
import { Agent } from "undici";
import { startAPIServer } from "controller-runtime-apiserver";
import { eventually } from "controller-runtime/envtest";
import { needs } from "../support/environment.js";

test(
  "cut-off bodies and closed watches are not reported as errors; many watches warn of nothing",
  needs("server-options"),
  async () => {
    const errors: unknown[] = [];
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    const server = await startAPIServer({ onError: (e) => errors.push(e) });
    const agent = new Agent({ connect: { ca: server.caPem } });
    const url = new URL(server.url);
    try {
      // A body announced as 1000 bytes, cut off after 10.
      for (let i = 0; i < 5; i++) {
        await new Promise<void>((resolve) => {
          const socket = connect({ host: url.hostname, port: Number(url.port), ca: server.caPem }, () => {
            socket.write(
              `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"apiVersi`,
            );
            setImmediate(() => {
              socket.destroy();
              resolve();
            });
          });
          socket.on("error", () => resolve());
        });
      }
      // Twenty watches, open at once, then dropped by the client.
      const aborts = Array.from({ length: 20 }, () => new AbortController());
      const responses = await Promise.all(
        aborts.map((a) =>
          fetch(`${server.url}/api/v1/configmaps?watch=1`, {
            headers: { authorization: `Bearer ${server.adminToken}` },
            signal: a.signal,
            dispatcher: agent,
          } as unknown as RequestInit),
        ),
      );
      assert.ok(responses.every((r) => r.status === 200));
      for (const a of aborts) a.abort();
      // The server still answers, and noticed nothing worth reporting.
      await eventually("the server answers", async () => {
        const r = await fetch(`${server.url}/readyz`, { dispatcher: agent } as unknown as RequestInit);
        return r.status === 200;
      });
      assert.deepEqual(errors, []);
      assert.deepEqual(
        warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message),
        [],
      );
    } finally {
      process.off("warning", onWarning);
      await agent.close();
      await server.stop();
    }
  },
);
