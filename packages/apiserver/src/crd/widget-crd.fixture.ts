// A CRD like the one recorded from a real kube-apiserver, shared by the tests of this folder
// and of schema/ (not exported from index.ts).
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";

export function widgetCRD(): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      names: { kind: "Widget", plural: "widgets", singular: "widget", shortNames: ["wd"] },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  required: ["color"],
                  properties: {
                    size: { type: "integer", minimum: 1, default: 3 },
                    color: { type: "string", enum: ["red", "blue"] },
                    tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
                  } as Record<string, object>,
                },
                status: { type: "object", properties: { ready: { type: "boolean" } } },
              },
            },
          },
        },
      ],
    },
  };
}
