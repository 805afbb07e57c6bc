// Authentication in the embedded API server: client certificates, static and ServiceAccount
// bearer tokens, and impersonation.
export { Authenticator, anonymous, type TokenUser } from "./authenticator.js";
export { ImpersonationModes, impersonate } from "./impersonation.js";
export {
  type BoundObject,
  type ServiceAccountRef,
  ServiceAccountTokens,
  serviceAccountGroups,
  splitServiceAccountUser,
  TokenError,
} from "./service-account-tokens.js";
