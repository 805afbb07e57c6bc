// The admission.k8s.io wire types (v1; v1beta1 has the same shape). kubernetes-types has none, so
// they are written out here from k8s.io/api/admission/v1/types.go.
import type { UserInfo } from "kubernetes-types/authentication/v1.js";
import type { Status } from "kubernetes-types/meta/v1.js";
import type { GroupVersionKind, GroupVersionResource, KubeObject } from "../../api/index.js";

/** The group of AdmissionReview: `admission.k8s.io`. */
export const admissionGroup = "admission.k8s.io";

/** The AdmissionReview versions this package decodes and answers in. */
export const admissionReviewVersions = ["v1", "v1beta1"] as const;

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** An admission request as the API server sends it. */
export interface AdmissionRequest {
  /** Identifies this call; the response must echo it. */
  uid: string;
  /** The kind of the object being submitted (after conversion to the webhook's matched version). */
  kind: GroupVersionKind;
  /** The resource being requested (plural, lower case). */
  resource: GroupVersionResource;
  /** The subresource being requested, if any (`status`, `scale`, ...). */
  subResource?: string;
  /** The kind of the original request, when `matchPolicy: Equivalent` converted it. */
  requestKind?: GroupVersionKind;
  /** The resource of the original request. */
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  /** The object's name; may be empty on CREATE when the server generates it. */
  name?: string;
  /** The namespace of the object, absent for cluster-scoped kinds. */
  namespace?: string;
  operation: Operation;
  /** Who is making the request. */
  userInfo: UserInfo;
  /** The object from the incoming request (absent on DELETE). */
  object?: KubeObject;
  /** The existing object (UPDATE and DELETE only). */
  oldObject?: KubeObject;
  /** True when the request will not be persisted: the webhook must have no side effects. */
  dryRun?: boolean;
  /** The operation options (`CreateOptions`, `UpdateOptions`, `DeleteOptions`, ...). */
  options?: KubeObject;
}

/** A webhook's answer. */
export interface AdmissionResponse {
  /**
   * Must equal the request's uid. Handlers may leave it out: the webhook fills it in from the
   * request before writing the review.
   */
  uid?: string;
  /** Whether the request is admitted. */
  allowed: boolean;
  /** Why the request was denied (or a message on success): code, reason, message. */
  status?: Status;
  /** Base64 of the JSON patch to apply to the object (mutating webhooks only). */
  patch?: string;
  /** Always `"JSONPatch"` when `patch` is set. */
  patchType?: "JSONPatch";
  /** Added to the audit event of the request, keys prefixed by the webhook's name. */
  auditAnnotations?: Record<string, string>;
  /** Warnings returned to the API client (kubectl prints them). */
  warnings?: string[];
}

/** The envelope of a request and its response. */
export interface AdmissionReview {
  /** `admission.k8s.io/v1` or `admission.k8s.io/v1beta1`. */
  apiVersion?: string;
  /** `AdmissionReview`. */
  kind?: string;
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}
