// A Pod's QoS class and the LimitRanger's sums hold against hostile quantities: exponents to
// ±2^31 would make 10^exponent a number of hundreds of megabytes (a minute of CPU) if built out.
import assert from "node:assert/strict";
import { test } from "node:test";
import { podQOS } from "./pod-qos.js";

const spec = (...resources: object[]) => ({
  containers: resources.map((r, i) => ({ name: `c${i}`, image: "x", resources: r })),
});

test("QoS class of Pods with far-apart exponents, at once", () => {
  const t0 = performance.now();
  const huge = { cpu: "1e200000000", memory: "1" };
  assert.equal(podQOS(spec({ requests: huge, limits: huge })), "Guaranteed");
  assert.equal(podQOS(spec({ requests: { cpu: "1", memory: "1" }, limits: huge })), "Burstable");
  assert.equal(
    podQOS(
      spec(
        { requests: huge, limits: huge },
        { requests: { cpu: "1e-200000000", memory: "1" }, limits: huge },
      ),
    ),
    "Burstable",
  );
  assert.ok(performance.now() - t0 < 2000, `${performance.now() - t0} ms`);
});
