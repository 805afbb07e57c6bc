/** @module controller-runtime/rest */
// rest: reaching the API server. Transport (pooled TLS connections, credentials, rate limits),
// the REST client for any resource, Status errors and their helpers, watch-stream decoding.
export type { ErrorContext } from "./errors.js";
export {
  NetworkError,
  StatusError,
  WatchDecodeError,
  parseRetryAfter,
  statusErrorFromResponse,
} from "./errors.js";
export type { RateLimiter, TokenBucketOptions } from "./rate-limiter.js";
export { newTokenBucket } from "./rate-limiter.js";
export type { PathParts, QueryValue, ResourceRef } from "./resource-path.js";
export { groupVersionPath, queryString, resourceOf, resourcePath } from "./resource-path.js";
export type { RESTClient, RESTClientOptions } from "./rest-client.js";
export { newRESTClient } from "./rest-client.js";
export type {
  CallOptions,
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  RawRequestOptions,
  UpdateOptions,
  WatchOptions,
  WriteOptions,
} from "./rest-options.js";
export { ACCEPT_PARTIAL_METADATA, ACCEPT_PARTIAL_METADATA_LIST, ACCEPT_TABLE } from "./rest-options.js";
export {
  ignoreAlreadyExists,
  ignoreNotFound,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isMethodNotSupported,
  isNotAcceptable,
  isNotFound,
  isRequestEntityTooLarge,
  isResourceExpired,
  isServerTimeout,
  isServiceUnavailable,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  isUnsupportedMediaType,
  retryAfterSeconds,
} from "./status-reasons.js";
export type {
  RequestDoneInfo,
  Transport,
  TransportOptions,
  TransportRequest,
  TransportResponse,
} from "./transport.js";
export { newTransport, DEFAULT_USER_AGENT } from "./transport.js";
export type { DecodeWatchOptions, WatchEvent, WatchEventType } from "./watch.js";
export { decodeWatchStream } from "./watch.js";
export type { OpenWatchRequest, WatchStream } from "./watch-stream.js";
export type { Warning, WarningHandler, WarningLoggerOptions } from "./warnings.js";
export { parseWarningHeader, warningLogger } from "./warnings.js";
export type { AuthConfig, ExecConfig, RESTConfig, TLSConfig } from "./config.js";
export type { ConfigErrorCode } from "./config-error.js";
export { ConfigError, isConfigError } from "./config-error.js";
export type { CredentialSource, CredentialSourceOptions } from "./credentials.js";
export { newCredentialSource, describeCredentials } from "./credentials.js";
export type { ExecClusterInfo, ExecCredentialResult, RunExecPluginOptions } from "./exec-credential.js";
export { isSupportedExecVersion, parseExecCredential, runExecPlugin } from "./exec-credential.js";
export type { GetConfigOptions, KubeconfigContextOptions } from "./get-config.js";
export { configFromKubeconfig, getConfig } from "./get-config.js";
export type { InClusterOptions } from "./in-cluster.js";
export { defaultServiceAccountDir, inClusterConfig } from "./in-cluster.js";
export type {
  Kubeconfig,
  KubeconfigCluster,
  KubeconfigContext,
  KubeconfigUser,
  Named,
} from "./kubeconfig.js";
export { loadKubeconfig, parseKubeconfig } from "./kubeconfig.js";
export { renderKubeconfig } from "./kubeconfig-write.js";
export type { Timers } from "./abortable.js";
export { abortable, sleep } from "./abortable.js";
// Deprecated names, kept for one release.
export type { RestClient, RestClientOptions, RestConfig } from "./deprecated.js";
export {
  createCredentialSource,
  createRestClient,
  createTokenBucket,
  createTransport,
} from "./deprecated.js";
