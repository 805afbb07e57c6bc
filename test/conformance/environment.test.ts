// One contract for envtest's modes, run against each one this machine offers in the same run:
// the embedded server always, real etcd + kube-apiserver when KUBEBUILDER_ASSETS names them.
// (The existing-cluster mode is the same contract through USE_EXISTING_CLUSTER, not run here:
// its stop() leaves the cluster up by design.)
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { kinds } from "controller-runtime/api";
import { Environment, type EnvironmentOptions } from "controller-runtime/envtest";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { isNotFound, newRESTClient, type RESTClient, resourceOf } from "controller-runtime/rest";
import { customResourceDefinition } from "../apiserver/harness.js";

const assets = process.env.KUBEBUILDER_ASSETS;
const modes: { name: string; options: Omit<EnvironmentOptions, "crds">; skip: string | false }[] = [
  { name: "embedded", options: { env: {} }, skip: false },
  {
    name: "binaries",
    options: { env: { KUBEBUILDER_ASSETS: assets } },
    skip:
      assets && existsSync(join(assets, "kube-apiserver"))
        ? false
        : "KUBEBUILDER_ASSETS does not name etcd and kube-apiserver here",
  },
];

for (const mode of modes) {
  describe(`envtest mode: ${mode.name}`, { skip: mode.skip }, () => {
    test("start() serves the CRDs it was given; the config is an admin's; stop() ends the server", async () => {
      const crd = customResourceDefinition("conformance.example.com", { kind: "Probe", plural: "probes" });
      const env = new Environment({ ...mode.options, crds: [crd as CustomResourceDefinition] });
      let stopped = false;
      let rest: RESTClient | undefined;
      try {
        const config = await env.start();
        assert.equal(env.started.mode, mode.name);
        rest = newRESTClient(config);
        const name = `envtest-conformance-${Date.now()}`;
        await rest.create(resourceOf(kinds.Namespace), { metadata: { name } });
        await rest.list(resourceOf(kinds.Secret), { namespace: name }); // an admin reads Secrets
        const probes = {
          group: "conformance.example.com",
          version: "v1",
          resource: "probes",
          namespaced: true,
        };
        const list = await rest.list(probes, { namespace: name });
        assert.deepEqual(list.items, [], "the CRD is served when start() resolves");
        await assert.rejects(
          rest.get(resourceOf(kinds.ConfigMap), "missing", { namespace: name }),
          isNotFound,
        );
        await env.stop();
        stopped = true;
        await assert.rejects(
          rest.list(resourceOf(kinds.Namespace), { signal: AbortSignal.timeout(5000) }),
          "after stop() nothing answers",
        );
      } finally {
        await rest?.close();
        if (!stopped) await env.stop();
      }
    });
  });
}
