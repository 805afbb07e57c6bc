// Built-in integers as kube-apiserver 1.37.2 decodes them: into Go fields of type int32 or int64,
// which refuse a number past their width with Go's decoding error (400 on a create; a JSON or
// merge patch's 422 quotes the patched object), naming the field's Go type. An IntOrString's
// number goes into its int32. A strategic patch is decoded by the unstructured converter instead,
// which truncates to the width: validation then sees -2147483648. The literals are kube's answers.
// (Bodies are sent as text: JSON.stringify would round the large numbers.)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("widths");
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const deployments = () => `/apis/apps/v1/namespaces/${ns}/deployments`;
const pods = () => `/api/v1/namespaces/${ns}/pods`;

const deployment = (name: string, spec: string) =>
  `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${name}"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}${spec}}}`;
const pod = (name: string, spec: string, container = "") =>
  `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"${name}"},"spec":{"containers":[{"name":"c","image":"i"${container}}]${spec}}}`;

const cannot = (kind: string, rest: string) =>
  `${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${rest}`;

test("an int32 field refuses a number past its width, in Go's words", async () => {
  for (const [n, text] of [
    ["2147483648", "number 2147483648"],
    ["-2147483649", "number -2147483649"],
    ["2.5", "number 2.5"],
  ]) {
    const r = await api.post(deployments(), deployment("d", `,"replicas":${n}`));
    assert.equal(r.status, 400, r.text);
    assert.equal(
      r.body.message,
      cannot("Deployment", `${text} into Go struct field DeploymentSpec.spec.replicas of type int32`),
    );
  }
  const pc = await api.post(
    "/apis/scheduling.k8s.io/v1/priorityclasses",
    '{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"widths-pc"},"value":-2147483649}',
  );
  assert.equal(pc.status, 400, pc.text);
  assert.equal(
    pc.body.message,
    cannot("PriorityClass", "number -2147483649 into Go struct field PriorityClass.value of type int32"),
  );
  // In a list of structs: the struct holding the field is named.
  const port = await api.post(pods(), pod("p", "", `,"ports":[{"containerPort":2147483648}]`));
  assert.equal(port.status, 400, port.text);
  assert.equal(
    port.body.message,
    cannot(
      "Pod",
      "number 2147483648 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32",
    ),
  );
});

test("an int64 field takes what int32 cannot and refuses what int64 cannot", async () => {
  for (const [field, n] of [
    ["activeDeadlineSeconds", "18446744073709551616"],
    ["terminationGracePeriodSeconds", "9223372036854779904"],
  ]) {
    const r = await api.post(pods(), pod("p", `,"${field}":${n}`));
    assert.equal(r.status, 400, r.text);
    assert.equal(
      r.body.message,
      cannot("Pod", `number ${n} into Go struct field PodSpec.spec.${field} of type int64`),
    );
  }
  const groups = await api.post(
    pods(),
    pod("p", `,"securityContext":{"supplementalGroups":[1,18446744073709551616]}`),
  );
  assert.equal(groups.status, 400, groups.text);
  assert.equal(
    groups.body.message,
    cannot(
      "Pod",
      "number 18446744073709551616 into Go struct field PodSecurityContext.spec.securityContext.supplementalGroups of type int64",
    ),
  );
  // A value of the wrong JSON type names the field's type too.
  const text = await api.post(pods(), pod("p", `,"terminationGracePeriodSeconds":"30"`));
  assert.equal(text.status, 400, text.text);
  assert.equal(
    text.body.message,
    cannot("Pod", "string into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64"),
  );
  // Past int32, within int64: decoded, and only validation's bounds apply.
  const wide = await api.post(pods(), pod("wide", `,"terminationGracePeriodSeconds":4294967296`));
  assert.equal(wide.status, 201, wide.text);
  assert.equal(wide.body.spec.terminationGracePeriodSeconds, 4294967296);
});

test("Go quotes the number as written; int64's edge is told by the digits sent", async () => {
  const exp = await api.post(deployments(), deployment("d", `,"replicas":1e10`));
  assert.equal(exp.status, 400, exp.text);
  assert.equal(
    exp.body.message,
    cannot("Deployment", "number 1e10 into Go struct field DeploymentSpec.spec.replicas of type int32"),
  );
  // Both read 2^63 in JavaScript: the first is int64's largest, the second is past it.
  const configMap = (name: string, generation: string) =>
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","generation":${generation}}}`;
  const configMaps = `/api/v1/namespaces/${ns}/configmaps`;
  const largest = await api.post(configMaps, configMap("largest", "9223372036854775807"));
  assert.equal(largest.status, 201, largest.text);
  const past = await api.post(configMaps, configMap("past", "9223372036854775808"));
  assert.equal(past.status, 400, past.text);
  assert.equal(
    past.body.message,
    cannot(
      "ConfigMap",
      "number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64",
    ),
  );
  const below = await api.post(configMaps, configMap("below", "-9223372036854775809"));
  assert.equal(below.status, 400, below.text);
  assert.equal(
    below.body.message,
    cannot(
      "ConfigMap",
      "number -9223372036854775809 into Go struct field ObjectMeta.metadata.generation of type int64",
    ),
  );
});

test("an IntOrString's number decodes into its int32", async () => {
  for (const [value, text] of [
    ["2147483648", "number 2147483648"],
    ["2.5", "number 2.5"],
    ["true", "bool"],
  ]) {
    const r = await api.post(
      `/api/v1/namespaces/${ns}/services`,
      `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[{"port":80,"targetPort":${value}}]}}`,
    );
    assert.equal(r.status, 400, r.text);
    assert.equal(
      r.body.message,
      cannot("Service", `${text} into Go struct field ServicePort.spec.ports.targetPort of type int32`),
    );
  }
});

test("patches: Go's decoder refuses a JSON or merge patch's result; a strategic one's is truncated", async () => {
  const created = await api.post(deployments(), deployment("patched", `,"replicas":1`));
  assert.equal(created.status, 201, created.text);
  const path = `${deployments()}/patched`;
  const tail =
    ": json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32";
  const merge = await api.patch(path, '{"spec":{"replicas":2147483648}}');
  assert.equal(merge.status, 422, merge.text);
  assert.ok(merge.body.message.startsWith(' "" is invalid: patch: Invalid value: "{'), merge.body.message);
  assert.ok(merge.body.message.endsWith(`}"${tail}`), merge.body.message);
  const json = await api.patch(
    path,
    '[{"op":"replace","path":"/spec/replicas","value":2147483648}]',
    "application/json-patch+json",
  );
  assert.equal(json.status, 422, json.text);
  assert.ok(json.body.message.endsWith(`}"${tail}`), json.body.message);
  const strategic = await api.patch(
    path,
    '{"spec":{"replicas":2147483648}}',
    "application/strategic-merge-patch+json",
  );
  assert.equal(strategic.status, 422, strategic.text);
  assert.equal(
    strategic.body.message,
    'Deployment.apps "patched" is invalid: spec.replicas: Invalid value: -2147483648: must be greater than or equal to 0',
  );
  // Server-side apply converts the merged object the same way.
  const applied = await api.call(
    "PATCH",
    `${path}?fieldManager=widths&force=true`,
    '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"patched"},"spec":{"replicas":2147483648}}',
    { contentType: "application/apply-patch+yaml" },
  );
  assert.equal(applied.status, 422, applied.text);
  assert.equal(applied.body.message, strategic.body.message);
  // 2^32 + 3 keeps its low 32 bits: 3 replicas.
  const wrapped = await api.patch(
    path,
    '{"spec":{"replicas":4294967299}}',
    "application/strategic-merge-patch+json",
  );
  assert.equal(wrapped.status, 200, wrapped.text);
  assert.equal(wrapped.body.spec.replicas, 3);
});
