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
    server.close();
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
