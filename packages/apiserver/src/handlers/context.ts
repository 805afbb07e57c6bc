// What every handler receives: the server's shared state and one parsed resource request. The
// services that themselves build on requests (admission, conversion) appear here as the
// interfaces handlers call, so that this file imports nothing that imports it back.
import type { Faults, WatchFault } from "controller-runtime/envtest/faults";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AdmissionAttributes } from "../admission/types.js";
import type { OpenAPIService } from "../openapi/index.js";
import type { Registry, ResourceDefinition } from "../registry/index.js";
import type { TypeModels } from "../apply/index.js";
import type { PatternCache, Schema } from "../schema/index.js";
import type { ResourceRef } from "../status.js";
import type { Obj, Storage, StoredObject } from "../storage/index.js";
import type { WatchWindows } from "./watch-windows.js";

export interface UserInfo {
  name: string;
  groups: string[];
  /** Set for ServiceAccount tokens (the account's uid) and impersonated users who give one. */
  uid?: string;
  /** Further facts about the user (a bound token's pod), as kube's user.Info Extra. */
  extra?: Record<string, string[]>;
}

/** kube's authorizer.Attributes: who asks to do what to which object or path. */
export interface AccessAttributes {
  user: UserInfo;
  verb: string;
  /** False for paths outside `/api/{v}/…` and `/apis/{g}/{v}/…` (discovery, health, openapi). */
  resourceRequest: boolean;
  /** The request path (for non-resource requests). */
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface AccessDecision {
  allowed: boolean;
  /** Which binding allowed it, or why bindings could not be resolved; may be empty. */
  reason: string;
}

/** An rbac/v1 PolicyRule. */
export interface AccessRule {
  verbs: readonly string[];
  apiGroups?: readonly string[];
  resources?: readonly string[];
  resourceNames?: readonly string[];
  nonResourceURLs?: readonly string[];
}

/** What handlers ask of the authorizer (authz/authorization.ts's Authorization). */
export interface AuthorizationService {
  /** Throws kube's 403 when a Role, ClusterRole or binding grants what its author does not hold. */
  checkGrant(r: ResourceRequest, obj: Obj, old: Readonly<Obj> | undefined): void;
  /** The decision on a request, as a SubjectAccessReview reports it (nothing is recorded). */
  decide(a: AccessAttributes): AccessDecision;
  /** The rules a user holds in a namespace, and the bindings that could not be resolved. */
  rulesFor(user: UserInfo, namespace: string): { rules: readonly AccessRule[]; errors: readonly string[] };
}

/** What handlers ask of the authenticator (TokenReview) and the ServiceAccount token issuer. */
export interface AuthenticationService {
  reviewToken(
    token: string,
    audiences: readonly string[] | undefined,
  ): { user: UserInfo; audiences: string[] } | { error: string };
  readonly apiAudiences: readonly string[];
  /** ServiceAccount issuer discovery: the OpenID configuration and the verifying keys. */
  openIDConfiguration(): object;
  jwks(): object;
  issueToken(
    sa: { namespace: string; name: string; uid: string },
    audiences: readonly string[],
    expirationSeconds: number,
    bound?: { kind: "Pod" | "Secret"; name: string; uid: string },
  ): { token: string; expires: Date };
}

/** Reactions to changes that kube-apiserver and its controllers perform (namespaces, CRDs, GC). */
export interface ChangeHooks {
  /** Once the server serves (after its bootstrap objects): its own controllers start. */
  serving?(): void;
  /** Before a create commits: may throw an ApiError (e.g. a namespace being terminated). */
  beforeCreate(def: ResourceDefinition, obj: Obj): void;
  /** After an object was written (created or updated). */
  afterWrite(def: ResourceDefinition, stored: StoredObject, prev: StoredObject | undefined): void;
  /** After an object left storage. */
  afterDelete(def: ResourceDefinition, stored: StoredObject): void;
}

export interface ServerLimits {
  /** Default: 3 MiB. */
  maxBodyBytes: number;
  /** Bytes a watcher may have unread before it is cut off. Default: 16 MiB. */
  watchBufferBytes: number;
  /** Default: 60 s. */
  bookmarkIntervalMs: number;
  /** Watch length when the client sets no timeoutSeconds. Default: 1800 s. */
  defaultWatchTimeoutSeconds: number;
}

/** Admission webhooks as the write path calls them (admission/dispatch.ts's Admission). */
export interface AdmissionService {
  /** Whether any webhook configuration exists at all. */
  hasWebhooks(): boolean;
  /** Whether any webhook matches the request. */
  interested(attrs: AdmissionAttributes): boolean;
  /** Runs the mutating webhooks; the mutated object, or undefined when none changed it. */
  mutate(attrs: AdmissionAttributes, warnings: string[]): Promise<Obj | undefined>;
  validate(attrs: AdmissionAttributes, warnings: string[]): Promise<void>;
}

/** Custom resources between their CRD's versions (conversion/converter.ts's Conversion). */
export interface ConversionService {
  /** Whether the resource's CRD converts through a webhook. */
  usesWebhook(def: ResourceDefinition): boolean;
  /** Objects in `to`'s version. */
  convert(to: ResourceDefinition, objects: readonly Readonly<Obj>[]): Promise<Obj[]>;
  /** Stored objects as `def`'s version serves them. */
  views(def: ResourceDefinition, stored: readonly StoredObject[]): Promise<StoredObject[]>;
}

export interface ServerContext {
  readonly storage: Storage;
  readonly registry: Registry;
  readonly limits: ServerLimits;
  readonly hooks: ChangeHooks;
  /** Admission webhooks (Mutating/ValidatingWebhookConfigurations). Default: none are called. */
  readonly admission?: AdmissionService;
  /** Custom resources between the versions of their CRD. Default: apiVersion rewritten only. */
  readonly conversion?: ConversionService;
  /** Who may do what: access reviews and the escalation guard on RBAC writes. Default: none. */
  readonly authorization?: AuthorizationService;
  /** Token reviews and ServiceAccount tokens. Default: none (their endpoints answer 404). */
  readonly authentication?: AuthenticationService;
  /** /openapi/v2 and /openapi/v3, with their caches. */
  readonly openapi: OpenAPIService;
  /** ObjectMeta's schema, built once per server, for the unknown-field walks. */
  objectMetaSchema(): Schema;
  /** Schema patterns compiled once per schema node. */
  readonly patterns: PatternCache;
  /** Object types (for field management) built once per definition. */
  readonly types: TypeModels;
  /** Where each resource's watch history begins (older versions are 410 Expired). */
  readonly watchWindows: WatchWindows;
  /** Aborted when the server stops: open watches end. */
  readonly signal: AbortSignal;
  /** Faults a test asked for (`RunningAPIServer.faults`). */
  readonly faults: Faults;
  now(): Date;
}

export interface ResourceRequest {
  readonly server: ServerContext;
  readonly def: ResourceDefinition;
  /** "" for cluster-scoped requests and lists across namespaces. */
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
  readonly query: URLSearchParams;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly user: UserInfo;
  /** A fault to act out on this watch (an injected drop or expiry). */
  readonly watchFault?: WatchFault;
  /** An injected lag: a read at resourceVersion=0 answers the state this many versions ago. */
  readonly staleBy?: number;
}

export function refOf(def: ResourceDefinition): ResourceRef {
  return { group: def.group, resource: def.plural, kind: def.kind };
}
