// customValidator: a validating webhook that calls validateCreate, validateUpdate or
// validateDelete for the request's operation (controller-runtime's validator_custom.go).
import type { KubeObject, Kind } from "../../api/index.js";
import { allowed, deniedByError, errored, withWarnings } from "./response.js";
import type { AdmissionRequest, AdmissionResponse } from "./types.js";
import {
  type AdmissionContext,
  type AdmissionWebhook,
  type AdmissionWebhookOptions,
  newAdmissionWebhook,
} from "./webhook.js";
import { objectKindMismatch } from "./kind-check.js";

/** What a validation returns: warnings for the client (kubectl prints them), or nothing. */
export type ValidationWarnings = string[] | undefined;

/**
 * Validates objects of kind `T`. Return warnings (or nothing) to admit; throw to deny: a
 * `StatusError` keeps its Status (code, reason, details), any other error denies with 403
 * Forbidden and its message. A method left out admits that operation.
 */
export interface CustomValidator<T extends KubeObject> {
  validateCreate?(
    obj: T,
    req: AdmissionRequest,
    signal: AbortSignal,
    ctx?: AdmissionContext,
  ): ValidationWarnings | Promise<ValidationWarnings> | void | Promise<void>;
  validateUpdate?(
    oldObj: T,
    newObj: T,
    req: AdmissionRequest,
    signal: AbortSignal,
    ctx?: AdmissionContext,
  ): ValidationWarnings | Promise<ValidationWarnings> | void | Promise<void>;
  /** `obj` is the object being deleted (the request's oldObject). */
  validateDelete?(
    obj: T,
    req: AdmissionRequest,
    signal: AbortSignal,
    ctx?: AdmissionContext,
  ): ValidationWarnings | Promise<ValidationWarnings> | void | Promise<void>;
}

/** A validating admission webhook for `kind` that runs `validator`. */
export function withValidator<T extends KubeObject>(
  kind: Kind<T>,
  validator: CustomValidator<T>,
  opts: AdmissionWebhookOptions = {},
): AdmissionWebhook {
  return newAdmissionWebhook(
    {
      async handle(req, signal, ctx): Promise<AdmissionResponse> {
        let run: () => unknown;
        switch (req.operation) {
          case "CREATE": {
            const bad = objectKindMismatch(kind, req.object);
            if (bad) return bad;
            run = () => validator.validateCreate?.(req.object as T, req, signal, ctx);
            break;
          }
          case "UPDATE": {
            const bad =
              objectKindMismatch(kind, req.object) ?? objectKindMismatch(kind, req.oldObject, "oldObject");
            if (bad) return bad;
            run = () => validator.validateUpdate?.(req.oldObject as T, req.object as T, req, signal, ctx);
            break;
          }
          case "DELETE": {
            // The object being deleted comes as oldObject (kubernetes/kubernetes#76346).
            const bad = objectKindMismatch(kind, req.oldObject, "oldObject");
            if (bad) return bad;
            run = () => validator.validateDelete?.(req.oldObject as T, req, signal, ctx);
            break;
          }
          default:
            return errored(400, `unknown operation ${JSON.stringify(req.operation)}`);
        }
        let warnings: unknown;
        try {
          warnings = await run();
        } catch (err) {
          return deniedByError(err);
        }
        return withWarnings(allowed(), ...warningsOf(warnings));
      },
    },
    opts,
  );
}

function warningsOf(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((w): w is string => typeof w === "string" && w !== "") : [];
}
