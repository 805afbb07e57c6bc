// Quantities sent as numbers are stored as kube's canonical strings.
import assert from "node:assert/strict";
import { test } from "node:test";
import { builtinResources } from "../registry/index.js";
import { canonicalizeQuantities, canonicalQuantity } from "./quantities.js";

test("numbers become canonical decimal quantities", () => {
  const cases: [number, string][] = [
    [1, "1"],
    [0, "0"],
    [0.5, "500m"],
    [1.5, "1500m"],
    [0.1, "100m"],
    [1000, "1k"],
    [1500, "1500"],
    [2_000_000, "2M"],
    [1e7, "10M"],
    [0.0005, "500u"],
    [-2, "-2"],
    [1e-10, "1n"],
  ];
  for (const [n, s] of cases) assert.equal(canonicalQuantity(n), s, String(n));
});

test("a Pod's resources and an emptyDir's sizeLimit are canonicalized; other numbers are not", () => {
  const pod = builtinResources().find((d) => d.kind === "Pod")!;
  const obj = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: {
      containers: [
        {
          name: "c",
          image: "nginx",
          ports: [{ containerPort: 80 }],
          resources: { limits: { cpu: 1, memory: "1Gi" }, requests: { cpu: 0.25 } },
        },
      ],
      volumes: [{ name: "v", emptyDir: { sizeLimit: 1000 } }],
    },
  };
  canonicalizeQuantities(pod, obj);
  const c = obj.spec.containers[0];
  assert.deepEqual(c.resources, { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "250m" } });
  assert.equal(c.ports[0].containerPort, 80);
  assert.equal(obj.spec.volumes[0].emptyDir.sizeLimit, "1k");
});
