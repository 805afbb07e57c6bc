// What a MarkdownView wants to exist: the ConfigMap's data, and the viewer's Deployment and
// Service as server-side apply configurations (only the fields this controller owns).
import type { OwnerReference } from "kubernetes-types/meta/v1.js";
import { kinds } from "controller-runtime/api";
import { applyConfiguration } from "controller-runtime/client";
import type { MarkdownView } from "./api.js";
import type { DeepReadonly } from "controller-runtime/api";

export const defaultViewerImage = "peaceiris/mdbook:latest";

export const configMapName = (mdView: DeepReadonly<MarkdownView>) => `markdowns-${mdView.metadata?.name}`;
export const viewerName = (mdView: DeepReadonly<MarkdownView>) => `viewer-${mdView.metadata?.name}`;

function labels(mdView: DeepReadonly<MarkdownView>): Record<string, string> {
  return {
    "app.kubernetes.io/name": "mdbook",
    "app.kubernetes.io/instance": mdView.metadata?.name ?? "",
    "app.kubernetes.io/created-by": "markdown-view-controller",
  };
}

/** The controller reference: the garbage collector deletes the object with its MarkdownView. */
function controllerRef(mdView: DeepReadonly<MarkdownView>): OwnerReference {
  return {
    apiVersion: mdView.apiVersion ?? "",
    kind: mdView.kind ?? "",
    name: mdView.metadata?.name ?? "",
    uid: mdView.metadata?.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** mdbook serves the files of its `src` directory: the ConfigMap mounted there. */
export function viewerDeployment(mdView: DeepReadonly<MarkdownView>) {
  const l = labels(mdView);
  const httpGet = { port: "http", path: "/", scheme: "HTTP" };
  return applyConfiguration(kinds.Deployment, {
    metadata: {
      name: viewerName(mdView),
      namespace: mdView.metadata?.namespace,
      labels: l,
      ownerReferences: [controllerRef(mdView)],
    },
    spec: {
      replicas: mdView.spec?.replicas ?? 1,
      selector: { matchLabels: l },
      template: {
        metadata: { labels: l },
        spec: {
          containers: [
            {
              name: "mdbook",
              image: mdView.spec?.viewerImage || defaultViewerImage,
              imagePullPolicy: "IfNotPresent",
              command: ["mdbook"],
              args: ["serve", "--hostname", "0.0.0.0"],
              volumeMounts: [{ name: "markdowns", mountPath: "/book/src" }],
              ports: [{ name: "http", protocol: "TCP", containerPort: 3000 }],
              livenessProbe: { httpGet },
              readinessProbe: { httpGet },
            },
          ],
          volumes: [{ name: "markdowns", configMap: { name: configMapName(mdView) } }],
        },
      },
    },
  });
}

export function viewerService(mdView: DeepReadonly<MarkdownView>) {
  const l = labels(mdView);
  return applyConfiguration(kinds.Service, {
    metadata: {
      name: viewerName(mdView),
      namespace: mdView.metadata?.namespace,
      labels: l,
      ownerReferences: [controllerRef(mdView)],
    },
    spec: {
      selector: l,
      type: "ClusterIP",
      ports: [{ name: "http", protocol: "TCP", port: 80, targetPort: 3000 }],
    },
  });
}
