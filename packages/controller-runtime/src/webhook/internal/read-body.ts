// Reading a webhook request body: JSON only, bounded in size, as controller-runtime's http.go
// reads AdmissionReviews.
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * 7 MiB, controller-runtime's limit: an AdmissionReview holds at most two objects (old and new) of
 * up to 3 MiB each (etcd's 1.5 MiB request limit, doubled for JSON), plus under 1 MiB of the rest.
 */
export const maxRequestSize = 7 * 1024 * 1024;

export type BodyResult = { ok: true; body: unknown } | { ok: false; code: number; message: string };

/** Reads and parses the body; failures carry the HTTP code to report (400, 413). */
export async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit = maxRequestSize,
): Promise<BodyResult> {
  const tooLarge = {
    ok: false as const,
    code: 413,
    message: `request entity is too large; limit is ${limit} bytes`,
  };
  // Past the limit the body is read and thrown away so that the client, still sending, gets the
  // answer; past twice the limit the connection is closed after the answer instead.
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (declared > 2 * limit) {
    drop(req, res);
    return tooLarge;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Events rather than `for await`: leaving that loop early would destroy the socket before the
  // answer is written.
  const outcome = await new Promise<"end" | "drop" | Error>((resolve) => {
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > 2 * limit) {
        req.off("data", onData);
        req.pause();
        resolve("drop");
      }
    };
    req.on("data", onData);
    req.once("end", () => resolve("end"));
    req.once("error", (err) => resolve(err));
  });
  if (outcome instanceof Error) {
    return {
      ok: false,
      code: 400,
      message: `unable to read the body from the incoming request: ${outcome.message}`,
    };
  }
  if (outcome === "drop") {
    drop(req, res);
    return tooLarge;
  }
  if (size > limit) return tooLarge;
  const contentType = req.headers["content-type"] ?? "";
  if (contentType.split(";")[0]?.trim().toLowerCase() !== "application/json") {
    return { ok: false, code: 400, message: `contentType=${contentType}, expected application/json` };
  }
  if (size === 0) return { ok: false, code: 400, message: "request body is empty" };
  try {
    return { ok: true, body: JSON.parse(Buffer.concat(chunks, size).toString("utf8")) };
  } catch (err) {
    return { ok: false, code: 400, message: `unable to decode the request: ${(err as Error).message}` };
  }
}

// The rest of the body is not worth reading: answer, then close the connection rather than drain it.
function drop(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader("connection", "close");
  res.once("finish", () => {
    if (!req.complete) req.destroy();
  });
}

/** Writes `value` as a JSON body (a trailing newline, as Go's json.Encoder writes). */
export function writeJson(res: ServerResponse, status: number, value: unknown): void {
  const body = `${JSON.stringify(value)}\n`;
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}
