// Custom resources written with defineCRD, covering its vocabulary: installed on the API server by
// src/crd/corpus.test.ts, and read back into TypeScript by src/codegen/types-from-crds.test.ts.
import type { ObjectOf } from "../../packages/controller-runtime/src/api/kind.js";
import { defineCRD, k, Type } from "controller-runtime/crd";

export const Memcached = defineCRD({
  group: "cache.corpus.example.com",
  kind: "Memcached",
  shortNames: ["mc"],
  categories: ["corpus"],
  versions: {
    v1alpha1: {
      spec: Type.Object({
        size: Type.Integer({ minimum: 1, maximum: 5, default: 1 }),
        containerPort: Type.Optional(k.intOrString({ default: 11211 })),
        labels: Type.Optional(k.map(Type.String({ maxLength: 63 }))),
        mode: Type.Optional(k.stringEnum(["fast", "safe"], { default: "safe" })),
      }),
      status: Type.Object({
        replicas: Type.Optional(Type.Integer()),
        conditions: Type.Optional(k.conditions()),
      }),
      printerColumns: [
        { name: "Size", type: "integer", jsonPath: ".spec.size" },
        { name: "Mode", type: "string", jsonPath: ".spec.mode", priority: 1 },
      ],
      scale: { specReplicasPath: ".spec.size", statusReplicasPath: ".status.replicas" },
    },
  },
});
export type Memcached = ObjectOf<typeof Memcached>;

export const Gadget = defineCRD({
  group: "gadgets.corpus.example.com",
  kind: "Gadget",
  versions: {
    v1: {
      spec: k.withRules(
        Type.Object({
          minReplicas: Type.Integer({ minimum: 0 }),
          maxReplicas: Type.Integer({ minimum: 0 }),
          memory: Type.Optional(k.quantity()),
          note: Type.Optional(k.nullable(Type.String())),
          since: Type.Optional(Type.String({ format: "date-time" })),
          id: Type.Optional(Type.String({ format: "uuid" })),
          template: Type.Optional(k.embeddedResource()),
          ports: Type.Optional(
            k.listMap(
              Type.Object({ name: Type.String(), port: Type.Integer({ minimum: 1, maximum: 65535 }) }),
              ["name"],
              {
                maxItems: 8,
              },
            ),
          ),
          tags: Type.Optional(k.listSet(Type.String())),
          args: Type.Optional(k.atomicList(Type.String())),
          extra: Type.Optional(k.anyJSON()),
          plugin: Type.Optional(k.preserveUnknownFields({ name: Type.String() })),
          immutable: Type.Optional(
            k.withRules(Type.String(), [{ rule: "self == oldSelf", message: "immutable is immutable" }]),
          ),
          ratio: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
        }),
        [
          {
            rule: "self.minReplicas <= self.maxReplicas",
            message: "minReplicas must not exceed maxReplicas",
          },
        ],
      ),
    },
  },
});
export type Gadget = ObjectOf<typeof Gadget>;

export const Policy = defineCRD({
  group: "policies.corpus.example.com",
  kind: "Policy",
  scope: "Cluster",
  storage: "v2",
  versions: {
    v1: { spec: Type.Object({ level: Type.Optional(Type.String()), weight: Type.Optional(Type.Integer()) }) },
    v2: {
      spec: Type.Object({ level: Type.Optional(Type.String()), weight: Type.Optional(Type.Integer()) }),
      validations: [
        { rule: "self.metadata.name.startsWith('p-')", message: "a policy's name starts with p-" },
      ],
    },
  },
});
