// The REST client: every verb on any resource, JSON in and plain objects out. The informer lists
// and watches through it, so the path from socket to object is short: one text read and one
// JSON.parse per response, one per line for watches.
import type { Status } from "kubernetes-types/meta/v1.js";
import type { KubeList, KubeObject } from "../api/index.js";
import type { RESTConfig } from "./config.js";
import { NetworkError, statusErrorFromResponse, type ErrorContext } from "./errors.js";
import { type QueryValue, queryString, type ResourceRef, resourcePath } from "./resource-path.js";
import type {
  CallOptions,
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  RawRequestOptions,
  UpdateOptions,
  WatchOptions,
  WriteOptions,
} from "./rest-options.js";
import { newTransport, type Transport, type TransportOptions, toNetworkError } from "./transport.js";
import { openWatch, type WatchStream } from "./watch-stream.js";
import { defaultWarningHandler, parseWarningHeader, type WarningHandler } from "./warnings.js";
import { describeCredentials } from "./credentials.js";
import {
  acceptFor,
  type ContentType,
  isProtobufResponse,
  loadCodec,
  PROTOBUF,
  withItemTypes,
  writeBody,
} from "./content-type.js";
import { requestSignal } from "./request-signal.js";

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

export interface RESTClientOptions extends TransportOptions {
  /** Send through this transport (shared, not closed by `close()`). Default: a new one for the config. */
  transport?: Transport;
  /**
   * Called with each `Warning` header of every response; `null` drops them (controller-runtime's
   * `SuppressWarnings`). Default: each distinct warning logged once to standard error, as
   * controller-runtime's `KubeAPIWarningLogger` (the Manager logs them through its logger).
   */
  onWarning?: WarningHandler | null;
  /**
   * How built-in kinds travel (client-go's `ContentType`): `application/vnd.kubernetes.protobuf`
   * reads and writes them in kube's protobuf, as controller-runtime's client does; custom
   * resources, patches, and objects with fields kube's message does not know stay JSON.
   * `application/json` sends and asks for JSON only. Default: the config's `contentType`, else protobuf.
   */
  contentType?: ContentType;
}

export interface RESTClient {
  readonly transport: Transport;
  get<T extends KubeObject = KubeObject>(resource: ResourceRef, name: string, opts?: GetOptions): Promise<T>;
  list<T extends KubeObject = KubeObject, L = KubeList<T>>(
    resource: ResourceRef,
    opts?: ListOptions,
  ): Promise<L>;
  create<T extends KubeObject>(resource: ResourceRef, object: T, opts?: CreateOptions): Promise<T>;
  /** Replaces the object named by `opts.name` or its `metadata.name` (optimistic on `resourceVersion`). */
  update<T extends KubeObject>(resource: ResourceRef, object: T, opts?: UpdateOptions): Promise<T>;
  /** `patch` is sent as is when a string, else as JSON. */
  patch<T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    name: string,
    patch: unknown,
    opts: PatchOptions,
  ): Promise<T>;
  /** Resolves to the object (when deletion waits on finalizers) or a Success `Status`. */
  delete<T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    name: string,
    opts?: DeleteOptions,
  ): Promise<T | Status>;
  deleteCollection(resource: ResourceRef, opts?: DeleteCollectionOptions): Promise<KubeList | Status>;
  /**
   * Opens a watch; resolves once the server answered, so a refused watch rejects here with a
   * `StatusError`. Iterate the stream, or `return()` it: an untouched stream holds a connection.
   */
  watch<T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    opts?: WatchOptions,
  ): Promise<WatchStream<T>>;
  /** A request to any path (discovery, `/version`, `/healthz`); non-2xx rejects with a `StatusError`. */
  request<T = unknown>(opts: RawRequestOptions): Promise<T>;
  /** Closes the transport if this client created it. */
  close(): Promise<void>;
}

interface Call {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
  path: string;
  body?: string;
  /** An object to send, in the client's content type (`body` is sent as is). */
  object?: object;
  /** The resource's group: built-in groups are read and written in protobuf. */
  group?: string;
  contentType?: string;
  opts: CallOptions;
  ctx: ErrorContext;
  responseType?: "json" | "text";
}

/** Creates a REST client for `config`. Opens no connection until the first call. */
export function newRESTClient(config: RESTConfig, options: RESTClientOptions = {}): RESTClient {
  const ownTransport = options.transport === undefined;
  const transport = options.transport ?? newTransport(config, options);
  const defaultTimeout = config.timeoutMs;
  const clientWarning =
    options.onWarning === undefined ? defaultWarningHandler() : (options.onWarning ?? undefined);
  const credentials =
    (options.credentials?.describe?.() ?? describeCredentials(config)) +
    (config.source ? ` (${config.source})` : "");
  const protobuf = (options.contentType ?? config.contentType ?? PROTOBUF) === PROTOBUF;

  async function send(call: Call): Promise<unknown> {
    const { opts } = call;
    const timeoutMs = opts.timeoutMs ?? defaultTimeout;
    const timeout = timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined;
    const own = opts.signal ? requestSignal(opts.signal) : undefined;
    const signal = timeout ? (own ? AbortSignal.any([own.signal, timeout]) : timeout) : own?.signal;
    const headers: Record<string, string> = { accept: acceptFor(call.group, opts.accept, protobuf) };
    let body: string | Uint8Array | undefined = call.body;
    let contentType = call.contentType;
    if (call.object !== undefined)
      ({ body, contentType } = await writeBody(call.group ?? "", call.object, protobuf));
    if (body !== undefined) headers["content-type"] = contentType ?? "application/json";
    const what = `${call.method} ${call.path}`;
    try {
      const res = await transport.send({
        method: call.method,
        path: call.path,
        headers,
        body,
        signal,
      });
      const onWarning = opts.onWarning ?? clientWarning;
      if (onWarning && res.headers.warning !== undefined) {
        for (const w of parseWarningHeader(res.headers.warning)) onWarning(w);
      }
      if (call.responseType !== "text" && isProtobufResponse(res.headers["content-type"])) {
        return await readProtobuf(res.statusCode, Buffer.from(await res.body.arrayBuffer()), call, what);
      }
      const text = await res.body.text();
      if (res.statusCode < 200 || res.statusCode > 299) {
        throw statusErrorFromResponse(res.statusCode, text, res.headers["retry-after"], call.ctx);
      }
      if (call.responseType === "text") return text;
      if (text === "") return undefined;
      try {
        return JSON.parse(text);
      } catch (cause) {
        throw new NetworkError(
          `${what}: the server answered ${res.statusCode} with a body that is not JSON (${String(res.headers["content-type"])}); ` +
            "check that the host is an API server and not a proxy's page",
          { cause },
        );
      }
    } catch (err) {
      if (timeout?.aborted && !opts.signal?.aborted) {
        throw new NetworkError(
          `${what}: no complete answer within ${timeoutMs} ms; raise timeoutMs or retry`,
          {
            cause: err,
            timedOut: true,
          },
        );
      }
      throw toNetworkError(err, opts.signal, what);
    } finally {
      own?.release();
    }
  }

  async function readProtobuf(statusCode: number, bytes: Buffer, call: Call, what: string): Promise<unknown> {
    const decodeOptions = { omitManagedFields: (call.opts as ListOptions).omitManagedFields };
    const codec = await loadCodec();
    if (statusCode < 200 || statusCode > 299) {
      // kube writes errors as a protobuf Status when asked for protobuf.
      let text = "";
      try {
        text = JSON.stringify(codec.decodeProtobuf(bytes));
      } catch {
        text = bytes.toString("utf8");
      }
      throw statusErrorFromResponse(statusCode, text, undefined, call.ctx);
    }
    if (bytes.length === 0) return undefined;
    try {
      return withItemTypes(codec.decodeProtobuf(bytes, undefined, decodeOptions));
    } catch (cause) {
      throw new NetworkError(
        `${what}: the server answered ${statusCode} with a protobuf body that does not decode (${(cause as Error).message}); ` +
          'set contentType: "application/json" on the REST client (or the config) to read JSON, and report it',
        { cause },
      );
    }
  }

  function ctxOf(method: string, resource: ResourceRef, name?: string): ErrorContext {
    return { method, resource: resource.resource, group: resource.group, name, credentials };
  }

  function writeQuery(opts: WriteOptions, extra?: Record<string, QueryValue>): string {
    return queryString({
      dryRun: opts.dryRun ? "All" : undefined,
      fieldManager: opts.fieldManager,
      fieldValidation: opts.fieldValidation,
      ...extra,
    });
  }

  function listQuery(opts: ListOptions | DeleteCollectionOptions): Record<string, QueryValue> {
    return {
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      limit: opts.limit,
      continue: opts.continue,
      resourceVersion: opts.resourceVersion,
      resourceVersionMatch: opts.resourceVersionMatch,
      timeoutSeconds: opts.timeoutSeconds,
    };
  }

  // client-go sends DeleteOptions typed with the resource's own group/version.
  function deleteBody(resource: ResourceRef, opts: DeleteOptions): object {
    const apiVersion = resource.group === "" ? resource.version : `${resource.group}/${resource.version}`;
    const body: Record<string, unknown> = { kind: "DeleteOptions", apiVersion };
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.preconditions !== undefined) body.preconditions = opts.preconditions;
    if (opts.propagationPolicy !== undefined) body.propagationPolicy = opts.propagationPolicy;
    if (opts.dryRun) body.dryRun = ["All"];
    return body;
  }

  return {
    transport,

    get(resource, name, opts = {}) {
      const { namespace, subresource } = opts;
      const path = resourcePath(resource, { namespace, name, subresource });
      const query = queryString({ resourceVersion: opts.resourceVersion });
      return send({
        method: "GET",
        path: path + query,
        group: resource.group,
        opts,
        ctx: ctxOf("GET", resource, name),
      }) as Promise<never>;
    },

    list(resource, opts = {}) {
      const path = resourcePath(resource, { namespace: opts.namespace });
      const query = queryString(listQuery(opts));
      // kube-apiserver writes an empty PartialObjectMetadataList's items as null (a nil Go slice):
      // callers get the empty array every list promises.
      const ctx = ctxOf("GET", resource);
      return send({ method: "GET", path: path + query, group: resource.group, opts, ctx }).then((list) => {
        const l = list as { items?: unknown[] | null } | undefined;
        if (l && typeof l === "object" && l.items == null) l.items = [];
        return l;
      }) as Promise<never>;
    },

    create(resource, object, opts = {}) {
      const namespace = opts.namespace ?? object.metadata?.namespace;
      const name = opts.subresource ? object.metadata?.name : undefined;
      const path = resourcePath(resource, { namespace, name, subresource: opts.subresource });
      const ctx = ctxOf("POST", resource, object.metadata?.name);
      const { group } = resource;
      return send({
        method: "POST",
        path: path + writeQuery(opts),
        object,
        group,
        opts,
        ctx,
      }) as Promise<never>;
    },

    update(resource, object, opts = {}) {
      const name = opts.name ?? object.metadata?.name;
      if (!name)
        throw new TypeError(`update of ${resource.resource}: the object has no metadata.name; set it`);
      const namespace = opts.namespace ?? object.metadata?.namespace;
      const path = resourcePath(resource, { namespace, name, subresource: opts.subresource });
      return send({
        method: "PUT",
        path: path + writeQuery(opts),
        object,
        group: resource.group,
        opts,
        ctx: ctxOf("PUT", resource, name),
      }) as Promise<never>;
    },

    patch(resource, name, patch, opts) {
      const contentType = PATCH_CONTENT_TYPES[opts.patchType];
      if (!contentType) {
        throw new TypeError(
          `patch of ${resource.resource}: unknown patchType ${JSON.stringify(opts.patchType)}; use json, merge, strategic or apply`,
        );
      }
      const path = resourcePath(resource, { namespace: opts.namespace, name, subresource: opts.subresource });
      const query = writeQuery(opts, { force: opts.force === undefined ? undefined : opts.force });
      const body = typeof patch === "string" ? patch : JSON.stringify(patch);
      const ctx = ctxOf("PATCH", resource, name);
      // The patch is JSON (kube reads no protobuf patches); the answer may be protobuf.
      const { group } = resource;
      return send({
        method: "PATCH",
        path: path + query,
        body,
        contentType,
        group,
        opts,
        ctx,
      }) as Promise<never>;
    },

    delete(resource, name, opts = {}) {
      const path = resourcePath(resource, { namespace: opts.namespace, name });
      return send({
        method: "DELETE",
        path,
        object: deleteBody(resource, opts),
        group: resource.group,
        opts,
        ctx: ctxOf("DELETE", resource, name),
      }) as Promise<never>;
    },

    deleteCollection(resource, opts = {}) {
      const path = resourcePath(resource, { namespace: opts.namespace }) + queryString(listQuery(opts));
      const object = deleteBody(resource, opts);
      const { group } = resource;
      return send({
        method: "DELETE",
        path,
        object,
        group,
        opts,
        ctx: ctxOf("DELETE", resource),
      }) as Promise<never>;
    },

    watch(resource, opts = {}) {
      const path = resourcePath(resource, { namespace: opts.namespace });
      const query = queryString({
        ...listQuery(opts),
        allowWatchBookmarks: opts.allowWatchBookmarks,
        sendInitialEvents: opts.sendInitialEvents,
        watch: true,
      });
      return openWatch(transport, {
        path: path + query,
        accept: acceptFor(resource.group, opts.accept, protobuf),
        opts,
        onWarning: opts.onWarning ?? clientWarning,
        ctx: ctxOf("GET", resource),
      });
    },

    request(opts) {
      const body =
        opts.body === undefined || typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
      const path = opts.path + (opts.query ? queryString(opts.query) : "");
      const method = opts.method ?? "GET";
      return send({
        method,
        path,
        body,
        contentType: opts.contentType,
        opts,
        ctx: { method, credentials },
        responseType: opts.responseType,
      }) as Promise<never>;
    },

    async close() {
      if (ownTransport) await transport.close();
    },
  };
}
