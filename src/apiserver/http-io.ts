// Reading request bodies and writing responses: size limits, media types, Accept negotiation.
import { indentJson, isPrettyPrint } from "./pretty.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseJsonBounded, parseYamlBounded } from "./nesting.js";
import { ApiError, badRequest, notAcceptable, tooLarge } from "./status.js";

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

/** Picks the first entry of `Accept` the server can produce. */
export function negotiate(accept: string | undefined, tableSupported: boolean): ResponseForm {
  if (!accept) return "object";
  let sawAny = false;
  for (const entry of accept.split(",")) {
    const [type, ...params] = entry.split(";").map((s) => s.trim());
    const mt = type.toLowerCase();
    if (mt !== "application/json" && mt !== "*/*" && mt !== "application/*") {
      if (mt === "application/yaml" || mt === "application/vnd.kubernetes.protobuf") sawAny = true;
      continue;
    }
    const p: Record<string, string> = {};
    for (const kv of params) {
      const eq = kv.indexOf("=");
      if (eq > 0) p[kv.slice(0, eq).trim()] = kv.slice(eq + 1).trim();
    }
    if (p.as === undefined) return "object";
    if (p.g !== "meta.k8s.io" || (p.v !== "v1" && p.v !== "v1beta1")) continue;
    if (p.as === "Table") {
      if (tableSupported) return "Table";
      continue;
    }
    if (p.as === "PartialObjectMetadata" || p.as === "PartialObjectMetadataList") return p.as;
  }
  // Protobuf/YAML-only clients get JSON, which client-go and kubectl read whatever they asked.
  if (sawAny) return "object";
  throw notAcceptable();
}

export function sendJson(
  res: ServerResponse,
  code: number,
  body: string,
  headers: Record<string, string | string[]> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
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
  sendJson(res, err.code, JSON.stringify(err.toStatus()));
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
  const text = typeof body === "string" ? body : body.toString("utf8");
  const unrecognized = (why: string) =>
    badRequest(
      `the object provided is unrecognized (must be of type ${kind}): ${why} (${summarizeData(text)})`,
    );
  if (contentType === "application/yaml") {
    try {
      return parseYamlBounded(text);
    } catch (e) {
      throw unrecognized((e as Error).message);
    }
  }
  try {
    return parseJsonBounded(text);
  } catch (e) {
    throw unrecognized(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
}

/** apiserver's summarizeData: the first 30 bytes, as text for a JSON object, else in hex. */
function summarizeData(text: string): string {
  const data = Buffer.from(text.slice(0, 60), "utf8");
  if (data.length === 0) return "<empty>";
  const more = data.length > 30 || text.length > 60 ? " ..." : "";
  const head = data.subarray(0, 30);
  return (data[0] === 0x7b ? head.toString("utf8") : head.toString("hex")) + more;
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
