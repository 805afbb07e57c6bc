// ConfigError: every failure to find, read or use a kubeconfig, the in-cluster files or an exec
// credential plugin. One class with a stable `code`, so callers branch on the code, never on text.

/** Stable codes of {@link ConfigError}. */
export type ConfigErrorCode =
  /** No kubeconfig file, in-cluster environment or home config was found. */
  | "ERR_CONFIG_NOT_FOUND"
  /** A command-line flag (`--kubeconfig`, `--context`) is given without a value. */
  | "ERR_INVALID_FLAG"
  /** A kubeconfig file (or a file it names) could not be read. */
  | "ERR_KUBECONFIG_READ"
  /** A kubeconfig file is not valid YAML. */
  | "ERR_KUBECONFIG_SYNTAX"
  /** A kubeconfig parses but a field is missing, mistyped or names nothing. */
  | "ERR_KUBECONFIG_INVALID"
  /** The selected user uses an `auth-provider`, which this library does not implement. */
  | "ERR_AUTH_PROVIDER_UNSUPPORTED"
  /** Not running in a Pod: KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is unset. */
  | "ERR_NOT_IN_CLUSTER"
  /** In a Pod, but the service-account files could not be read. */
  | "ERR_IN_CLUSTER"
  /** A bearer token file could not be read. */
  | "ERR_TOKEN_FILE"
  /** An exec credential plugin is missing, failed, timed out or printed something unusable. */
  | "ERR_EXEC_PLUGIN";

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly code: ConfigErrorCode;

  constructor(code: ConfigErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Whether `err` is a {@link ConfigError}, optionally with the given code. */
export function isConfigError(err: unknown, code?: ConfigErrorCode): err is ConfigError {
  return err instanceof ConfigError && (code === undefined || err.code === code);
}
