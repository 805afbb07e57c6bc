// TerminalError: an error that retrying cannot fix (an invalid spec, say). The controller logs and
// counts it but does not queue the request again; the next change to the object triggers a new
// reconcile as usual.

/**
 * Throw (or reject with) a `TerminalError` to fail a reconcile without a retry. It may wrap the
 * error that caused it; subclasses are terminal too, and so is any error whose `cause` chain holds one.
 */
export class TerminalError extends Error {
  override readonly name: string = "TerminalError";
  readonly code: string = "ERR_TERMINAL";
  constructor(cause?: unknown) {
    super(`terminal error: ${describe(cause)}`, cause === undefined ? undefined : { cause });
  }
}

/** `new TerminalError(err)`: controller-runtime's `reconcile.TerminalError(err)`. */
export function terminalError(err?: unknown): TerminalError {
  return new TerminalError(err);
}

/** True when `err`, or an error in its `cause` chain, is a {@link TerminalError} (Go's `errors.Is`). */
export function isTerminalError(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = err; e instanceof Error && !seen.has(e); e = e.cause) {
    if (e instanceof TerminalError) return true;
    seen.add(e);
  }
  return false;
}

function describe(cause: unknown): string {
  if (cause === undefined) return "nil";
  if (cause instanceof Error) return cause.message;
  return String(cause);
}
