// Requests aimed at the invariants kube keeps under any request (issue #40): bodies nested at
// kube's limits (10 000 levels of JSON; YAML's block and flow levels) into built-in kinds and a
// custom resource that keeps them; patches whose result does not fit the kind (annotations of
// objects, fields of the wrong type, strategic directives of the wrong type, patches that are
// not maps); Services and IPAddresses that collide on addresses and node ports; immutable
// ConfigMaps changed; deletecollection with preconditions. Each generator draws from a seeded
// Random only; names come from small pools so that requests meet what others made.
import type { Random } from "./random.js";

/** The custom resource that keeps any field (its schema preserves unknown fields). */
export const BLOBS = "blobs";

/** Depths at and around kube's limits, in levels of the whole document. */
const DEPTHS = [999, 1_000, 1_001, 9_999, 10_000, 10_001, 10_002];

const nest = (d: number) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`;
const flow = (d: number) => `${"[".repeat(d)}1${"]".repeat(d)}`;
const block = (d: number) => `${"- ".repeat(d)}1`;

interface Shaped {
  method: string;
  path: string;
  body: string;
  contentType: string;
  what: string;
}

const M = "application/merge-patch+json";
const J = "application/json-patch+json";
const S = "application/strategic-merge-patch+json";
const A = "application/apply-patch+yaml";
const Y = "application/yaml";

function deepRequest(r: Random, group: string): Shaped {
  const d = r.pick(DEPTHS);
  const custom = r.chance(0.5);
  const base = custom ? `/apis/${group}/v1/namespaces/fuzz/${BLOBS}` : "/api/v1/namespaces/fuzz/configmaps";
  const apiVersion = custom ? `${group}/v1` : "v1";
  const kind = custom ? "Blob" : "ConfigMap";
  const name = r.pick(["deep-1", "deep-2", "deep-3"]);
  const json = `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"${name}"},"x":${nest(d - 1)}}`;
  const yaml = (x: string) =>
    `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\nx:${x}\n`;
  const shape = r.pick([
    "create",
    "create-yaml",
    "update",
    "merge",
    "json",
    "strategic",
    "apply",
    "apply-yaml",
  ]);
  const what = `deep ${shape} ${kind} ${d}`;
  switch (shape) {
    case "create":
      return { method: "POST", path: base, body: json, contentType: "application/json", what };
    case "create-yaml":
      return {
        method: "POST",
        path: base,
        body: yaml(r.chance(0.5) ? ` ${flow(d - 1)}` : `\n${block(d - 1)}`),
        contentType: Y,
        what,
      };
    case "update":
      return { method: "PUT", path: `${base}/${name}`, body: json, contentType: "application/json", what };
    case "merge":
      return { method: "PATCH", path: `${base}/${name}`, body: `{"x":${nest(d - 1)}}`, contentType: M, what };
    case "json":
      return {
        method: "PATCH",
        path: `${base}/${name}`,
        body: `[{"op":"add","path":"/x","value":${nest(d - 2)}}]`,
        contentType: J,
        what,
      };
    case "strategic":
      return { method: "PATCH", path: `${base}/${name}`, body: `{"x":${nest(d - 1)}}`, contentType: S, what };
    case "apply":
      return { method: "PATCH", path: `${base}/${name}?fieldManager=fuzz`, body: json, contentType: A, what };
    default:
      return {
        method: "PATCH",
        path: `${base}/${name}?fieldManager=fuzz`,
        body: yaml(r.chance(0.5) ? ` ${flow(d - 1)}` : `\n${block(d - 1)}`),
        contentType: A,
        what,
      };
  }
}

function badPatch(r: Random): Shaped {
  const target = r.pick([
    "/api/v1/namespaces/fuzz/configmaps/fuzz-1",
    "/api/v1/namespaces/fuzz/configmaps/immutable",
    "/api/v1/namespaces/fuzz/pods/fuzz-1",
    "/api/v1/namespaces/fuzz/services/svc-1",
  ]);
  const validation = r.pick([
    "",
    "?fieldValidation=Strict",
    "?fieldValidation=Ignore",
    "?fieldValidation=Warn",
  ]);
  const [contentType, body] = r.pick<[string, string]>([
    [M, '{"metadata":{"annotations":{"a":{"b":"c"}}}}'],
    [J, '[{"op":"add","path":"/metadata/annotations","value":{"a":{"b":"c"}}}]'],
    [S, '{"metadata":{"annotations":{"a":{"b":"c"}}}}'],
    [S, '{"metadata":{"labels":5}}'],
    [S, '{"data":["x"]}'],
    [S, '{"spec":"x"}'],
    [S, '{"spec":{"containers":[{"name":"c","image":5,"ports":[{"containerPort":"80"}]}]}}'],
    [S, '{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":{"a":1}}}}]}}'],
    [S, '{"spec":{"$setElementOrder/containers":"x"}}'],
    [S, '{"metadata":{"$deleteFromPrimitiveList/finalizers":"x"}}'],
    [S, '{"data":{"a":"1"},"data":{"b":"2"}}'],
    [S, "null"],
    [M, "null"],
    [M, "[1]"],
    [M, '"x"'],
    [M, '{"data":{"a":"1","a":"2"}}'],
    [J, '{"op":"add"}'],
    [J, '[{"op":5,"path":"/a"}]'],
    [J, '[{"op":"add","path":"/data/y","value":"2","extra":1}]'],
    [J, "null"],
    [M, '{"immutable":false,"data":{"changed":"1"}}'],
    [M, '{"spec":{"ports":[{"port":80,"nodePort":30555}],"type":"NodePort"}}'],
    [M, '{"spec":{"clusterIP":"10.0.0.56","clusterIPs":["10.0.0.56"]}}'],
    [A, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fuzz-1"},"data":5}'],
    [A, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fuzz-1","annotations":{"a":{"b":1}}}}'],
    [A, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fuzz-1\ndata:\n  a: "1"\n  a: "2"\n'],
    [M, "{"],
  ]);
  const manager = contentType === A ? `${validation ? "&" : "?"}fieldManager=fuzz` : "";
  return {
    method: "PATCH",
    path: `${target}${validation}${manager}`,
    body,
    contentType,
    what: `bad patch ${contentType}`,
  };
}

function collision(r: Random): Shaped {
  const ip = r.pick([
    "10.0.0.55",
    "10.0.0.56",
    "10.0.0.57",
    "10.0.0.1",
    "10.0.1.5",
    "10.0.0.0",
    "10.0.0.255",
    "x",
  ]);
  const port = r.pick([30555, 30556, 30557, 80, 32768, 0]);
  const name = r.pick(["svc-1", "svc-2", "svc-3", "svc-4"]);
  const dry = r.chance(0.2) ? "?dryRun=All" : "";
  switch (r.int(5)) {
    case 0:
    case 1:
      return {
        method: "POST",
        path: `/api/v1/namespaces/fuzz/services${dry}`,
        contentType: "application/json",
        body: JSON.stringify({
          apiVersion: "v1",
          kind: "Service",
          metadata: { name },
          spec: {
            type: r.pick(["ClusterIP", "NodePort", "ExternalName"]),
            externalName: "x.example.com",
            ...(r.chance(0.7) ? { clusterIP: ip } : {}),
            ports: [{ port: 80, ...(port && r.chance(0.7) ? { nodePort: port } : {}) }],
          },
        }),
        what: "Service taking an address or node port",
      };
    case 2:
      return {
        method: "POST",
        path: "/apis/networking.k8s.io/v1/ipaddresses",
        contentType: "application/json",
        body: JSON.stringify({
          apiVersion: "networking.k8s.io/v1",
          kind: "IPAddress",
          metadata: {
            name: ip,
            ...(r.chance(0.5)
              ? { labels: { "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io" } }
              : {}),
          },
          spec: { parentRef: { resource: "services", namespace: "fuzz", name } },
        }),
        what: "IPAddress for an address",
      };
    case 3:
      return {
        method: "DELETE",
        path: r.chance(0.5)
          ? `/api/v1/namespaces/fuzz/services/${name}`
          : `/apis/networking.k8s.io/v1/ipaddresses/${ip}`,
        contentType: "application/json",
        body: "",
        what: "release an address",
      };
    default:
      return {
        method: r.pick(["DELETE", "POST"]),
        path: "/apis/networking.k8s.io/v1/servicecidrs" + (r.chance(0.5) ? "/kubernetes" : ""),
        contentType: "application/json",
        body: JSON.stringify({
          apiVersion: "networking.k8s.io/v1",
          kind: "ServiceCIDR",
          metadata: { name: "extra" },
          spec: { cidrs: [r.pick(["10.1.0.0/24", "10.0.0.0/24", "fd00::/120", "x"])] },
        }),
        what: "ServiceCIDR",
      };
  }
}

function storedState(r: Random): Shaped {
  if (r.chance(0.5)) {
    // An immutable ConfigMap made, then changed.
    const change = r.pick([
      '{"data":{"a":"2"}}',
      '{"immutable":false}',
      '{"binaryData":{"b":"Yg=="}}',
      '{"metadata":{"labels":{"a":"b"}}}',
    ]);
    return r.chance(0.3)
      ? {
          method: "POST",
          path: "/api/v1/namespaces/fuzz/configmaps",
          contentType: "application/json",
          body: JSON.stringify({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "immutable" },
            immutable: true,
            data: { a: "1" },
          }),
          what: "immutable ConfigMap",
        }
      : {
          method: "PATCH",
          path: "/api/v1/namespaces/fuzz/configmaps/immutable",
          contentType: M,
          body: change,
          what: "immutable ConfigMap changed",
        };
  }
  const query = r.pick([
    "?resourceVersion=0",
    "?uid=00000000-0000-0000-0000-000000000000",
    "?resourceVersionMatch=Exact",
    "?labelSelector=a%20in%20(",
    "?dryRun=All",
  ]);
  return {
    method: "DELETE",
    path: `/api/v1/namespaces/fuzz/${r.pick(["configmaps", "secrets", "services"])}${query}`,
    contentType: "application/json",
    body: r.chance(0.3)
      ? JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", preconditions: { resourceVersion: "1" } })
      : "",
    what: "deletecollection with preconditions",
  };
}

/** One request of the shapes above, for the API server; `group` is the fuzzer's CRD group. */
export function invariantRequest(
  r: Random,
  headers: Record<string, string>,
  group: string,
): { method: string; path: string; headers: Record<string, string>; body?: string; what: string } {
  const s = r.pick([deepRequest, deepRequest, badPatch, collision, storedState])(r, group);
  if (s.body !== "") headers["content-type"] = s.contentType;
  return { method: s.method, path: s.path, headers, body: s.body === "" ? undefined : s.body, what: s.what };
}
