import type { KeyValues, Logger } from "./logger.js";

const discard: Logger = Object.freeze({
  info(_msg: string, _kv?: KeyValues): void {},
  error(_err: unknown, _msg: string, _kv?: KeyValues): void {},
  v: () => discard,
  enabled: () => false,
  withName: () => discard,
  withValues: () => discard,
});

/** A Logger that writes nothing: the default wherever a logger is optional. */
export function nullLogger(): Logger {
  return discard;
}
