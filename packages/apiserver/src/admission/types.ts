// What admission works with: the attributes of one request (kube's admission.Attributes) and the
// webhooks of the stored Mutating/ValidatingWebhookConfigurations with kube's v1 defaults applied.
import type { LabelSelector } from "controller-runtime/api";
import type { ResourceDefinition } from "../registry/index.js";
import type { Obj } from "../storage/index.js";

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** One request as admission sees it. */
export interface AdmissionAttributes {
  /** The resource in the version the client used. */
  def: ResourceDefinition;
  operation: Operation;
  /** "" for cluster-scoped objects; a namespace's own name for namespaces, as kube's RequestInfo. */
  namespace: string;
  /** "" on a create with generateName. */
  name: string;
  subresource: string;
  /** The new object: absent for DELETE. */
  object: Obj | undefined;
  /** The stored object: for UPDATE and DELETE. */
  oldObject: Readonly<Obj> | undefined;
  /** CreateOptions, UpdateOptions or DeleteOptions, as the webhook receives them. */
  options: Obj;
  dryRun: boolean;
  user: { name: string; groups: string[] };
  /**
   * kube's ObjectDefaulter for this request: fills in place the defaults of `obj`, an object of
   * the kind in the version `def`. kube runs it on what each mutating policy's mutation and each
   * mutating webhook returns, so the next one reads a defaulted object. Absent: nothing is.
   */
  defaults?: (def: ResourceDefinition, obj: Obj) => void;
}

/** How to reach a webhook: `clientConfig` of the configuration. */
export interface ClientConfig {
  url?: string;
  service?: { namespace: string; name: string; port?: number; path?: string };
  /** Base64 PEM bundle the webhook's serving certificate must chain to. */
  caBundle?: string;
}

/** What decides whether a webhook or an admission policy sees a request. */
export interface Matchable {
  rules: ResolvedRule[];
  matchPolicy: "Exact" | "Equivalent";
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
}

/** A webhook of either kind, with every v1 default applied. */
export interface ResolvedWebhook extends Matchable {
  mutating: boolean;
  configurationName: string;
  /** Position within its configuration, for a stable identity across rounds. */
  index: number;
  name: string;
  clientConfig: ClientConfig;
  rules: ResolvedRule[];
  failurePolicy: "Fail" | "Ignore";
  matchPolicy: "Exact" | "Equivalent";
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
  /** Undefined when the configuration set none (v1beta1 objects). */
  sideEffects: string | undefined;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: "Never" | "IfNeeded";
  /** A selector that did not parse: every request it would see fails (with failurePolicy). */
  selectorError: string | undefined;
  /** CEL conditions that must all hold for the webhook to be called (none: always). */
  matchConditions: { name: string; expression: string }[];
}

export interface ResolvedRule {
  /** Object names the rule is limited to (admission policies' resourceNames); none: any. */
  resourceNames?: string[];
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  /** "*", "Cluster" or "Namespaced". */
  scope: string;
}

/** The AdmissionResponse fields admission reads, checked by `verifyAdmissionResponse`. */
export interface VerifiedResponse {
  allowed: boolean;
  patch: Buffer | undefined;
  patchType: string;
  result: Obj | undefined;
  warnings: string[];
}
