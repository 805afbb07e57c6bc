// customDefaulter: a mutating webhook that hands the request's object to the user's `default`,
// which changes it in place, and answers with the JSON patch from the original to the result.
// (controller-runtime's defaulter_custom.go.)
//
// controller-runtime's DefaulterRemoveUnknownOrOmitableFields option has no counterpart here: Go
// decodes into a struct, which drops unknown and zero-valued fields and would make the patch remove
// them; here the object is the JSON the API server sent, so nothing is lost on the way and the
// patch only holds what `default` changed (removals included).
import type { KubeObject, Kind } from "../../api/index.js";
import { cloneJSON } from "../../patch/index.js";
import { allowed, deniedByError, patched } from "./response.js";
import type { AdmissionRequest, AdmissionResponse } from "./types.js";
import {
  type AdmissionContext,
  type AdmissionWebhook,
  type AdmissionWebhookOptions,
  newAdmissionWebhook,
} from "./webhook.js";
import { objectKindMismatch } from "./kind-check.js";

/**
 * Sets defaults on an object of kind `T`, in place. Throw to deny the request: a `StatusError`
 * keeps its code and reason, any other error denies it with 403 Forbidden and its message.
 */
export interface CustomDefaulter<T extends KubeObject> {
  default(obj: T, req: AdmissionRequest, signal: AbortSignal, ctx?: AdmissionContext): void | Promise<void>;
}

/** A mutating admission webhook for `kind` that runs `defaulter` on CREATE and UPDATE. */
export function withDefaulter<T extends KubeObject>(
  kind: Kind<T>,
  defaulter: CustomDefaulter<T>,
  opts: AdmissionWebhookOptions = {},
): AdmissionWebhook {
  return newAdmissionWebhook(
    {
      async handle(req, signal, ctx): Promise<AdmissionResponse> {
        // Defaulting on DELETE is meaningless (and the request has no object): always admit.
        if (req.operation === "DELETE") return allowed();
        const obj = req.object;
        const bad = objectKindMismatch(kind, obj);
        if (bad) return bad;
        const original = obj as T;
        const mutated = cloneJSON(original);
        try {
          await defaulter.default(mutated, req, signal, ctx);
        } catch (err) {
          return deniedByError(err);
        }
        return patched(original, mutated);
      },
    },
    opts,
  );
}
