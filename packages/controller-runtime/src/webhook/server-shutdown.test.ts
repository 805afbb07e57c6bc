// Shutdown with a connection that never sent a request: kube-apiserver's HTTP client leaves one
// in its pool when the webhook call it was dialed for is cancelled first (a client's request
// aborted at its own shutdown). Node counts such a connection as busy, not idle; the server must
// still stop at once, not at the end of its shutdown timeout.
import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { connect } from "node:tls";
import { makeCertDir } from "../../../../test/support/webhook-server.js";
import { newWebhookServer } from "./server.js";

test("shutdown closes a connection that has sent no request", async () => {
  const certs = await makeCertDir();
  // A shutdown timeout the test would notice: stopping must not wait for it.
  const server = newWebhookServer({
    host: "127.0.0.1",
    port: 0,
    certDir: certs.dir,
    shutdownTimeoutMs: 600_000,
  });
  server.register("/hook", (_req, res) => res.end("ok"));
  const ac = new AbortController();
  const done = server.start(ac.signal);
  const { port } = await server.listening();
  const socket = connect({ host: "127.0.0.1", port, ca: certs.ca.certPem });
  try {
    await once(socket, "secureConnect");
    const closed = once(socket, "close");
    ac.abort();
    const outcome = await Promise.race([
      done.then(() => "stopped"),
      new Promise((r) => setTimeout(r, 30_000, "still waiting after 30 s")).then((x) => x),
    ]);
    assert.equal(outcome, "stopped");
    await closed;
  } finally {
    socket.destroy();
    ac.abort();
    await done;
    await certs.cleanup();
  }
});
