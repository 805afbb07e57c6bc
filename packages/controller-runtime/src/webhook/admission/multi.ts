// Several handlers as one webhook (controller-runtime's MultiMutatingHandler and
// MultiValidatingHandler): each sees the request as the API server sent it, the first denial
// answers, and otherwise their patches and warnings are joined.
import { errored, patchedWith, patchOperations, withWarnings, allowed } from "./response.js";
import type { AdmissionResponse } from "./types.js";
import type { Handler } from "./webhook.js";

/**
 * Runs `handlers` in order on the same request; the first that denies answers. Otherwise the
 * answer allows it with every handler's JSON patch operations, in order, and their warnings.
 */
export function multiMutatingHandler(...handlers: Handler[]): Handler {
  return {
    async handle(req, signal, ctx) {
      const ops: ReturnType<typeof patchOperations> = [];
      const warnings: string[] = [];
      for (const h of handlers) {
        const resp: AdmissionResponse = await h.handle(req, signal, ctx);
        if (!resp.allowed) return resp;
        if (resp.patchType !== undefined && resp.patchType !== "JSONPatch") {
          return errored(
            500,
            `unexpected patch type returned by the handler: ${resp.patchType}, only allow: JSONPatch`,
          );
        }
        ops.push(...patchOperations(resp));
        warnings.push(...(resp.warnings ?? []));
      }
      return withWarnings(patchedWith(ops), ...warnings);
    },
  };
}

/** Runs `handlers` in order on the same request; the first that denies answers, else it is allowed with their warnings. */
export function multiValidatingHandler(...handlers: Handler[]): Handler {
  return {
    async handle(req, signal, ctx) {
      const warnings: string[] = [];
      for (const h of handlers) {
        const resp = await h.handle(req, signal, ctx);
        if (!resp.allowed) return resp;
        warnings.push(...(resp.warnings ?? []));
      }
      return withWarnings(allowed(), ...warnings);
    },
  };
}
