// The webhook server's errors, in one place: each a class with a stable `code` and `name`.

/** `register` was called twice for one path. */
export class DuplicateWebhookPathError extends Error {
  override readonly name = "DuplicateWebhookPathError";
  readonly code = "ERR_WEBHOOK_DUPLICATE_PATH";
  readonly path: string;
  constructor(path: string) {
    super(
      `can't register duplicate path: ${path}: a webhook is already registered there; ` +
        `register each webhook once, or give one of them another path`,
    );
    this.path = path;
  }
}

/** A path that does not start with "/", or holds a query or fragment. */
export class InvalidWebhookPathError extends Error {
  override readonly name = "InvalidWebhookPathError";
  readonly code = "ERR_WEBHOOK_INVALID_PATH";
  constructor(path: string) {
    super(
      `invalid webhook path ${JSON.stringify(path)}: use an absolute path such as "/validate-apps-v1-deployment"`,
    );
  }
}

export { CertificateLoadError } from "../certwatcher/errors.js";
