// What an attacker with a valid login would send: crafted paths, queries, headers and bodies
// for the API server; crafted requests for the webhook, metrics and health servers; crafted
// watch streams for the client's decoder. Each generator draws from a seeded Random only.
import { stringify } from "yaml";
import { BLOBS, invariantRequest } from "./invariants.js";
import { largeEnumRequest } from "./large-enum.js";
import type { Random } from "./random.js";

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** What kind of request it is, for the report. */
  what: string;
}

/** The namespace the fuzzer's canaries live in: never named by a generator. */
export const CANARY_NAMESPACE = "canary";
export const FUZZ_GROUP = "fuzz.example.com";

const NAMESPACES = [
  "fuzz",
  "default",
  "kube-system",
  "..",
  ".",
  "%2e%2e",
  "%2E",
  "",
  "a%2fb",
  "%zz",
  "fuzz/..",
  "x".repeat(300),
];
const NAMES = [
  "a",
  "fuzz-1",
  "fuzz-2",
  "..",
  ".",
  "%2e%2e",
  "%2f",
  "a%25b",
  "A",
  "-x",
  "x".repeat(300),
  "é",
  "%00",
  "a b",
  "a%20b",
  "💥",
  "%",
  "",
];

interface Resource {
  prefix: string;
  resource: string;
  kind: string;
  apiVersion: string;
  namespaced: boolean;
  subresources: string[];
}

const RESOURCES: Resource[] = [
  {
    prefix: "/api/v1",
    resource: "configmaps",
    kind: "ConfigMap",
    apiVersion: "v1",
    namespaced: true,
    subresources: [],
  },
  {
    prefix: "/api/v1",
    resource: "secrets",
    kind: "Secret",
    apiVersion: "v1",
    namespaced: true,
    subresources: [],
  },
  {
    prefix: "/api/v1",
    resource: "pods",
    kind: "Pod",
    apiVersion: "v1",
    namespaced: true,
    subresources: ["status", "eviction"],
  },
  {
    prefix: "/api/v1",
    resource: "services",
    kind: "Service",
    apiVersion: "v1",
    namespaced: true,
    subresources: ["status"],
  },
  {
    prefix: "/api/v1",
    resource: "namespaces",
    kind: "Namespace",
    apiVersion: "v1",
    namespaced: false,
    subresources: ["status", "finalize"],
  },
  {
    prefix: "/api/v1",
    resource: "events",
    kind: "Event",
    apiVersion: "v1",
    namespaced: true,
    subresources: [],
  },
  {
    prefix: "/apis/apps/v1",
    resource: "deployments",
    kind: "Deployment",
    apiVersion: "apps/v1",
    namespaced: true,
    subresources: ["status", "scale"],
  },
  {
    prefix: "/apis/batch/v1",
    resource: "jobs",
    kind: "Job",
    apiVersion: "batch/v1",
    namespaced: true,
    subresources: ["status"],
  },
  {
    prefix: "/apis/coordination.k8s.io/v1",
    resource: "leases",
    kind: "Lease",
    apiVersion: "coordination.k8s.io/v1",
    namespaced: true,
    subresources: [],
  },
  {
    prefix: "/apis/apiextensions.k8s.io/v1",
    resource: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    apiVersion: "apiextensions.k8s.io/v1",
    namespaced: false,
    subresources: ["status"],
  },
  {
    prefix: `/apis/${FUZZ_GROUP}/v1`,
    resource: "widgets",
    kind: "Widget",
    apiVersion: `${FUZZ_GROUP}/v1`,
    namespaced: true,
    subresources: ["status", "scale"],
  },
  {
    prefix: `/apis/${FUZZ_GROUP}/v1`,
    resource: BLOBS,
    kind: "Blob",
    apiVersion: `${FUZZ_GROUP}/v1`,
    namespaced: true,
    subresources: [],
  },
  {
    prefix: "/apis/networking.k8s.io/v1",
    resource: "ipaddresses",
    kind: "IPAddress",
    apiVersion: "networking.k8s.io/v1",
    namespaced: false,
    subresources: [],
  },
  {
    prefix: "/api/v1",
    resource: "nosuchthings",
    kind: "NoSuchThing",
    apiVersion: "v1",
    namespaced: true,
    subresources: [],
  },
];

const QUERY_VALUES: Record<string, string[]> = {
  watch: ["1", "true", "false", "x", ""],
  timeoutSeconds: ["1", "-1", "0", "x", "1e400", "99999999999999999999", "", "+1"],
  limit: ["1", "2", "-1", "x", "500", "99999999999999999999"],
  continue: ["x", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ6In0", "%%%", "a".repeat(2000)],
  resourceVersion: ["0", "1", "x", "-1", "99999999999999999999", "999999999", ""],
  resourceVersionMatch: ["Exact", "NotOlderThan", "x", ""],
  labelSelector: ["a=b", "a in (b,c)", "a in (", "!a", "a!=", "=", "x".repeat(5000), "a,b,c,,", "a notin ()"],
  fieldSelector: ["metadata.name=a", "metadata.namespace!=x", "spec.nodeName=x", "nosuch=x", "=", "a==b==c"],
  fieldManager: ["fuzz", "", "x".repeat(200), "é"],
  dryRun: ["All", "x", ""],
  propagationPolicy: ["Foreground", "Background", "Orphan", "x"],
  gracePeriodSeconds: ["0", "-1", "x", "30"],
  orphanDependents: ["true", "false", "x"],
  uid: ["x", ""],
  timeout: ["invalid", "5s", "1x", "10", "-1s", ""],
  includeObject: ["None", "Metadata", "Object", "x"],
  allowWatchBookmarks: ["true", "x"],
  sendInitialEvents: ["true", "false", "x"],
  force: ["true", "x", "1"],
  fieldValidation: ["Strict", "Warn", "Ignore", "x"],
  pretty: ["true", "x"],
  verbose: ["", "1"],
};

const CONTENT_TYPES = [
  "application/json",
  "application/yaml",
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
  "application/vnd.kubernetes.protobuf",
  "text/plain",
  "application/json; charset=utf-16",
  "",
  "multipart/form-data; boundary=x",
  "application/json;;;",
];

const ACCEPTS = [
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
  "application/json;as=Table;g=meta.k8s.io;v=v1",
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
  "application/json;as=Table;g=meta.k8s.io;v=v1beta1, application/json",
  "*/*",
  "text/html",
  "application/json;q=x",
  ",,,;",
];

function encodeQuery(r: Random): string {
  const parts: string[] = [];
  const keys = Object.keys(QUERY_VALUES);
  const n = r.int(4);
  for (let i = 0; i < n; i++) {
    const key = r.chance(0.05) ? r.string(1 + r.int(8), "abc%=&?#") : r.pick(keys);
    const value = QUERY_VALUES[key] ? r.pick(QUERY_VALUES[key]) : r.string(r.int(10), "xyz%=&");
    parts.push(`${key}=${r.chance(0.2) ? value : encodeURIComponent(value)}`);
  }
  return parts.length > 0 ? `?${parts.join("&")}` : "";
}

/** A value nested `depth` levels (objects or arrays), as JSON text. */
function deepJson(depth: number, r: Random): string {
  return r.chance(0.5)
    ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`
    : `${"[".repeat(depth)}1${"]".repeat(depth)}`;
}

function bigDepth(r: Random): number {
  return r.pick([5, 50, 499, 501, 999, 1001, 5000, 9_999, 10_000, 10_001, 10_002, 100_000]);
}

/** A valid-looking object of the resource, then mutated. */
function objectFor(res: Resource, name: string, r: Random): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name };
  if (r.chance(0.3)) metadata.labels = { a: r.pick(["b", "", "x".repeat(70), "é"]) };
  if (r.chance(0.1)) metadata.annotations = { a: "x".repeat(r.pick([10, 300_000])) };
  if (r.chance(0.1)) metadata.finalizers = [r.pick(["fuzz.example.com/x", "kubernetes", "x y"])];
  if (r.chance(0.1))
    metadata.ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: r.pick(["u", ""]) }];
  if (r.chance(0.05)) metadata.managedFields = [{ manager: "x", operation: "Apply" }];
  if (r.chance(0.05)) metadata.namespace = r.pick(NAMESPACES);
  if (r.chance(0.05)) metadata.resourceVersion = r.pick(["1", "x", "99999"]);
  const obj: Record<string, unknown> = { apiVersion: res.apiVersion, kind: res.kind, metadata };
  switch (res.kind) {
    case "ConfigMap":
      obj.data = { k: r.chance(0.05) ? "x".repeat(1_100_000) : "v" };
      if (r.chance(0.2)) obj.immutable = r.pick([true, false, "x"]);
      break;
    case "Secret":
      obj.stringData = { k: "v" };
      if (r.chance(0.2)) obj.data = { k: r.pick(["!!!", "dg==", 5]) };
      break;
    case "Pod":
      obj.spec = {
        containers: [
          {
            name: "c",
            image: "x",
            resources: {
              // Exponents to ±2^31: 10^exponent built out would stall the server for minutes.
              limits: {
                cpu: r.pick([
                  "1",
                  "x",
                  Number.MAX_VALUE,
                  "1.5e3m",
                  -1,
                  "1e-2147483648",
                  "1e200000000",
                  "0.5",
                ]),
                memory: r.pick(["1", "1e-200000000", "9e2147483647Ki"]),
              },
              requests: { cpu: r.pick(["1", "1e-200000000", "2e200000000"]), memory: "1" },
            },
          },
        ],
      };
      break;
    case "Deployment":
      obj.spec = {
        replicas: r.pick([1, -1, "x", 1e10, null]),
        selector: { matchLabels: { a: "b" } },
        template: {
          metadata: { labels: { a: r.pick(["b", "c"]) } },
          spec: { containers: [{ name: "c", image: "x" }] },
        },
      };
      break;
    case "Service":
      obj.spec = {
        ports: [
          {
            port: r.pick([80, 0, 70000, "x"]),
            ...(r.chance(0.3) ? { nodePort: r.pick([80, 30000, 30080, 32767, 32768, -1, "x"]) } : {}),
            ...(r.chance(0.2) ? { targetPort: r.pick([0, "", 8080, "http"]) } : {}),
          },
        ],
        type: r.pick(["ClusterIP", "NodePort", "LoadBalancer", "x"]),
      };
      // Addresses taken (the kubernetes Service's), outside the CIDR, its edges, not addresses.
      if (r.chance(0.3))
        (obj.spec as Record<string, unknown>).clusterIP = r.pick([
          "10.0.0.1",
          "10.0.0.50",
          "10.0.1.5",
          "10.0.0.0",
          "10.0.0.255",
          "None",
          "x",
          "",
        ]);
      break;
    case "CustomResourceDefinition":
      obj.spec = {
        group: r.pick([FUZZ_GROUP, "x.example.com", "nodots", ""]),
        names: { plural: name.toLowerCase(), kind: r.pick(["Thing", "", "thing"]) },
        scope: r.pick(["Namespaced", "Cluster", "x"]),
        versions: [
          {
            name: r.pick(["v1", "V1", ""]),
            served: true,
            storage: r.chance(0.9),
            schema: {
              openAPIV3Schema: r.chance(0.5)
                ? { type: "object", "x-kubernetes-preserve-unknown-fields": true }
                : {
                    type: "object",
                    properties: {
                      spec: {
                        type: "object",
                        properties: {
                          s: {
                            type: "string",
                            pattern: r.pick(["^(a+)+$", "(?=x)", "^[a-z]+$", "\\1", "["]),
                          },
                        },
                      },
                    },
                  },
            },
          },
        ],
      };
      break;
    case "Widget":
      obj.spec = { s: r.pick(["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "abc", 5]), replicas: r.pick([1, "x"]) };
      break;
    default:
      obj.spec = { x: 1 };
  }
  // Mutations: junk fields, wrong types, dropped fields, deep values.
  if (r.chance(0.2))
    obj[r.pick(["spec", "status", "junk", "metadata", "apiVersion", "kind"])] = r.pick([
      5,
      "x",
      null,
      [],
      true,
      {},
    ]);
  if (r.chance(0.1)) delete obj[r.pick(["apiVersion", "kind", "metadata"])];
  if (r.chance(0.1)) obj.junk = { nested: JSON.parse(deepJson(r.int(50), r)) };
  return obj;
}

function bodyFor(
  res: Resource,
  name: string,
  method: string,
  r: Random,
): { body: string | Buffer; contentType: string; what: string } {
  const roll = r.next();
  if (roll < 0.08) {
    const depth = bigDepth(r);
    return {
      body: `{"apiVersion":"${res.apiVersion}","kind":"${res.kind}","metadata":{"name":"${name}"},"x":${deepJson(depth, r)}}`,
      contentType: r.pick(CONTENT_TYPES),
      what: `deep JSON ${depth}`,
    };
  }
  if (roll < 0.13) {
    const depth = bigDepth(r);
    const yaml = r.chance(0.5)
      ? `x:\n${"- ".repeat(depth)}1\n`
      : `x: ${"[".repeat(depth)}1${"]".repeat(depth)}\n`;
    return {
      body: `apiVersion: ${res.apiVersion}\nkind: ${res.kind}\nmetadata:\n  name: ${name}\n${yaml}`,
      contentType: r.pick(["application/yaml", "application/apply-patch+yaml"]),
      what: `deep YAML ${depth}`,
    };
  }
  if (roll < 0.18) {
    const junk = r.pick([
      () => Buffer.from(Array.from({ length: r.int(2000) }, () => r.int(256))),
      () => "",
      () => "null",
      () => "[]",
      () => '{"a":1,"a":2}',
      () => "{".repeat(r.int(3000)),
      () => '"\\ud800"',
      () => `{"metadata":{"name":"${"\u0000".repeat(10)}"}}`,
      () => "&a [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
      () =>
        "a: &a [x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c]\n",
      () => "1e400",
      () => "x".repeat(3 * 1024 * 1024 + 1),
    ])();
    return { body: junk, contentType: r.pick(CONTENT_TYPES), what: "junk body" };
  }
  const obj = objectFor(res, name, r);
  if (method === "PATCH") {
    const kind = r.pick(["merge", "json", "strategic", "apply"]);
    if (kind === "json") {
      const ops = Array.from({ length: 1 + r.int(3) }, () => ({
        op: r.pick(["add", "remove", "replace", "move", "copy", "test", "x"]),
        path: r.pick([
          "/metadata/name",
          "/metadata/labels/a",
          "/spec",
          "/x/-",
          "/data/~1k",
          "",
          "/",
          "/metadata/namespace",
          "/a/b/c/d",
          "/spec/containers/99",
        ]),
        from: r.pick(["/metadata", "/spec", "/x"]),
        value: r.pick([1, "x", null, { a: 1 }, []]),
      }));
      return { body: JSON.stringify(ops), contentType: "application/json-patch+json", what: "JSON patch" };
    }
    if (kind === "apply") {
      return {
        body: r.chance(0.5) ? JSON.stringify(obj) : stringify(obj),
        contentType: "application/apply-patch+yaml",
        what: "apply",
      };
    }
    const patch: Record<string, unknown> = { metadata: { labels: { p: "q" } }, spec: obj.spec };
    if (kind === "strategic" && r.chance(0.5)) patch.$patch = r.pick(["delete", "replace", "x"]);
    if (kind === "strategic" && r.chance(0.3)) patch.$setElementOrder = { containers: [{ name: "c" }] };
    return {
      body: JSON.stringify(patch),
      contentType:
        kind === "merge" ? "application/merge-patch+json" : "application/strategic-merge-patch+json",
      what: `${kind} patch`,
    };
  }
  if (r.chance(0.15)) return { body: stringify(obj), contentType: "application/yaml", what: "YAML object" };
  return {
    body: JSON.stringify(obj),
    contentType: r.chance(0.9) ? "application/json" : r.pick(CONTENT_TYPES),
    what: "object",
  };
}

function apiPath(r: Random): { path: string; res: Resource; name: string; what: string } {
  const res = r.pick(RESOURCES);
  const ns = r.pick(NAMESPACES);
  const name = r.pick(NAMES);
  let path = res.prefix;
  if (r.chance(0.1)) path += "/watch";
  if (res.namespaced && r.chance(0.85)) path += `/namespaces/${ns}`;
  path += `/${res.resource}`;
  let what = "collection";
  if (r.chance(0.6)) {
    path += `/${name}`;
    what = "named";
    if (r.chance(0.25)) {
      path += `/${r.chance(0.8) && res.subresources.length > 0 ? r.pick(res.subresources) : r.pick(["junk", "status", "scale", "..", "log"])}`;
      what = "subresource";
    }
  }
  // Crafted paths: dot-segments, doubled slashes, escapes, extra segments.
  if (r.chance(0.15)) {
    const segments = path.split("/");
    const at = 1 + r.int(segments.length - 1);
    segments.splice(at, 0, r.pick(["..", ".", "%2e%2e", "%2E", "", "..%2f..", "%2f", "x", "%"]));
    path = segments.join("/");
    what = "crafted path";
  }
  if (r.chance(0.05)) path += "/";
  return { path, res, name, what };
}

const OTHER_PATHS = [
  "/",
  "/api",
  "/apis",
  "/api/v1",
  "/apis/apps",
  "/apis/apps/v1",
  "/version",
  "/healthz",
  "/healthz/ping",
  "/healthz/../api/v1/secrets",
  "/readyz?verbose",
  "/livez/x",
  "/openapi/v2",
  "/openapi/v3",
  "/openapi/v3/apis/apps/v1?hash=x",
  "/openapi/v3/api/v1",
  "/openapi/v3/../api/v1/secrets",
  "//%2f",
  "/%zz",
  "/metrics",
  "/api/v1/namespaces/fuzz/pods/a/log",
  "/apis/fuzz.example.com",
  "/api/v1/namespaces/%C3%A9",
];

/** A target as a client can send it: what is not printable ASCII is escaped (Node refuses it raw). */
function sendable(path: string): string {
  return path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
}

/** One request for the API server. */
export function apiRequest(r: Random, token: string): FuzzRequest {
  const req = rawApiRequest(r, token);
  req.path = sendable(req.path);
  return req;
}

function rawApiRequest(r: Random, token: string): FuzzRequest {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (r.chance(0.03))
    headers.authorization = r.pick(["Bearer x", "Basic YTpi", "", "Bearer " + "x".repeat(8000)]);
  if (r.chance(0.3)) headers.accept = r.pick(ACCEPTS);
  if (r.chance(0.03)) headers["impersonate-user"] = r.pick(["system:admin", "bob", ""]);
  if (r.chance(0.02)) headers["x-junk"] = "x".repeat(r.pick([100, 20_000]));
  if (r.chance(0.08)) {
    return {
      method: r.pick(["GET", "HEAD", "POST", "OPTIONS"]),
      path: r.pick(OTHER_PATHS) + encodeQuery(r),
      headers,
      what: "other path",
    };
  }
  if (r.chance(0.01)) return largeEnumRequest(r, headers, FUZZ_GROUP);
  if (r.chance(0.06)) return invariantRequest(r, headers, FUZZ_GROUP);
  const { path, res, name, what } = apiPath(r);
  const method = r.pick([
    "GET",
    "GET",
    "GET",
    "POST",
    "PUT",
    "PATCH",
    "DELETE",
    "HEAD",
    "OPTIONS",
    "TRACE",
    "BREW",
  ]);
  const req: FuzzRequest = { method, path: path + encodeQuery(r), headers, what: `${method} ${what}` };
  if (method === "POST" || method === "PUT" || method === "PATCH" || (method === "DELETE" && r.chance(0.3))) {
    const body =
      method === "DELETE"
        ? {
            body: JSON.stringify({
              kind: "DeleteOptions",
              apiVersion: "v1",
              propagationPolicy: r.pick(["Orphan", "x"]),
              preconditions: r.pick([
                { uid: r.pick(["x", ""]) },
                { resourceVersion: r.pick(["0", "1", "x"]) },
                { uid: "x", resourceVersion: "1" },
              ]),
              orphanDependents: r.pick([undefined, true]),
              dryRun: r.pick([undefined, ["All"], ["x"]]),
              gracePeriodSeconds: r.pick([0, -5, "x"]),
            }),
            contentType: "application/json",
            what: "delete options",
          }
        : bodyFor(res, name, method, r);
    req.body = body.body;
    if (body.contentType) headers["content-type"] = body.contentType;
    req.what = `${method} ${what}, ${body.what}`;
  }
  return req;
}

/** One request for the webhook, metrics or health server. */
export function serverRequest(r: Random): FuzzRequest & { server: string } {
  const server = r.pick(["webhook", "webhook", "metrics", "health"] as const);
  const paths = {
    webhook: [
      "/validate-configmap",
      "/mutate-configmap",
      "/convert",
      "/",
      "/validate-configmap/../metrics",
      "//%2f",
      "/%zz",
      "/validate-configmap?x=1",
    ],
    metrics: [
      "/metrics",
      "/metrics/",
      "/",
      "/metrics?name[]=x",
      "/debug/pprof",
      "//%2f",
      "/%",
      "/metrics/../healthz",
    ],
    health: [
      "/healthz",
      "/readyz",
      "/healthz/ping",
      "/readyz/ping?verbose",
      "/healthz/nosuch",
      "/livez",
      "/healthz/../readyz",
      "//%2f",
      "/%zz",
      "/readyz?verbose&exclude=ping",
      "/readyz?exclude=%zz",
    ],
  }[server];
  const method = r.pick(["GET", "POST", "POST", "PUT", "DELETE", "HEAD", "OPTIONS"]);
  const headers: Record<string, string> = {};
  let body: string | Buffer | undefined;
  if (method === "POST" || method === "PUT") {
    headers["content-type"] = r.pick([
      "application/json",
      "application/json",
      "text/plain",
      "",
      "application/yaml",
    ]);
    const uid = r.pick(["u1", "", 5]);
    body = r.pick([
      () =>
        JSON.stringify({
          apiVersion: "admission.k8s.io/v1",
          kind: "AdmissionReview",
          request: {
            uid,
            kind: { group: "", version: "v1", kind: "ConfigMap" },
            operation: r.pick(["CREATE", "UPDATE", "DELETE", "X"]),
            object: r.pick([
              { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } },
              null,
              5,
              { metadata: 5 },
            ]),
            oldObject: r.pick([undefined, {}]),
          },
        }),
      () =>
        JSON.stringify({
          apiVersion: "admission.k8s.io/v1beta1",
          kind: "AdmissionReview",
          request: { uid: "x" },
        }),
      () =>
        JSON.stringify({
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "ConversionReview",
          request: {
            uid: "x",
            desiredAPIVersion: r.pick(["fuzz.example.com/v2", "", 5]),
            objects: r.pick([
              [{ apiVersion: "fuzz.example.com/v1", kind: "Widget", metadata: { name: "a" } }],
              [5],
              null,
              "x",
            ]),
          },
        }),
      () => `{"request":${deepJson(bigDepth(r), r)}}`,
      () => Buffer.from(Array.from({ length: r.int(3000) }, () => r.int(256))),
      () => "x".repeat(r.pick([10, 8 * 1024 * 1024])),
      () => "",
      () => "null",
    ])();
  }
  if (r.chance(0.2)) headers.accept = r.pick(ACCEPTS);
  const path = sendable(r.pick(paths) + (r.chance(0.1) ? encodeQuery(r) : ""));
  return { server, method, path, headers, body, what: `${server} ${method}` };
}

/** A hostile watch response body, served to the client's decoder. */
export interface HostileStream {
  what: string;
  /** Chunks to send, lazily; `delayMs` between them. */
  chunks(): Iterable<Uint8Array>;
  delayMs: number;
}

export function hostileStream(r: Random): HostileStream {
  const enc = (s: string) => Buffer.from(s);
  const event = (o: unknown) => `${JSON.stringify({ type: "ADDED", object: o })}\n`;
  const cm = (i: number) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `c${i}`, resourceVersion: String(i) },
  });
  const kinds: (() => HostileStream)[] = [
    () => ({
      what: "one 100 MB event",
      delayMs: 0,
      *chunks() {
        yield enc('{"type":"ADDED","object":{"kind":"ConfigMap","data":{"a":"');
        const block = Buffer.alloc(64 * 1024, 0x78);
        for (let i = 0; i < 1600; i++) yield block;
      },
    }),
    () => ({
      what: "many small events",
      delayMs: 0,
      *chunks() {
        for (let i = 0; i < 2000; i++) yield enc(event(cm(i)));
      },
    }),
    () => ({
      what: "invalid JSON line",
      delayMs: 0,
      *chunks() {
        yield enc(event(cm(1)));
        yield enc("{nope\n");
      },
    }),
    () => ({
      what: "wrong event shapes",
      delayMs: 0,
      *chunks() {
        yield enc(
          `${r.pick(['{"type":"ADDED","object":5}', '{"type":"NOPE","object":{}}', "[]", "5", '{"object":{}}', '{"type":"ERROR","object":"x"}'])}\n`,
        );
      },
    }),
    () => ({
      what: "deep event",
      delayMs: 0,
      *chunks() {
        yield enc(`{"type":"ADDED","object":{"kind":"ConfigMap","x":${deepJson(100_000, r)}}}\n`);
      },
    }),
    () => ({
      what: "invalid UTF-8",
      delayMs: 0,
      *chunks() {
        yield Buffer.from([0x7b, 0xff, 0xfe, 0x0a]);
        yield enc(event(cm(2)));
      },
    }),
    () => ({
      what: "byte-order marks and CRLF",
      delayMs: 0,
      *chunks() {
        yield enc(`\ufeff${event(cm(1)).trim()}\r\n\ufeff${event(cm(2))}`);
      },
    }),
    () => ({
      what: "one byte at a time",
      delayMs: 2,
      *chunks() {
        for (const b of enc(event(cm(1)) + event(cm(2)))) yield Buffer.from([b]);
      },
    }),
    () => ({
      what: "cut mid-event",
      delayMs: 0,
      *chunks() {
        yield enc(event(cm(1)));
        yield enc('{"type":"ADDED","object":{"kind":"Conf');
      },
    }),
    () => ({
      what: "blank lines only",
      delayMs: 0,
      *chunks() {
        for (let i = 0; i < 10_000; i++) yield enc("\n \n");
      },
    }),
    () => ({
      what: "huge ERROR status",
      delayMs: 0,
      *chunks() {
        yield enc(
          `${JSON.stringify({ type: "ERROR", object: { kind: "Status", code: 410, message: "x".repeat(5_000_000) } })}\n`,
        );
      },
    }),
  ];
  return r.pick(kinds)();
}
