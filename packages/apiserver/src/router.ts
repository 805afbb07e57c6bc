// Routing: maps a request path and method to discovery, health or a resource handler, and turns
// every failure into a Status response.
import type { IncomingMessage, ServerResponse } from "node:http";
import { aggregatedDiscovery } from "./aggregated-discovery.js";
import {
  apiGroup,
  apiGroupList,
  apiVersions,
  Priorities,
  resourceList,
  sendHealth,
  sendVersion,
} from "./discovery.js";
import { sendDiscovery } from "./discovery-answer.js";
import { apiServiceStore } from "./seed.js";
import type { ResourceRequest, ServerContext, UserInfo } from "./handlers/context.js";
import { handleCreate } from "./handlers/create.js";
import { handleDelete, handleDeleteCollection } from "./handlers/delete.js";
import { handleGet } from "./handlers/get.js";
import { handleList } from "./handlers/list.js";
import { handlePatch } from "./handlers/patch.js";
import { handleBinding, isBinding } from "./handlers/binding.js";
import { handleComponentStatus, isComponentStatus } from "./handlers/component-status.js";
import { handleConnect, isConnect } from "./handlers/connect.js";
import { handleEviction, isEviction } from "./handlers/eviction.js";
import { handleReview } from "./handlers/reviews.js";
import { handleTokenRequest, isTokenRequest } from "./handlers/token-request.js";
import { handleScale } from "./handlers/scale.js";
import { handleUpdate } from "./handlers/update.js";
import { handleWatch } from "./handlers/watch.js";
import { isTrue } from "./handlers/list-options.js";
import { addWarnings, sendError } from "./http-io.js";
import { loadFor } from "./lazy.js";
import { schemaHasRules } from "./schema/has-rules.js";
import type { ResourceDefinition } from "./registry/index.js";
import { StorageLimitError } from "./storage/index.js";
import { FaultStatusError } from "controller-runtime/envtest/faults";
import { checkPathName, checkStorageKey, pathSegmentNameErrors, type RequestTarget } from "./request-path.js";
import {
  ApiError,
  badRequest,
  internalError,
  methodNotAllowed,
  PageNotFoundError,
  resourceNotFound,
} from "./status.js";

/**
 * Resources kube serves deprecated (k8s.io/api's APILifecycleDeprecated), with the warning its
 * installer adds to every request for them.
 */
const DEPRECATED: Readonly<Record<string, string>> = {
  "/v1/Endpoints": "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice",
  "/v1/ComponentStatus": "v1 ComponentStatus is deprecated in v1.19+",
};

export interface RouteEnv {
  server: ServerContext;
  /** host:port, for /api's serverAddressByClientCIDRs. */
  serverAddress: string;
  onError(err: unknown): void;
}

const healthEndpoints = new Set(["healthz", "livez", "readyz"]);

export async function route(
  env: RouteEnv,
  req: IncomingMessage,
  res: ServerResponse,
  user: UserInfo,
  target: RequestTarget,
): Promise<void> {
  try {
    await dispatch(env, req, res, user, target);
  } catch (e) {
    if (e instanceof ApiError) sendError(res, e);
    else if (e instanceof FaultStatusError) sendError(res, ApiError.fromStatus(e.status));
    else if (e instanceof StorageLimitError) sendError(res, new ApiError(500, "", e.message));
    else if (clientGone(req, res, e)) {
      // The client went away (mid-body, or while the answer was written): nothing to answer,
      // and no bug of the server's.
      res.destroy();
    } else {
      env.onError(e);
      sendError(res, internalError((e as Error)?.message ?? String(e)));
    }
  }
}

async function dispatch(
  env: RouteEnv,
  req: IncomingMessage,
  res: ServerResponse,
  user: UserInfo,
  target: RequestTarget,
): Promise<void> {
  const method = req.method ?? "GET";
  const seg = target.segments;
  // Answers in protobuf (errors included) need the codec: loaded before anything is answered.
  const codec = loadFor(req);
  if (codec) await codec;
  const registry = env.server.registry;
  const isRead = method === "GET" || method === "HEAD";

  if (healthEndpoints.has(seg[0])) {
    if (sendHealth(res, `/${seg.join("/")}`, target.query.has("verbose"))) return;
    // No check of that name: kube's muxes pass the path on to the end of its chain.
    if (seg.length > 1) throw new PageNotFoundError();
  }
  if (seg[0] === "version" && seg.length === 1) {
    if (method !== "GET") throw methodNotAllowed();
    sendVersion(res);
    return;
  }
  if (seg[0] === "openapi") {
    env.server.openapi.handle(req, res, target);
    return;
  }
  const issuerDocument = issuerDiscovery(env.server, target.pathname);
  if (issuerDocument) {
    if (method !== "GET") throw methodNotAllowed();
    res.writeHead(200, {
      "Content-Type": issuerDocument.type,
      "Cache-Control": "public, max-age=3600",
      "X-Content-Type-Options": "nosniff",
    });
    res.end(JSON.stringify(issuerDocument.body));
    return;
  }
  let group: string;
  let version: string | undefined;
  let rest: string[];
  if (seg[0] === "api") {
    group = "";
    version = seg[1];
    rest = seg.slice(2);
    if (seg.length === 1) {
      if (method !== "GET") throw methodNotAllowed();
      sendDiscovery(req, res, {
        restful: true,
        legacy: () => apiVersions(env.serverAddress),
        aggregated: () => aggregatedDiscovery(registry, prioritiesOf(env.server), "api"),
      });
      return;
    }
    if (!version) throw resourceNotFound();
  } else if (seg[0] === "apis") {
    group = seg[1] ?? "";
    version = seg[2];
    rest = seg.slice(3);
    if (seg.length === 1) {
      if (!isRead) throw methodNotAllowed();
      const priorities = prioritiesOf(env.server);
      sendDiscovery(req, res, {
        restful: false,
        legacy: () => apiGroupList(registry, priorities),
        aggregated: () => aggregatedDiscovery(registry, priorities, "apis"),
      });
      return;
    }
    if (!group && seg.length > 1) throw resourceNotFound();
    // A group kube does not serve has no handler at all.
    if (group && !registry.servesGroup(group)) throw new PageNotFoundError();
    if (!version) {
      if (seg.length > 2) throw resourceNotFound();
      const doc = apiGroup(registry, group, prioritiesOf(env.server));
      if (!doc) throw new PageNotFoundError();
      if (!isRead) throw methodNotAllowed();
      sendDiscovery(req, res, { restful: false, legacy: () => doc });
      return;
    }
  } else if (seg[0] === "version") throw resourceNotFound();
  else throw new PageNotFoundError();

  if (rest.length === 0) {
    const doc = resourceList(registry, group, version);
    if (!doc) throw resourceNotFound();
    if (method !== "GET") throw methodNotAllowed();
    // Built-in group versions are go-restful's; a custom resource group's are apiextensions'.
    const restful = registry.inGroupVersion(group, version).some((d) => !d.crdName);
    sendDiscovery(req, res, { restful, legacy: () => doc });
    return;
  }

  let watch = false;
  if (rest[0] === "watch") {
    watch = true;
    rest = rest.slice(1);
  }
  let namespace = "";
  // `namespaces//configmaps`: a namespace segment given empty, which lists across namespaces but
  // names none to write into.
  let emptyNamespace = false;
  if (
    rest[0] === "namespaces" &&
    rest.length >= 3 &&
    !(rest.length === 3 && (rest[2] === "status" || rest[2] === "finalize"))
  ) {
    namespace = rest[1];
    emptyNamespace = namespace === "";
    rest = rest.slice(2);
  }
  // A proxy subresource carries the path to proxy to after it.
  if (rest.length === 0 || (rest.length > 3 && rest[2] !== "proxy")) throw resourceNotFound();
  const [resource, name = "", subresource = ""] = rest;
  const def = registry.lookup(group, version, resource);
  if (!def) throw resourceNotFound();
  if (namespace && !def.namespaced) throw resourceNotFound();
  if (def.namespaced && name && !namespace) throw resourceNotFound();
  if (subresource) {
    const known =
      (subresource === "status" && def.statusSubresource) ||
      (subresource === "scale" && def.scale !== undefined) ||
      (subresource === "finalize" && def.group === "" && def.kind === "Namespace" && !def.crdName) ||
      isEviction({ def, subresource }) ||
      isBinding({ def, subresource }) ||
      isConnect({ def, subresource }) ||
      (subresource === "approval" && isCSR(def)) ||
      ((subresource === "ephemeralcontainers" || subresource === "resize") &&
        def.group === "" &&
        def.kind === "Pod" &&
        !def.crdName) ||
      isTokenRequest({ def, subresource });
    if (!known) throw resourceNotFound();
  }

  const query = target.query;
  // ?watch asks a collection for a watch; on a named path kube answers the object.
  if (!name && isTrue(query.get("watch"))) watch = true;
  checkScope(def, namespace, name, subresource, method, watch);
  // kube's go-restful routes serve no HEAD (its /apis, /apis/<group>, health and OpenAPI
  // handlers, outside them, do).
  if (method === "HEAD") throw methodNotAllowed();
  // Load the libraries this request will use (protobuf, YAML, CEL), once, before the handlers
  // that use them synchronously.
  const writes = !isRead;
  const crds =
    (def.group === "apiextensions.k8s.io" && def.plural === "customresourcedefinitions") ||
    (def.group === "admissionregistration.k8s.io" &&
      (def.plural.endsWith("webhookconfigurations") ||
        /^(validating|mutating)admissionpolic/.test(def.plural)));
  const loading = loadFor(req, {
    cel: writes && (crds || (def.crdName !== undefined && schemaHasRules(def.schema))),
  });
  if (loading) await loading;
  let r: ResourceRequest = { server: env.server, def, namespace, name, subresource, query, req, res, user };
  const deprecated = def.crdName ? undefined : DEPRECATED[`${def.group}/${def.version}/${def.kind}`];
  if (deprecated) addWarnings(res, [`299 - ${JSON.stringify(deprecated)}`]);
  if (env.server.faults.active) {
    const { watchFault, staleBy } = await env.server.faults.before(r, method, watch);
    if (watchFault || staleBy !== undefined) r = { ...r, watchFault, staleBy };
  }
  if (subresource === "scale") {
    if (method !== "GET" && method !== "PUT" && method !== "PATCH") throw methodNotAllowed();
    await handleScale(r, method);
    return;
  }
  if (isConnect(r)) {
    handleConnect(r, method);
    return;
  }
  if (isComponentStatus(r)) {
    handleComponentStatus(r, method, watch);
    return;
  }
  if (isBinding(r)) {
    if (method !== "POST" || (subresource === "" && name)) throw methodNotAllowed();
    await handleBinding(r);
    return;
  }
  if (def.review) {
    if (method !== "POST" || name) throw methodNotAllowed();
    await handleReview(r);
    return;
  }
  if (subresource === "token") {
    if (method !== "POST") throw methodNotAllowed();
    await handleTokenRequest(r);
    return;
  }
  if (subresource === "eviction") {
    if (method !== "POST" || !name) throw methodNotAllowed();
    await handleEviction(r);
    return;
  }
  if (subresource === "finalize" && method !== "PUT") throw methodNotAllowed();
  if (
    (subresource === "status" ||
      subresource === "approval" ||
      subresource === "ephemeralcontainers" ||
      subresource === "resize") &&
    method !== "GET" &&
    method !== "PUT" &&
    method !== "PATCH"
  )
    throw methodNotAllowed();

  switch (method) {
    case "GET":
    case "HEAD":
      if (name && !watch) await handleGet(r);
      else if (watch) {
        if (name) query.set("fieldSelector", mergeNameSelector(query.get("fieldSelector"), name));
        const named: ResourceRequest = name ? { ...r, name: "" } : r;
        handleWatch(named);
      } else await handleList(r);
      return;
    case "POST":
      // With the namespace segment given empty, kube's create finds no namespace (422).
      if (name || (def.namespaced && !namespace && !emptyNamespace)) throw methodNotAllowed();
      await handleCreate(r);
      return;
    case "PUT":
      if (!name) throw methodNotAllowed();
      await handleUpdate(subresource === "finalize" ? { ...r, subresource: "" } : r);
      return;
    case "PATCH":
      if (!name) throw methodNotAllowed();
      await handlePatch(r);
      return;
    case "DELETE":
      if (subresource) throw methodNotAllowed();
      if (name) await handleDelete(r);
      else if (!def.verbs.includes("deletecollection")) throw methodNotAllowed();
      // kube serves deletecollection per namespace only: never across the cluster.
      else if (emptyNamespace) throw badRequest("Namespace parameter required.");
      else if (def.namespaced && !namespace) throw methodNotAllowed();
      else await handleDeleteCollection(r);
      return;
    default:
      throw methodNotAllowed();
  }
}

/** The APIServices' priorities, which order discovery's groups and versions. */
function prioritiesOf(server: ServerContext): Priorities {
  return new Priorities(server.storage.list(apiServiceStore).map((o) => o.obj));
}

const isCSR = (def: ResourceDefinition) =>
  def.group === "certificates.k8s.io" && def.kind === "CertificateSigningRequest" && !def.crdName;

const DISCONNECT_CODES = new Set([
  "ERR_STREAM_PREMATURE_CLOSE",
  "ECONNRESET",
  "EPIPE",
  "ERR_STREAM_DESTROYED",
]);

function clientGone(req: IncomingMessage, res: ServerResponse, e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === "string" && DISCONNECT_CODES.has(code)) return true;
  return req.destroyed && (res.destroyed || !res.writable);
}

/**
 * kube's answers to names that are not path segments (400) and namespaces that would make an
 * invalid storage key (500); a watch there matches nothing, as kube's watch cache serves it.
 */
function checkScope(
  def: ResourceDefinition,
  namespace: string,
  name: string,
  subresource: string,
  method: string,
  watch: boolean,
): void {
  // kube's scale subresource looks the name up without the check (and answers 404).
  if (name && subresource !== "scale") checkPathName(name);
  if (watch || !namespace) return;
  const nsErrors = pathSegmentNameErrors(namespace);
  if (nsErrors.length === 0) return;
  if (method === "POST" && !name) {
    throw internalError(`invalid resource name ${JSON.stringify(namespace)}: [${nsErrors.join(" ")}]`);
  }
  checkStorageKey(def, namespace, name);
}

/** ServiceAccount issuer discovery (kube's ServiceAccountIssuerDiscovery), when served. */
function issuerDiscovery(
  server: RouteEnv["server"],
  path: string,
): { type: string; body: object } | undefined {
  const authn = server.authentication;
  if (!authn) return undefined;
  if (path === "/.well-known/openid-configuration")
    return { type: "application/json", body: authn.openIDConfiguration() };
  if (path === "/openid/v1/jwks") return { type: "application/jwk-set+json", body: authn.jwks() };
  return undefined;
}

function mergeNameSelector(existing: string | null, name: string): string {
  const term = `metadata.name=${name}`;
  return existing ? `${existing},${term}` : term;
}
