// Reading request bodies and writing responses: size limits, media types, Accept negotiation.
import { indentJson, isPrettyPrint } from "./pretty.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { JsonDepthError, parseJsonBounded, readYaml, type YamlRead } from "./nesting.js";
import { protobufCodec } from "./lazy.js";
import {
  DEFAULT_RESTRICTIONS,
  KUBE_SERIALIZERS,
  negotiateMediaTypeOptions,
  PROTOBUF_SERIALIZER,
} from "./accept.js";
import { ApiError, badRequest, PageNotFoundError, tooLarge } from "./status.js";
import type { AnswerForm } from "./answer-response.js";

/**
 * Reads the whole body, failing with 413 past `limit` bytes. Listens for the stream's events
 * rather than iterating it: every write reads a body, and the async iterator's machinery costs
 * more than the usual single chunk.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    // Listeners stay attached once settled (the request ends or is destroyed right after);
    // inline callbacks, as tsx wraps every named function expression in a naming helper.
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        // As the iterator did when its loop threw: the rest is not read, the connection ends.
        settled = true;
        req.resume();
        reject(tooLarge(limit));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on("error", (e: Error) => {
      if (settled) return;
      settled = true;
      reject(e);
    });
    // A client that goes away mid-body: the stream closes without an end (as the iterator's
    // premature-close error).
    req.on("close", () => {
      if (settled) return;
      settled = true;
      reject(Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
    });
  });
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0].trim().toLowerCase();
}

/** The representation a client asked for in `Accept`. */
export type ResponseForm = "object" | "PartialObjectMetadata" | "PartialObjectMetadataList" | "Table";

/** The serializers kube-apiserver offers, in the order its errors list them. */
export const SERIALIZERS = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/**
 * How kube writes an error (responsewriters.ErrorNegotiated): in the serializer `Accept`
 * negotiates without any transform, protobuf included; when none fits, as json.MarshalIndent
 * writes it.
 */
function errorEncoding(accept: string | undefined): "json" | "protobuf" | "raw" {
  const options = negotiateMediaTypeOptions(accept, KUBE_SERIALIZERS, DEFAULT_RESTRICTIONS);
  if (!options) return "raw";
  return options.accepted === PROTOBUF_SERIALIZER ? "protobuf" : "json";
}

/** Whether the request came over HTTP/2, where hop-by-hop headers are forbidden. */
export function isHttp2(res: ServerResponse): boolean {
  return (res as { stream?: unknown }).stream !== undefined;
}

/**
 * Whether writes should wait for 'drain'. HTTP/2 responses have no writableNeedDrain: their
 * buffered length against the high-water mark says the same.
 */
export function needsDrain(res: ServerResponse): boolean {
  if (res.writableNeedDrain !== undefined) return res.writableNeedDrain;
  return res.writableLength >= res.writableHighWaterMark;
}

export const PROTOBUF_MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

/** Answers on `res` go out as protobuf where kube has a message for them. */
export function answerInProtobuf(res: ServerResponse): void {
  (res as AnswerForm).protobufAnswer = true;
}

export function isProtobufResponse(res: ServerResponse): boolean {
  return (res as AnswerForm).protobufAnswer === true;
}

/** Records the version a request asked its Table or PartialObjectMetadata in (`meta.k8s.io/v1beta1`). */
export function answerInMetaVersion(res: ServerResponse, apiVersion: string): void {
  if (apiVersion !== "meta.k8s.io/v1") (res as AnswerForm).metaApiVersion = apiVersion;
}

/** `meta.k8s.io/v1`, or the version the request negotiated for its Table or PartialObjectMetadata. */
export function metaApiVersionOf(res: ServerResponse): string {
  return (res as AnswerForm).metaApiVersion ?? "meta.k8s.io/v1";
}

/**
 * An answer already in protobuf (a list encoded from the stored objects), or its bytes as latin1
 * text (one character a byte: Node writes text in one go with the response's head).
 */
export function sendProtobufBytes(res: ServerResponse, code: number, bytes: Uint8Array | string): void {
  res.writeHead(code, {
    "Content-Type": PROTOBUF_MEDIA_TYPE,
    "Cache-Control": "no-cache, private",
    "Content-Length": bytes.length,
  });
  if (typeof bytes === "string") res.end(bytes, "latin1");
  else res.end(bytes);
}

/**
 * `body` in protobuf: encoded from `source`, the object `body` was written from, when the caller
 * holds it (a stored object: reading the JSON back cost a get more than encoding it).
 */
export function sendProtobuf(
  res: ServerResponse,
  code: number,
  body: string,
  headers: Record<string, string | string[]>,
  source?: Record<string, unknown>,
): boolean {
  let bytes: Buffer | undefined;
  try {
    bytes = protobufCodec.get().encodeProtobuf(source ?? JSON.parse(body));
  } catch {
    return false;
  }
  if (!bytes) return false;
  res.writeHead(code, {
    "Content-Type": PROTOBUF_MEDIA_TYPE,
    "Cache-Control": "no-cache, private",
    "Content-Length": bytes.length,
    ...withEarlierWarnings(res, headers),
  });
  res.end(bytes);
  return true;
}

/**
 * Answers `body`, or its protobuf form when negotiated; `source` is the object `body` is the JSON
 * of (same apiVersion and kind), when the caller holds it.
 */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: string,
  headers: Record<string, string | string[]> = {},
  source?: Record<string, unknown>,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if ((res as AnswerForm).protobufAnswer === true && sendProtobuf(res, code, body, headers, source)) return;
  writeJson(res, code, body, headers);
}

/**
 * Warnings a response already carries (a deprecated resource's, set before its handler ran, as
 * kube's AddWarningsHandler records them) come first, then the handler's own.
 */
export function addWarnings(res: ServerResponse, values: readonly string[]): void {
  const had = res.getHeader("warning");
  const before = had === undefined ? [] : Array.isArray(had) ? had : [String(had)];
  res.setHeader("Warning", [...before, ...values.filter((v) => !before.includes(v))]);
}

/** `headers` with its Warning merged into those the response already carries. */
function withEarlierWarnings(
  res: ServerResponse,
  headers: Record<string, string | string[]>,
): Record<string, string | string[]> {
  const own = headers.Warning;
  if (own === undefined || res.getHeader("warning") === undefined) return headers;
  addWarnings(res, Array.isArray(own) ? own : [own]);
  const { Warning: _, ...rest } = headers;
  return rest;
}

function writeJson(
  res: ServerResponse,
  code: number,
  body: string,
  headers0: Record<string, string | string[]>,
): void {
  const headers = withEarlierWarnings(res, headers0);
  // kube's JSON serializer is Go's json.Encoder, which ends every value with a newline; pretty
  // output is json.MarshalIndent's, which does not.
  const text = isPrettyPrint(res.req) ? indentJson(body) : `${body}\n`;
  res.writeHead(code, {
    "Content-Type": "application/json",
    "Cache-Control": "no-cache, private",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: ApiError): void {
  if (err instanceof PageNotFoundError && !res.headersSent) {
    sendText(res, 404, "404 page not found\n");
    return;
  }
  const body = JSON.stringify(err.toStatus());
  if (res.headersSent) {
    res.end();
    return;
  }
  const encoding = errorEncoding(res.req?.headers.accept);
  if (encoding === "protobuf" && !protobufCodec.loaded) {
    // Refused before the router loaded the codec (authentication, authorization).
    protobufCodec.load().then(
      () => sendProtobuf(res, err.code, body, {}) || writeJson(res, err.code, body, {}),
      () => writeJson(res, err.code, body, {}),
    );
    return;
  }
  if (encoding === "protobuf" && sendProtobuf(res, err.code, body, {})) return;
  if (encoding !== "raw") {
    writeJson(res, err.code, body, {});
    return;
  }
  const text = indentJson(body);
  res.writeHead(err.code, {
    "Content-Type": "application/json",
    "Cache-Control": "no-cache, private",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendText(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, {
    "Content-Type": "text/plain; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache, private",
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(body);
}

/** Parses a JSON or YAML body (bytes, or text already decoded), with kube's 400 wording for what cannot be decoded. */
export function decodeBody(body: Buffer | string, contentType: string, kind: string): unknown {
  return decodeBodyRead(body, contentType, kind).value;
}

/** decodeBody, with a YAML body's repeated keys (go-yaml's strict errors) beside the value. */
export function decodeBodyRead(body: Buffer | string, contentType: string, kind: string): YamlRead {
  const text = typeof body === "string" ? body : body.toString("utf8");
  const unrecognized = (why: string) =>
    badRequest(
      `the object provided is unrecognized (must be of type ${kind}): ${why} (${summarizeData(text)})`,
    );
  if (contentType === "application/yaml") {
    try {
      return readYaml(text);
    } catch (e) {
      // The YAML read, the JSON it became may still nest past the JSON decoder's limit.
      if (e instanceof JsonDepthError)
        throw unrecognized(`couldn't get version/kind; json parse error: ${e.message}`);
      throw unrecognized((e as Error).message);
    }
  }
  try {
    return { value: parseJsonBounded(text), duplicates: [] };
  } catch (e) {
    throw unrecognized(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
}

/** apiserver's summarizeData: the first 30 bytes, as text for a JSON object, else in hex. */
export function summarizeData(text: string): string {
  const data = Buffer.from(text.slice(0, 60), "utf8");
  if (data.length === 0) return "<empty>";
  const more = data.length > 30 || text.length > 60 ? " ..." : "";
  const head = data.subarray(0, 30);
  return (data[0] === 0x7b ? head.toString("utf8") : head.toString("hex")) + more;
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
