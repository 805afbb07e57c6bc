import assert from "node:assert/strict";
import { test } from "node:test";
import { generate } from "../../../../scripts/gen-builtin-schemas.js";
import { goSourcesCached, STAGING_VERSION } from "../../../../scripts/go-source.js";
import { builtinCompactDefinitions } from "./builtin-schemas.generated.js";
import { builtinDefinitionName, builtinDefinitions, builtinSchema } from "./builtin-schemas.js";
import { findUnknownFields } from "./prune.js";
import type { Schema } from "./schema-types.js";
import { SchemaResolver } from "./schema-types.js";

/** Follows a path of property names / `[]` (array items) / `{}` (map values) through $refs. */
function at(root: Schema, ...path: string[]): Schema | undefined {
  const r = new SchemaResolver(root);
  let s: Schema | undefined = r.resolve(root);
  for (const p of path) {
    if (s === undefined) return undefined;
    if (p === "[]") s = r.items(s);
    else if (p === "{}")
      s = typeof s.additionalProperties === "object" ? r.resolve(s.additionalProperties) : undefined;
    else s = r.resolve(s.properties?.[p]);
  }
  return s;
}

test("Pod.spec.containers[].ports[].containerPort is a required integer", () => {
  const pod = builtinSchema("", "v1", "Pod")!;
  assert.equal(at(pod, "spec", "containers", "[]", "ports", "[]", "containerPort")?.type, "integer");
  assert.deepEqual(at(pod, "spec", "containers", "[]", "ports", "[]")?.required, ["containerPort"]);
  assert.deepEqual(pod["x-kubernetes-group-version-kind"], [{ group: "", version: "v1", kind: "Pod" }]);
});

test("ConfigMap.data is a map of strings; metadata is ObjectMeta", () => {
  const cm = builtinSchema("", "v1", "ConfigMap")!;
  assert.equal(at(cm, "data")?.type, "object");
  assert.equal(at(cm, "data", "{}")?.type, "string");
  assert.equal(at(cm, "metadata", "labels", "{}")?.type, "string");
  assert.equal(at(cm, "metadata", "creationTimestamp")?.format, "date-time");
});

test("leaf types: IntOrString, Quantity, RawExtension and JSONSchemaProps' floats", () => {
  const deploy = builtinSchema("apps", "v1", "Deployment")!;
  const surge = at(deploy, "spec", "strategy", "rollingUpdate", "maxSurge");
  assert.equal(surge?.["x-kubernetes-int-or-string"], true);
  const limits = at(deploy, "spec", "template", "spec", "containers", "[]", "resources", "limits", "{}");
  assert.deepEqual(limits?.oneOf, [{ type: "string" }, { type: "number" }]);
  const crd = builtinSchema("apiextensions.k8s.io", "v1", "CustomResourceDefinition")!;
  const props = at(crd, "spec", "versions", "[]", "schema", "openAPIV3Schema");
  assert.equal(at(crd, "spec", "versions", "[]", "schema", "openAPIV3Schema", "maximum")?.type, "number");
  assert.equal(at(crd, "spec", "versions", "[]", "schema", "openAPIV3Schema", "maxLength")?.type, "integer");
  assert.equal(props?.properties?.["x-kubernetes-preserve-unknown-fields"] !== undefined, true);
});

test("every served built-in kind has a schema, named as kube names it", () => {
  const kinds: [string, string, string, string][] = [
    ["", "v1", "Secret", "io.k8s.api.core.v1.Secret"],
    ["", "v1", "Event", "io.k8s.api.core.v1.Event"],
    ["events.k8s.io", "v1", "Event", "io.k8s.api.events.v1.Event"],
    ["batch", "v1", "CronJob", "io.k8s.api.batch.v1.CronJob"],
    ["coordination.k8s.io", "v1", "Lease", "io.k8s.api.coordination.v1.Lease"],
    ["rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "io.k8s.api.rbac.v1.ClusterRoleBinding"],
    [
      "admissionregistration.k8s.io",
      "v1",
      "ValidatingWebhookConfiguration",
      "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration",
    ],
    [
      "apiextensions.k8s.io",
      "v1",
      "CustomResourceDefinition",
      "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
    ],
    ["", "v1", "Status", "io.k8s.apimachinery.pkg.apis.meta.v1.Status"],
  ];
  for (const [group, version, kind, name] of kinds) {
    assert.equal(builtinDefinitionName(group, version, kind), name);
    assert.ok(builtinSchema(group, version, kind), name);
  }
  assert.equal(builtinSchema("example.com", "v1", "Widget"), undefined);
  const all = builtinDefinitions();
  for (const [name, def] of Object.entries(all)) {
    // Every $ref points at a definition that exists.
    const refs = JSON.stringify(def).match(/#\/definitions\/[^"]+/g) ?? [];
    for (const r of refs) assert.ok(all[r.slice("#/definitions/".length)], `${name} → ${r}`);
  }
});

test("unknown fields of built-in kinds are found through their schemas", () => {
  const def = { schema: builtinSchema("apps", "v1", "Deployment") as object };
  const obj = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", junk: 1 },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels: { a: "b" } },
        spec: { containers: [{ name: "c", image: "i", foo: 1 }] },
      },
      extra: true,
    },
  };
  assert.deepEqual(findUnknownFields(def, obj), [
    "metadata.junk",
    "spec.template.spec.containers[0].foo",
    "spec.extra",
  ]);
  const cm = { schema: builtinSchema("", "v1", "ConfigMap") as object };
  assert.deepEqual(
    findUnknownFields(cm, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "s1" }, junk: 1 }),
    ["junk"],
  );
});

const noSources =
  !goSourcesCached() &&
  `kube's Go types are not in the Go module cache (go mod download k8s.io/api@${STAGING_VERSION})`;

test("the generated module is current (npx tsx scripts/gen-builtin-schemas.ts)", { skip: noSources }, () => {
  assert.deepEqual(builtinCompactDefinitions(), generate());
});
