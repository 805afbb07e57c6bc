// The apiextensions.k8s.io ConversionReview wire types (v1; v1beta1 has the same shape), which
// kubernetes-types does not include.
import type { Status } from "kubernetes-types/meta/v1.js";
import type { KubeObject } from "../../api/index.js";

export const conversionGroup = "apiextensions.k8s.io";
export const conversionReviewVersions = ["v1", "v1beta1"] as const;

export interface ConversionRequest {
  /** Identifies this call; the response must echo it. */
  uid: string;
  /** The version to convert every object to: `group/version`. */
  desiredAPIVersion: string;
  /** The objects to convert, each with its own apiVersion. */
  objects: KubeObject[];
}

export interface ConversionResponse {
  uid: string;
  /** The converted objects, in the order of the request's, each with apiVersion set to the desired one. */
  convertedObjects: KubeObject[];
  /** `status: "Success"`, or `"Failure"` with a message. */
  result: Status;
}

export interface ConversionReview {
  /** `apiextensions.k8s.io/v1` or `apiextensions.k8s.io/v1beta1`. */
  apiVersion?: string;
  kind?: string;
  request?: ConversionRequest;
  response?: ConversionResponse;
}
