// HTTP/2, as kube-apiserver offers it by ALPN beside HTTP/1.1: kubectl and client-go take it and
// multiplex requests and watches over one connection.
import assert from "node:assert/strict";
import { type ClientHttp2Session, connect } from "node:http2";
import { after, before, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let session: ClientHttp2Session;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("h2");
  // The admin's token where the target has one (an existing cluster), else a user envtest signs.
  if (target.token) session = connect(target.url, { ca: target.caPem });
  else {
    assert.ok(target.env, "needs a target started through envtest");
    const user = await target.env.addUser({ name: "h2-admin", groups: ["system:masters"] });
    session = connect(target.url, { ca: target.caPem, cert: user.tls.cert, key: user.tls.key });
  }
  await new Promise<void>((resolve, reject) => {
    session.once("connect", () => resolve());
    session.once("error", reject);
  });
});
after(async () => {
  session?.close();
  await target.close();
});

const auth = (): Record<string, string> => (target.token ? { authorization: `Bearer ${target.token}` } : {});

/** One request on the session: status, headers and body. */
function request(path: string, method = "GET", body?: unknown) {
  return new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    const stream = session.request({
      ":path": path,
      ":method": method,
      ...auth(),
      ...(body ? { "content-type": "application/json" } : {}),
    });
    let status = 0;
    let type = "";
    const chunks: Buffer[] = [];
    stream.on("response", (h) => {
      status = Number(h[":status"]);
      type = String(h["content-type"] ?? "");
    });
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => resolve({ status, type, body: Buffer.concat(chunks).toString("utf8") }));
    stream.on("error", reject);
    stream.end(body ? JSON.stringify(body) : undefined);
  });
}

test("the server offers HTTP/2 by ALPN and answers over it", async () => {
  assert.equal(session.alpnProtocol, "h2");
  const r = await request(`/api/v1/namespaces/${ns}`);
  assert.equal(r.status, 200, r.body);
  assert.equal(r.type, "application/json");
  assert.equal(JSON.parse(r.body).metadata.name, ns);
  const missing = await request(`/api/v1/namespaces/${ns}/configmaps/nope`);
  assert.equal(missing.status, 404);
  assert.equal(JSON.parse(missing.body).reason, "NotFound");
});

test("two watches and writes share one HTTP/2 connection", async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const rv = JSON.parse((await request(path)).body).metadata.resourceVersion;
  const watch = (selector: string) => {
    const stream = session.request({
      ":path": `${path}?watch=1&resourceVersion=${rv}&labelSelector=${selector}`,
      ...auth(),
    });
    const events = new Promise<{ type: string; name: string }>((resolve, reject) => {
      let buf = "";
      stream.on("data", (c: Buffer) => {
        buf += c.toString("utf8");
        const nl = buf.indexOf("\n");
        if (nl < 0) return;
        const ev = JSON.parse(buf.slice(0, nl));
        resolve({ type: ev.type, name: ev.object.metadata.name });
        stream.close();
      });
      stream.on("error", reject);
    });
    return events;
  };
  const first = watch("w%3D1");
  const second = watch("w%3D2");
  for (const [name, w] of [
    ["one", "1"],
    ["two", "2"],
  ]) {
    const r = await request(path, "POST", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, labels: { w } },
    });
    assert.equal(r.status, 201, r.body);
  }
  assert.deepEqual(await first, { type: "ADDED", name: "one" });
  assert.deepEqual(await second, { type: "ADDED", name: "two" });
});
