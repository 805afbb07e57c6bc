/** @module controller-runtime/log */
// log: structured logging with logr's shape (`info`, `error`, `v`, `withName`, `withValues`)
// over pino; JSON lines by default, zap's console layout for terminals, kubebuilder's zap flags.
export type { KeyValues, Logger, LoggerOptions, LogLevel, TimeEncoding } from "./logger.js";
export { InvalidLogLevelError, newLogger, stackOf } from "./logger.js";
export { nullLogger } from "./null-logger.js";
export { LogFlagError, loggerFromFlags, parseLogFlags } from "./flags.js";
export { formatConsoleLine } from "./console-format.js";
export { log, loggerSet, setLogger } from "./global-logger.js";
