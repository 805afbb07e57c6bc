// Routing: maps a request path and method to discovery, health or a resource handler, and turns
// every failure into a Status response.
import type { IncomingMessage, ServerResponse } from "node:http";
import { apiGroup, apiGroupList, apiVersions, resourceList, sendHealth, sendVersion } from "./discovery.js";
import type { ResourceRequest, ServerContext, UserInfo } from "./handlers/context.js";
import { handleCreate } from "./handlers/create.js";
import { handleDelete, handleDeleteCollection } from "./handlers/delete.js";
import { handleGet } from "./handlers/get.js";
import { handleList } from "./handlers/list.js";
import { handlePatch } from "./handlers/patch.js";
import { handleEviction, isEviction } from "./handlers/eviction.js";
import { handleScale } from "./handlers/scale.js";
import { handleUpdate } from "./handlers/update.js";
import { handleWatch } from "./handlers/watch.js";
import { isTrue } from "./handlers/list-options.js";
import { sendError, sendJson } from "./http-io.js";
import { ApiError, internalError, methodNotAllowed, resourceNotFound } from "./status.js";

export interface RouteEnv {
  server: ServerContext;
  /** host:port, for /api's serverAddressByClientCIDRs. */
  serverAddress: string;
  onError(err: unknown): void;
}

function splitPath(pathname: string): string[] {
  const out: string[] = [];
  for (const s of pathname.split("/")) {
    if (s === "") continue;
    // decodeURIComponent answers a segment without escapes unchanged.
    out.push(s.includes("%") ? decodeURIComponent(s) : s);
  }
  return out;
}

const healthEndpoints = new Set(["healthz", "livez", "readyz"]);

// An origin-form target that new URL() would leave as it is: no escapes, backslashes,
// fragment, characters it percent-encodes, or a leading `//` (a host). Dot segments are
// checked apart.
const PLAIN_TARGET = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*(?:\?[\x21-\x22\x24-\x7e]*)?$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|\?|$)/;

/**
 * The path and query of a request target, as `new URL(target, base)` reads them. Routing a
 * get cost less than constructing the URL, so plain targets are split by hand.
 */
export function requestTarget(target: string): { pathname: string; query: URLSearchParams } {
  if (PLAIN_TARGET.test(target) && !DOT_SEGMENT.test(target)) {
    const q = target.indexOf("?");
    if (q < 0) return { pathname: target, query: new URLSearchParams() };
    // With its "?", which URLSearchParams drops (once), as URL does with its search.
    return { pathname: target.slice(0, q), query: new URLSearchParams(target.slice(q)) };
  }
  const url = new URL(target, "https://apiserver");
  return { pathname: url.pathname, query: url.searchParams };
}

export async function route(
  env: RouteEnv,
  req: IncomingMessage,
  res: ServerResponse,
  user: UserInfo,
): Promise<void> {
  try {
    await dispatch(env, req, res, user);
  } catch (e) {
    if (e instanceof ApiError) sendError(res, e);
    else if (e instanceof URIError) sendError(res, resourceNotFound());
    else {
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
): Promise<void> {
  const target = requestTarget(req.url ?? "/");
  const method = req.method ?? "GET";
  const seg = splitPath(target.pathname);
  const registry = env.server.registry;
  const isRead = method === "GET" || method === "HEAD";

  if (healthEndpoints.has(seg[0]) && sendHealth(res, `/${seg.join("/")}`, target.query.has("verbose")))
    return;
  if (seg[0] === "version" && seg.length === 1) {
    if (!isRead) throw methodNotAllowed();
    sendVersion(res);
    return;
  }
  if (seg[0] === "openapi") {
    env.server.openapi.handle(req, res, new URL(req.url ?? "/", "https://apiserver"));
    return;
  }
  let group: string;
  let version: string | undefined;
  let rest: string[];
  if (seg[0] === "api") {
    group = "";
    version = seg[1];
    rest = seg.slice(2);
    if (!version) {
      if (!isRead) throw methodNotAllowed();
      sendJson(res, 200, apiVersions(env.serverAddress));
      return;
    }
  } else if (seg[0] === "apis") {
    group = seg[1] ?? "";
    version = seg[2];
    rest = seg.slice(3);
    if (seg.length === 1) {
      if (!isRead) throw methodNotAllowed();
      sendJson(res, 200, apiGroupList(registry));
      return;
    }
    if (!version) {
      const doc = apiGroup(registry, group);
      if (!doc) throw resourceNotFound();
      if (!isRead) throw methodNotAllowed();
      sendJson(res, 200, doc);
      return;
    }
  } else throw resourceNotFound();

  if (rest.length === 0) {
    const doc = resourceList(registry, group, version);
    if (!doc) throw resourceNotFound();
    if (!isRead) throw methodNotAllowed();
    sendJson(res, 200, doc);
    return;
  }

  let watch = false;
  if (rest[0] === "watch") {
    watch = true;
    rest = rest.slice(1);
  }
  let namespace = "";
  if (
    rest[0] === "namespaces" &&
    rest.length >= 3 &&
    !(rest.length === 3 && (rest[2] === "status" || rest[2] === "finalize"))
  ) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) throw resourceNotFound();
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
      isEviction({ def, subresource });
    if (!known) throw resourceNotFound();
  }

  const query = target.query;
  if (isTrue(query.get("watch"))) watch = true;
  const r: ResourceRequest = { server: env.server, def, namespace, name, subresource, query, req, res, user };

  if (subresource === "scale") {
    if (method !== "GET" && method !== "PUT" && method !== "PATCH") throw methodNotAllowed();
    await handleScale(r, method);
    return;
  }
  if (subresource === "eviction") {
    if (method !== "POST" || !name) throw methodNotAllowed();
    await handleEviction(r);
    return;
  }
  if (subresource === "finalize" && method !== "PUT") throw methodNotAllowed();
  if (subresource === "status" && method !== "GET" && method !== "PUT" && method !== "PATCH")
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
      if (name || (def.namespaced && !namespace)) throw methodNotAllowed();
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
      else if (def.verbs.includes("deletecollection")) await handleDeleteCollection(r);
      else throw methodNotAllowed();
      return;
    default:
      throw methodNotAllowed();
  }
}

function mergeNameSelector(existing: string | null, name: string): string {
  const term = `metadata.name=${name}`;
  return existing ? `${existing},${term}` : term;
}
