// How admission failures reach the client, in kube-apiserver's words: a webhook's denial
// (ToStatusErr), a webhook that could not be called (ErrCallingWebhook, fail-closed as a 500),
// and a webhook that cannot take part in a dry run.
import { ApiError, badRequest, internalError } from "../status.js";
import type { Obj } from "../storage/index.js";

/** A webhook that could not be called or answered unusably: `failurePolicy` decides. */
export class CallingWebhookError extends Error {
  override readonly name = "CallingWebhookError";
  readonly webhook: string;
  readonly reason: string;

  constructor(webhook: string, reason: string) {
    super(`failed calling webhook "${webhook}": ${reason}`);
    this.webhook = webhook;
    this.reason = reason;
  }
}

/** A denial as kube reports it: the webhook's Status with the message prefixed by the webhook name. */
export function deniedError(webhook: string, result: Obj | undefined): ApiError {
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const message = typeof result?.message === "string" ? result.message : "";
  const reason = typeof result?.reason === "string" ? result.reason : "";
  const text = message
    ? `${deniedBy}: ${message}`
    : reason
      ? `${deniedBy}: ${reason}`
      : `${deniedBy} without explanation`;
  // A Failure without a code becomes a 500 when kube writes it (ErrorToAPIStatus).
  const code = typeof result?.code === "number" && result.code !== 0 ? result.code : 500;
  const details = (result?.details ?? undefined) as ConstructorParameters<typeof ApiError>[3];
  return new ApiError(code, reason, text, details);
}

/** Fail-closed: the request fails with 500 InternalError naming the webhook. */
export function failedClosed(e: CallingWebhookError): ApiError {
  return internalError(e.message);
}

export function dryRunUnsupported(webhook: string): ApiError {
  return badRequest(`admission webhook "${webhook}" does not support dry run`);
}
