// The one error class of this folder: what went wrong, and what kube-apiserver answers for it.

/**
 * `BadRequest` (400): the patch document is malformed. `Invalid` (422): the patch is well formed
 * but cannot be applied (a failed `test`, a missing path, a list of lists). `InternalError` (500):
 * what kube-apiserver answers, with an empty reason, for strategic-patch failures it does not
 * classify (a list item without its merge key, an unknown `$patch` directive).
 */
export type PatchErrorReason = "BadRequest" | "Invalid" | "InternalError";

const CODES: Readonly<Record<PatchErrorReason, number>> = {
  BadRequest: 400,
  Invalid: 422,
  InternalError: 500,
};

export class PatchError extends Error {
  override readonly name = "PatchError";
  /** The HTTP status code kube-apiserver answers with. */
  readonly code: number;
  constructor(
    readonly reason: PatchErrorReason,
    message: string,
  ) {
    super(message);
    this.code = CODES[reason];
  }

  /**
   * The `message` of kube-apiserver's Status. A patch that cannot be applied (a JSON patch that
   * fails, a strategic patch with a list of lists) is answered with NewGenericServerResponse's
   * 422, whose generic sentence hides the detail; everything else carries the detail.
   */
  get statusMessage(): string {
    return this.reason === "Invalid"
      ? "the server rejected our request due to an error in our request"
      : this.message;
  }

  /** Set for errors raised while applying an RFC 6902 patch. */
  jsonPatch = false;
}

export function badRequest(message: string): PatchError {
  return new PatchError("BadRequest", message);
}
