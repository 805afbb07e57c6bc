// Serving /openapi/v2 and /openapi/v3 as kube-openapi's handlers do: documents built once per
// registry generation (the schema helper's cache), ETags and 304s, content negotiation with 406,
// the protobuf form of v2 for older kubectl, and immutable caching of v3 documents fetched with
// the `?hash=` the index hands out (a stale hash is redirected to the current one).
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Registry } from "../registry/index.js";
import type { ResourceDefinition } from "../registry/index.js";
import {
  type CachedDocument,
  createOpenAPICache,
  groupVersionPath,
  type OpenAPICache,
  openAPIV3GroupVersion,
} from "../schema/index.js";
import { methodNotAllowed, PageNotFoundError, resourceNotFound } from "../status.js";
import { acceptedTypes } from "./accept.js";
import { stringifyJson } from "../object/deep-json.js";
import { openAPIV2Protobuf } from "./v2-protobuf.js";

const V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
const V2_PROTOBUF_DEPRECATED = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

interface Body {
  data: Buffer;
  contentType: string;
  etag: string;
}

/** The server's OpenAPI endpoints, with caches that live as long as the server. */
export class OpenAPIService {
  readonly #registry: Registry;
  readonly #cache: OpenAPICache = createOpenAPICache();
  #protobuf: { hash: string; data: Buffer } | undefined;
  // v3 documents per group-version, kept while that group-version's definitions are the same
  // objects: a CRD coming or going rebuilds its own document, not every built-in one.
  readonly #v3 = new Map<string, { defs: ResourceDefinition[]; doc: CachedDocument }>();
  #v3Index: { generation: number; doc: CachedDocument } | undefined;
  #generation = Number.NaN;
  #lastModified = new Date();

  constructor(registry: Registry) {
    this.#registry = registry;
  }

  /** Answers a request under `/openapi`; throws an ApiError (404, 405) for what is not served. */
  handle(req: IncomingMessage, res: ServerResponse, url: { pathname: string; query: URLSearchParams }): void {
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD") throw methodNotAllowed();
    const generation = this.#registry.generation;
    if (generation !== this.#generation) {
      this.#generation = generation;
      this.#lastModified = new Date();
    }
    const defs = this.#registry.all();
    const path = url.pathname.replace(/\/+$/, "");
    if (path === "/openapi/v2") {
      this.#v2(req, res, generation);
      return;
    }
    if (path === "/openapi/v3") {
      const doc = this.#index(generation, defs);
      send(req, res, this.#lastModified, {
        data: Buffer.from(doc.json),
        contentType: "application/json",
        etag: doc.hash,
      });
      return;
    }
    const m = /^\/openapi\/v3\/(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    if (!m) throw new PageNotFoundError();
    const [group, version] = m[1] !== undefined ? ["", m[1]] : [m[2], m[3]];
    const doc = this.#groupVersion(defs, group, version);
    if (!doc) throw resourceNotFound();
    res.setHeader("Vary", "Accept");
    // kube-openapi also offers the v3 protobuf form; no kubectl asks for it, so JSON only.
    if (!acceptedTypes(req.headers.accept).some((t) => matches(t, "application/json"))) {
      notAcceptable(res);
      return;
    }
    const hash = url.query.get("hash");
    if (hash) {
      if (hash !== doc.hash) {
        const key = group === "" ? `api/${version}` : `apis/${group}/${version}`;
        res.writeHead(301, { Location: `/openapi/v3/${key}?hash=${doc.hash}`, "Content-Length": 0 });
        res.end();
        return;
      }
      // The URL names this exact document: clients may keep it for good.
      res.setHeader("Cache-Control", "public, immutable");
      res.setHeader("Expires", new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString());
    }
    send(req, res, this.#lastModified, {
      data: Buffer.from(doc.json),
      contentType: "application/json",
      etag: doc.hash,
    });
  }

  #groupVersion(
    defs: readonly ResourceDefinition[],
    group: string,
    version: string,
  ): CachedDocument | undefined {
    const key = groupVersionPath(group, version);
    const mine = defs.filter((d) => d.group === group && d.version === version);
    const cached = this.#v3.get(key);
    if (cached && cached.defs.length === mine.length && cached.defs.every((d, i) => d === mine[i])) {
      return cached.doc;
    }
    const built = openAPIV3GroupVersion(mine, group, version);
    if (built === undefined) {
      this.#v3.delete(key);
      return undefined;
    }
    // stringifyJson: a CRD's schema may nest past what JSON.stringify's recursion takes.
    const json = stringifyJson(built);
    const doc = { json, hash: hashOf(json) };
    this.#v3.set(key, { defs: mine, doc });
    return doc;
  }

  /** `/openapi/v3`: every served group-version with the hash of its document. */
  #index(generation: number, defs: readonly ResourceDefinition[]): CachedDocument {
    if (this.#v3Index?.generation === generation) return this.#v3Index.doc;
    const keys = [...new Set(defs.map((d) => `${d.group}/${d.version}`))];
    const paths: Record<string, { serverRelativeURL: string }> = {};
    const entries: [string, string][] = [];
    for (const k of keys) {
      const slash = k.lastIndexOf("/");
      const [group, version] = [k.slice(0, slash), k.slice(slash + 1)];
      const doc = this.#groupVersion(defs, group, version);
      if (doc) entries.push([groupVersionPath(group, version), doc.hash]);
    }
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [path, hash] of entries)
      paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
    // Group-versions no longer served drop out of the cache.
    for (const k of this.#v3.keys()) if (!(k in paths)) this.#v3.delete(k);
    const json = JSON.stringify({ paths });
    const doc = { json, hash: hashOf(json) };
    this.#v3Index = { generation, doc };
    return doc;
  }

  #v2(req: IncomingMessage, res: ServerResponse, generation: number): void {
    res.setHeader("Vary", "Accept");
    const doc = this.#cache.v2(generation, this.#registry.all());
    for (const type of acceptedTypes(req.headers.accept)) {
      if (matches(type, "application/json")) {
        send(req, res, this.#lastModified, {
          data: Buffer.from(doc.json),
          contentType: "application/json",
          etag: doc.hash,
        });
        return;
      }
      if (matches(type, V2_PROTOBUF) || matches(type, V2_PROTOBUF_DEPRECATED)) {
        if (this.#protobuf?.hash !== doc.hash) {
          this.#protobuf = { hash: doc.hash, data: openAPIV2Protobuf(JSON.parse(doc.json)) };
        }
        send(req, res, this.#lastModified, {
          data: this.#protobuf.data,
          contentType: V2_PROTOBUF,
          etag: doc.hash,
        });
        return;
      }
    }
    notAcceptable(res);
  }
}

/** Whether an Accept media range (`*\/*`, `application/*`, a type) admits `type`. */
function matches(range: string, type: string): boolean {
  if (range === "*/*" || range === type) return true;
  return range.endsWith("/*") && type.startsWith(range.slice(0, -1));
}

/** kube's ETag of a document: the SHA-512 of its bytes, upper-case hex. */
function hashOf(json: string): string {
  return createHash("sha512").update(json).digest("hex").toUpperCase();
}

/** kube-openapi answers a bare 406 when no offered type is acceptable. */
function notAcceptable(res: ServerResponse): void {
  res.writeHead(406, { "Content-Length": 0 });
  res.end();
}

/** As Go's http.ServeContent: ETag and Last-Modified, 304 on a matching If-None-Match. */
function send(req: IncomingMessage, res: ServerResponse, lastModified: Date, body: Body): void {
  const etag = JSON.stringify(body.etag);
  res.setHeader("Etag", etag);
  res.setHeader("Last-Modified", lastModified.toUTCString());
  if (!res.hasHeader("Cache-Control")) res.setHeader("Cache-Control", "no-cache, private");
  const inm = req.headers["if-none-match"];
  if (inm?.split(",").some((t) => t.trim() === etag || t.trim() === "*")) {
    res.writeHead(304);
    res.end();
    return;
  }
  res.writeHead(200, { "Content-Type": body.contentType, "Content-Length": body.data.length });
  res.end(req.method === "HEAD" ? undefined : body.data);
}
