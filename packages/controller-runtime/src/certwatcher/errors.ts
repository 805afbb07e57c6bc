// The error of a certificate that cannot be served.

/** The serving certificate, its key or the client CA could not be read, or do not fit together. */
export class CertificateLoadError extends Error {
  override readonly name = "CertificateLoadError";
  readonly code = "ERR_WEBHOOK_CERTIFICATE";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
