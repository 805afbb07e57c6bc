// A Transport (controller-runtime/rest) whose requests go to a ServerCore in this process: the
// REST client, the Client and everything above them run unchanged, and the server answers as it
// answers over HTTPS, with no socket, TLS, HTTP parser or event-loop turn for the network.
import type { IncomingHttpHeaders } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import {
  DEFAULT_USER_AGENT,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from "controller-runtime/rest";
import type { UserInfo } from "../handlers/context.js";
import type { ServerCore } from "../server.js";
import { asNode, InProcessBody, InProcessRequest, InProcessResponse } from "./in-process.js";

/** The admin every in-process request is made as: `system:masters` may do anything. */
const admin: UserInfo = { name: "admin", groups: ["system:masters", "system:authenticated"] };
const authenticateAdmin = () => admin;

/** Shown in `/api`'s serverAddressByClientCIDRs: there is no address. */
const SERVER_ADDRESS = "in-process";
export const IN_PROCESS_HOST = "https://in-process.invalid";

/** As the HTTP transport's: a 429 or 5xx with a `Retry-After` of at most a minute is sent again. */
const MAX_RETRIES = 10;
const MAX_RETRY_AFTER_SECONDS = 60;

function retryAfterOf(res: TransportResponse): number | undefined {
  if (res.statusCode !== 429 && res.statusCode < 500) return undefined;
  const header = res.headers["retry-after"];
  const seconds = Number((Array.isArray(header) ? header[0] : header)?.trim() || Number.NaN);
  return Number.isInteger(seconds) && seconds >= 0 && seconds <= MAX_RETRY_AFTER_SECONDS
    ? seconds
    : undefined;
}

/** The request's headers as Node hands them to a server: lower-cased, with the user agent the
 * HTTP transport sends (the server names the field manager of a write after it). */
function lowerCased(headers: Record<string, string> | undefined): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = { "user-agent": DEFAULT_USER_AGENT };
  if (headers) for (const k in headers) out[k.toLowerCase()] = headers[k];
  return out;
}

/** A Transport serving every request from `core`, as its admin. */
export function inProcessTransport(core: ServerCore): Transport {
  let closed = false;
  const open = new Set<InProcessBody>();

  function sendOnce(req: TransportRequest): Promise<TransportResponse> {
    const { signal } = req;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const headers = lowerCased(req.headers);
    const bytes =
      req.body === undefined
        ? undefined
        : typeof req.body === "string"
          ? Buffer.from(req.body)
          : Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength);
    if (bytes !== undefined) headers["content-length"] = String(bytes.length);
    const request = new InProcessRequest(req.method, req.path, headers, bytes);
    return new Promise<TransportResponse>((resolve, reject) => {
      const body = new InProcessBody((statusCode, resHeaders) => {
        if (signal) {
          signal.removeEventListener("abort", onAbortBeforeHead);
          signal.addEventListener("abort", onAbortAfterHead, { once: true });
        }
        resolve({ statusCode, headers: resHeaders, body: body as never });
      });
      const response = new InProcessResponse(request, body);
      body.attach(response);
      open.add(body);
      response.once("close", () => {
        open.delete(body);
        signal?.removeEventListener("abort", onAbortAfterHead);
      });
      // As undici: an abort before the answer rejects the request; after, it fails the body.
      const onAbortBeforeHead = () => {
        request.destroy();
        body.destroy(signal?.reason);
        reject(signal?.reason);
      };
      const onAbortAfterHead = () => body.destroy(signal?.reason);
      signal?.addEventListener("abort", onAbortBeforeHead, { once: true });
      const [nodeReq, nodeRes] = asNode(request, response);
      core.serve(nodeReq, nodeRes, authenticateAdmin, SERVER_ADDRESS);
    });
  }

  async function send(req: TransportRequest): Promise<TransportResponse> {
    if (closed) throw new Error("the fake client is closed; build a new one to send requests");
    for (let retries = 0; ; retries++) {
      const res = await sendOnce(req);
      const wait = retries < MAX_RETRIES ? retryAfterOf(res) : undefined;
      if (wait === undefined) return res;
      await res.body.dump();
      await sleep(wait * 1000, undefined, { signal: req.signal });
    }
  }

  return {
    baseUrl: IN_PROCESS_HOST,
    send,
    async close() {
      closed = true;
    },
    async destroy() {
      closed = true;
      for (const body of open) body.destroy();
    },
  };
}
