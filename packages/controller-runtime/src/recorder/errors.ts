// Errors of the recorder, each a class with a stable `code`.

/**
 * `event()` was given a type other than `Normal` or `Warning`. client-go logs and drops such an
 * event; we throw at the call instead, because it is a programming error that a log line hides
 * (the API server itself would store any type: `kubectl get events` would then show it).
 */
export class InvalidEventTypeError extends TypeError {
  override readonly name = "InvalidEventTypeError";
  readonly code = "ERR_INVALID_EVENT_TYPE";
  constructor(type: unknown) {
    super(`invalid event type ${JSON.stringify(type)}: use "Normal" or "Warning"`);
  }
}
