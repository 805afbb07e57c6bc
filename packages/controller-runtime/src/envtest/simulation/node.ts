// The simulation's one Node: what a kubelet registers when it joins, so that what needs a
// schedulable node (a DaemonSet's pods, a test that picks a node) finds one. Ready, untainted,
// with room for pods; the simulated kubelet runs every Pod whatever its node.
import type { Node } from "kubernetes-types/core/v1.js";
import type { Client } from "../../client/index.js";
import { isAlreadyExists } from "../../rest/index.js";
import type { DeepReadonly } from "../../api/index.js";

export const SIMULATED_NODE = "simulated-node";

/** Registers the Node (once: a Node left by an earlier simulation on the same server is kept). */
export async function registerNode(client: Client, signal: AbortSignal): Promise<void> {
  let node: DeepReadonly<Node>;
  try {
    node = await client.create<Node>(
      {
        apiVersion: "v1",
        kind: "Node",
        metadata: {
          name: SIMULATED_NODE,
          labels: {
            "kubernetes.io/hostname": SIMULATED_NODE,
            "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
          },
        },
      },
      { signal },
    );
  } catch (err) {
    if (isAlreadyExists(err)) return;
    throw err;
  }
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const resources = { cpu: "4", memory: "8Gi", pods: "110", "ephemeral-storage": "100Gi" };
  const ready = await client.status().update<Node>(
    {
      ...node,
      status: {
        capacity: resources,
        allocatable: resources,
        conditions: [
          {
            type: "Ready",
            status: "True",
            reason: "KubeletReady",
            message: "kubelet is posting ready status",
            lastHeartbeatTime: now,
            lastTransitionTime: now,
          },
        ],
        addresses: [
          { type: "InternalIP", address: "10.244.0.1" },
          { type: "Hostname", address: SIMULATED_NODE },
        ],
        nodeInfo: {
          architecture: "amd64",
          operatingSystem: "linux",
          bootID: "",
          containerRuntimeVersion: "simulated://1",
          kernelVersion: "",
          kubeProxyVersion: "",
          kubeletVersion: "",
          machineID: "",
          osImage: "simulated",
          systemUUID: "",
        },
      },
    },
    { signal },
  );
  // The API server taints a new Node not-ready (TaintNodesByCondition); kube-controller-manager's
  // node lifecycle controller lifts the taint once the kubelet reports Ready.
  const taints = ready.spec?.taints?.filter((t) => t.key !== "node.kubernetes.io/not-ready");
  if (taints?.length !== ready.spec?.taints?.length) {
    await client.update<Node>({ ...ready, spec: { ...ready.spec, taints } }, { signal });
  }
}
