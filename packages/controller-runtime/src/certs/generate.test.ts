import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import { createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { newCertificateAuthority } from "./generate.js";

test("a serving certificate signed by the CA is trusted over TLS on 127.0.0.1 and localhost", async () => {
  const ca = await newCertificateAuthority("test-ca");
  const serving = await ca.issueServing();
  const client = await ca.issueClient({ user: "admin", groups: ["system:masters", "devs"] });
  const server = createServer(
    {
      cert: serving.certPem,
      key: serving.keyPem,
      ca: ca.certPem,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const peer = (req.socket as import("node:tls").TLSSocket).getPeerCertificate();
      res.end(JSON.stringify(peer.subject));
    },
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  try {
    for (const host of ["127.0.0.1", "localhost"]) {
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(
          {
            host,
            port,
            ca: ca.certPem,
            cert: client.certPem,
            key: client.keyPem,
            servername: host === "localhost" ? host : undefined,
            // A connection of its own, closed after the answer: no pooled keep-alive socket
            // may keep the server (and the test process) alive.
            agent: false,
          },
          (res) => {
            let data = "";
            res.on("data", (c) => {
              data += c;
            });
            res.on("end", () => resolve(data));
          },
        );
        req.on("error", reject);
        req.end();
      });
      const subject = JSON.parse(body);
      assert.equal(subject.CN, "admin");
      assert.deepEqual(subject.O, ["system:masters", "devs"]);
    }
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("every certificate parses, whatever its length (PEM lines of 64, none empty)", async () => {
  for (let i = 0; i < 100; i++) {
    const ca = await newCertificateAuthority(`ca-${"x".repeat(i)}`);
    assert.doesNotThrow(() => new X509Certificate(ca.certPem), `a CA named with ${i} more characters`);
    assert.doesNotMatch(ca.certPem, /\n\n/);
  }
});

test("the CA certificate is a CA and the client certificate is not", async () => {
  const ca = await newCertificateAuthority();
  const caCert = new X509Certificate(ca.certPem);
  assert.equal(caCert.ca, true);
  const client = await ca.issueClient({ user: "u" });
  const clientCert = new X509Certificate(client.certPem);
  assert.equal(clientCert.ca, false);
  assert.ok(clientCert.checkIssued(caCert));
  assert.ok(clientCert.verify(caCert.publicKey));
});

test("a serving certificate names its DNS names and IPv4 and IPv6 addresses; subjects keep their characters", async () => {
  const ca = await newCertificateAuthority();
  const serving = await ca.issueServing({
    dnsNames: ["localhost", "webhook.ns.svc"],
    ipAddresses: ["127.0.0.1", "::1"],
  });
  const cert = new X509Certificate(serving.certPem);
  assert.equal(
    cert.subjectAltName,
    "DNS:localhost, DNS:webhook.ns.svc, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1",
  );
  assert.ok(cert.checkHost("webhook.ns.svc"));
  assert.ok(cert.checkIP("::1"));
  assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.1"], "serverAuth");
  const client = new X509Certificate(
    (await ca.issueClient({ user: 'jane, "x"', groups: ["dev+ops"] })).certPem,
  );
  assert.equal(client.subject, 'O=dev\\+ops\nCN=jane\\, \\"x\\"', "as Node prints it, escaped");
  assert.deepEqual(client.keyUsage, ["1.3.6.1.5.5.7.3.2"]);
});
