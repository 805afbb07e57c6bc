// List continue tokens in kube's shape: base64url JSON of the snapshot version and the next key.
import { badRequest } from "../status.js";

export interface ContinueToken {
  rv: number;
  /** Keys strictly after this one come next. */
  start: string;
}

export function encodeContinue(rv: number, lastKey: string): string {
  const json = JSON.stringify({ v: "meta.k8s.io/v1", rv, start: `${lastKey}\u0000` });
  return Buffer.from(json).toString("base64url");
}

export function decodeContinue(token: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as {
      v?: unknown;
      rv?: unknown;
      start?: unknown;
    };
    if (parsed.v !== "meta.k8s.io/v1" || typeof parsed.rv !== "number" || typeof parsed.start !== "string") {
      throw new Error("unexpected content");
    }
    return {
      rv: parsed.rv,
      start: parsed.start.endsWith("\u0000") ? parsed.start.slice(0, -1) : parsed.start,
    };
  } catch (e) {
    throw badRequest(`continue key is not valid: ${(e as Error).message}`);
  }
}
