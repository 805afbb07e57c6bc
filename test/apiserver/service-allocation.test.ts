// Services' ClusterIPs and NodePorts as kube-apiserver's allocators reserve them: from envtest's
// service CIDR (10.0.0.0/24) and the default node port range (30000-32767), each held by one
// Service until it is deleted; what is taken or out of range is refused with kube's 422.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startAPIServer, Storage } from "controller-runtime-apiserver";
import { kinds } from "controller-runtime/api";
import { eventually } from "controller-runtime/envtest";
import { newRESTClient, resourceOf, StatusError } from "controller-runtime/rest";
import { needs } from "../support/environment.js";
import { Api, type Reply, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("svc");
});
after(() => target.close());

const path = () => `/api/v1/namespaces/${ns}/services`;

function service(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name },
    spec: { ports: [{ port: 80 }], ...spec },
  };
}

function refused(r: Reply, name: string, field: string, message: string): void {
  assert.equal(r.status, 422, r.text);
  assert.equal(r.body.reason, "Invalid");
  assert.deepEqual(r.body.details, {
    name,
    kind: "Service",
    causes: [{ reason: "FieldValueInvalid", message, field }],
  });
  assert.equal(r.body.message, `Service "${name}" is invalid: ${field}: ${message}`);
}

/** A free node port for this run (other tests may hold some). */
async function freePort(): Promise<number> {
  const probe = await api.post(
    path(),
    service(`probe-${Math.random().toString(36).slice(2, 8)}`, { type: "NodePort" }),
  );
  assert.equal(probe.status, 201, probe.text);
  const port = probe.body.spec.ports[0].nodePort as number;
  assert.equal((await api.delete(`${path()}/${probe.body.metadata.name}`)).status, 200);
  return port;
}

describe("Service allocation", () => {
  test("a ClusterIP comes from the service CIDR, and targetPort 0 or absent is the port", async () => {
    const r = await api.post(path(), {
      ...service("plain", {}),
      spec: {
        ports: [
          { name: "a", port: 80 },
          { name: "b", port: 81, targetPort: 0 },
        ],
      },
    });
    assert.equal(r.status, 201, r.text);
    assert.match(r.body.spec.clusterIP, /^10\.0\.0\.(\d+)$/);
    assert.deepEqual(r.body.spec.clusterIPs, [r.body.spec.clusterIP]);
    assert.deepEqual(
      r.body.spec.ports.map((p: { targetPort: number }) => p.targetPort),
      [80, 81],
    );
  });

  test("a ClusterIP held by another Service, or outside the CIDR, is refused", async () => {
    // 10.0.0.1 is the kubernetes Service's, which kube-apiserver's bootstrap controller creates a
    // moment after the server is ready: on a fresh one this test can come first (CI, once).
    await eventually(
      "the kubernetes Service holding 10.0.0.1",
      async () => (await api.get("/api/v1/namespaces/default/services/kubernetes")).status === 200,
      { timeoutMs: 30_000 },
    );
    refused(
      await api.post(path(), service("taken", { clusterIP: "10.0.0.1" })),
      "taken",
      "spec.clusterIPs",
      'Invalid value: ["10.0.0.1"]: failed to allocate IP 10.0.0.1: provided IP is already allocated',
    );
    refused(
      await api.post(path(), service("far", { clusterIP: "10.0.1.5" })),
      "far",
      "spec.clusterIPs",
      'Invalid value: ["10.0.1.5"]: failed to allocate IP 10.0.1.5: the provided network does not match the current range',
    );
    refused(
      await api.post(path(), service("edge", { clusterIP: "10.0.0.255" })),
      "edge",
      "spec.clusterIPs",
      'Invalid value: ["10.0.0.255"]: failed to allocate IP 10.0.0.255: the provided network does not match the current range',
    );
  });

  test("a node port held by another Service, or outside the range, is refused", async () => {
    const port = await freePort();
    const first = await api.post(
      path(),
      service("np-a", { type: "NodePort", ports: [{ port: 80, nodePort: port }] }),
    );
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.spec.ports[0].nodePort, port);
    refused(
      await api.post(path(), service("np-b", { type: "NodePort", ports: [{ port: 80, nodePort: port }] })),
      "np-b",
      "spec.ports[0].nodePort",
      `Invalid value: ${port}: provided port is already allocated`,
    );
    refused(
      await api.post(path(), service("np-c", { type: "NodePort", ports: [{ port: 80, nodePort: 80 }] })),
      "np-c",
      "spec.ports[0].nodePort",
      "Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767",
    );
    // An update asking for a port another Service holds is refused as well.
    const other = await api.post(path(), service("np-d", { type: "NodePort" }));
    assert.equal(other.status, 201, other.text);
    const moved = await api.patch(
      `${path()}/np-d`,
      [{ op: "replace", path: "/spec/ports/0/nodePort", value: port }],
      "application/json-patch+json",
    );
    refused(
      moved,
      "np-d",
      "spec.ports[0].nodePort",
      `Invalid value: ${port}: provided port is already allocated`,
    );
  });

  test("a delete frees the address and the node port", async () => {
    const port = await freePort();
    const held = await api.post(
      path(),
      service("held", { type: "NodePort", ports: [{ port: 80, nodePort: port }] }),
    );
    assert.equal(held.status, 201, held.text);
    const ip = held.body.spec.clusterIP as string;
    assert.equal((await api.delete(`${path()}/held`)).status, 200);
    const again = await api.post(
      path(),
      service("again", { type: "NodePort", clusterIP: ip, ports: [{ port: 80, nodePort: port }] }),
    );
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.spec.clusterIP, ip);
    assert.equal(again.body.spec.ports[0].nodePort, port);
  });

  test("a dry run reserves nothing and checks only what kube's dry-run allocators check", async () => {
    const dry = await api.post(`${path()}?dryRun=All`, service("dry", { type: "NodePort" }));
    assert.equal(dry.status, 201, dry.text);
    assert.equal(dry.body.spec.clusterIP, "10.0.0.0");
    assert.equal(dry.body.spec.ports[0].nodePort, 32769);
    const low = await api.post(
      `${path()}?dryRun=All`,
      service("low", { type: "NodePort", ports: [{ port: 80, nodePort: 80 }] }),
    );
    assert.equal(low.status, 201, low.text);
    const far = await api.post(`${path()}?dryRun=All`, service("far", { clusterIP: "10.0.1.5" }));
    refused(
      far,
      "far",
      "spec.clusterIPs",
      'Invalid value: ["10.0.1.5"]: failed to allocate IP 10.0.1.5: the provided IP (10.0.1.5) is not in the valid range. The range of valid IPs is 10.0.0.0/24',
    );
  });
});

test(
  "after a restart on the same storage, what stored Services hold stays taken",
  needs("server-internals"),
  async () => {
    const storage = new Storage();
    const svc = resourceOf(kinds.Service);
    const body = {
      metadata: { name: "kept" },
      spec: { type: "NodePort", ports: [{ port: 80, nodePort: 30123 }] },
    };
    let ip = "";
    for (const round of [1, 2]) {
      const server = await startAPIServer({ storage });
      const rest = newRESTClient(server.restConfig());
      try {
        if (round === 1) {
          await rest.create(resourceOf(kinds.Namespace), { metadata: { name: "restarted" } });
          const made = (await rest.create(svc, body, { namespace: "restarted" })) as unknown;
          ip = (made as { spec: { clusterIP: string } }).spec.clusterIP;
        } else {
          const again = { metadata: { name: "again" }, spec: { ...body.spec, clusterIP: ip } };
          const err = await rest.create(svc, again, { namespace: "restarted" }).catch((e: unknown) => e);
          assert.ok(err instanceof StatusError, String(err));
          assert.equal(err.statusCode, 422);
          assert.match(err.message, /failed to allocate IP .*: provided IP is already allocated/);
          const port = await rest
            .create(svc, { metadata: { name: "port" }, spec: body.spec }, { namespace: "restarted" })
            .catch((e: unknown) => e);
          assert.ok(
            port instanceof StatusError && /provided port is already allocated/.test(port.message),
            String(port),
          );
        }
      } finally {
        await rest.close();
        await server.stop();
      }
    }
  },
);
