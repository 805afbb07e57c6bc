// Times decode as Go's JSON writes them: a Time to the second (objects of the same second share
// the text of the last one decoded), a MicroTime to the microsecond, an unset one left out, and the
// special types read beside them (Quantity, IntOrString) unchanged by the Time's path of
// its own.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeProtobuf, encodeProtobuf } from "./codec.js";

function roundTrip<T>(obj: T): T {
  const o = obj as { apiVersion: string; kind: string };
  const bytes = encodeProtobuf(obj as Record<string, unknown>);
  assert.ok(bytes, `${o.kind} encodes to protobuf`);
  return decodeProtobuf(bytes, o) as T;
}

test("a Time, a MicroTime and an unset time decode as Go writes them", () => {
  const lease = {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "l", namespace: "ns", creationTimestamp: "2026-11-29T07:00:00Z" },
    spec: {
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      acquireTime: "2026-11-29T07:00:01.000000Z",
      renewTime: "2026-11-29T07:00:02.123456Z",
    },
  };
  assert.deepEqual(roundTrip(lease), lease);
  // Two objects of the same second, then another second: each its own text.
  const at = (ts: string) => roundTrip({ ...lease, metadata: { ...lease.metadata, creationTimestamp: ts } });
  assert.equal(at("2026-11-29T07:00:00Z").metadata.creationTimestamp, "2026-11-29T07:00:00Z");
  assert.equal(at("2026-11-29T07:00:05Z").metadata.creationTimestamp, "2026-11-29T07:00:05Z");
  const { acquireTime: _, ...unset } = lease.spec;
  assert.deepEqual(roundTrip({ ...lease, spec: unset }).spec, unset);
});

test("Quantity and IntOrString decode beside times", () => {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "ns", creationTimestamp: "2026-11-29T07:00:00Z" },
    spec: {
      containers: [
        {
          name: "c",
          image: "i",
          resources: { limits: { cpu: "250m", memory: "64Mi" } },
          ports: [{ containerPort: 80, protocol: "TCP" }],
          readinessProbe: { httpGet: { path: "/", port: "http", scheme: "HTTP" } },
          livenessProbe: { tcpSocket: { port: 8080 } },
        },
      ],
    },
  };
  const c = roundTrip(pod).spec.containers[0]!;
  assert.deepEqual(c.resources, { limits: { cpu: "250m", memory: "64Mi" } });
  assert.deepEqual(c.readinessProbe.httpGet.port, "http");
  assert.deepEqual(c.livenessProbe.tcpSocket.port, 8080);
});
