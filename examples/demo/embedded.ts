// What `npm start` sets up when no cluster is given: the embedded API server, the examples' CRDs
// and sample objects, a fake S3 for the StorageBuckets to probe, and the simulator that plays
// kube-controller-manager and the kubelet so that the viewer Deployments become available.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { type RunningAPIServer, startAPIServer } from "controller-runtime-apiserver";
import type { KubeObject } from "controller-runtime/api";
import { type Client, newClient } from "controller-runtime/client";
import { installCRDs, readCRDs } from "controller-runtime/envtest";
import { newLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import { ignoreAlreadyExists, type RESTConfig } from "controller-runtime/rest";
import type { MarkdownView } from "../markdownview/api.js";
import { setupWorkloadSimulation } from "controller-runtime/envtest";
import { type StorageBucket, StorageBucket as StorageBucketKind } from "../storagebucket/api.js";
import { FakeS3 } from "../storagebucket/fake-s3.js";

const path = (p: string) => fileURLToPath(new URL(p, import.meta.url));
export const crdDirectories = [path("../storagebucket/config/crd"), path("../markdownview/config/crd")];

export interface EmbeddedCluster {
  server: RunningAPIServer;
  s3: FakeS3;
  /** Runs the simulator until `signal` aborts. */
  simulate(signal: AbortSignal): Promise<void>;
  stop(): Promise<void>;
}

export async function startEmbeddedCluster(opts: {
  port: number;
  kubeconfigPath: string;
}): Promise<EmbeddedCluster> {
  const server = await startAPIServer({
    port: opts.port,
    kubeconfigPath: opts.kubeconfigPath,
    garbageCollection: true,
  });
  const s3 = new FakeS3();
  await s3.start();
  s3.buckets.set("photos", "ok");
  s3.buckets.set("private", "denied");
  const config = server.restConfig();
  await installExampleCRDs(config);
  await createSamples(newClient(config), s3.endpoint);

  // The simulator speaks up only when something goes wrong: the examples' logs are the show.
  const sim = await Manager.create(config, {
    logger: newLogger({ format: "console", level: "error" }).withName("simulator"),
    metrics: { bindAddress: "0" },
  });
  setupWorkloadSimulation(sim, { podStartupMs: 3000 });
  return {
    server,
    s3,
    simulate: (signal) => sim.start(signal),
    async stop() {
      await s3.stop();
      await server.stop();
    },
  };
}

export async function installExampleCRDs(config: RESTConfig): Promise<void> {
  await installCRDs(config, readCRDs(crdDirectories, true));
}

/** The MarkdownView sample of config/samples, and three buckets: one there, one denied, one missing. */
async function createSamples(client: Client, endpoint: string): Promise<void> {
  const view = parse(
    readFileSync(path("../markdownview/config/samples/markdownview.yaml"), "utf8"),
  ) as MarkdownView;
  const bucket = (name: string): StorageBucket => ({
    apiVersion: StorageBucketKind.apiVersion,
    kind: StorageBucketKind.kind,
    metadata: { name, namespace: "default" },
    spec: { endpoint, bucketName: name },
  });
  try {
    const samples: KubeObject[] = [
      { ...view, metadata: { ...view.metadata, namespace: "default" } },
      bucket("photos"),
      bucket("private"),
      bucket("archive"),
    ];
    for (const obj of samples) {
      await client.create(obj).catch((err) => {
        if (ignoreAlreadyExists(err)) throw err;
      });
    }
  } finally {
    await client.close();
  }
}
