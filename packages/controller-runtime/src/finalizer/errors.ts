// Errors of the finalizer registry, each a class with a stable `code`.

/** `register` was given a key that already has a finalizer. */
export class FinalizerAlreadyRegisteredError extends Error {
  override readonly name = "FinalizerAlreadyRegisteredError";
  readonly code = "ERR_FINALIZER_ALREADY_REGISTERED";
  constructor(readonly key: string) {
    super(`finalizer for key ${JSON.stringify(key)} already registered; register each key once`);
  }
}

/**
 * One or more finalizers failed (their keys stay on the object, so they run again on the next
 * reconcile). The message is apimachinery's aggregate: one error alone, several as `[a, b]`.
 */
export class FinalizeError extends AggregateError {
  override readonly name = "FinalizeError";
  readonly code = "ERR_FINALIZE";
  constructor(
    /** The keys whose finalizers failed, in the order they ran. */
    readonly keys: string[],
    errors: Error[],
  ) {
    const messages = [...new Set(errors.map((e) => e.message))];
    super(errors, messages.length === 1 ? messages[0] : `[${messages.join(", ")}]`);
  }
}
