// The StorageBucket API (storage.example.com/v1alpha1): a bucket in S3-compatible object storage
// outside the cluster, and what the controller last found out about it. The CRD manifest
// (config/crd/) is the schema the API server enforces; these types are what the code reads.
import type { Condition, ObjectMeta } from "kubernetes-types/meta/v1.js";
import { defineKind } from "controller-runtime/api";

export interface StorageBucketSpec {
  /** Base URL of the S3-compatible service, e.g. `https://s3.eu-west-1.amazonaws.com`. */
  endpoint: string;
  /** The bucket's name; probed path-style as `HEAD <endpoint>/<bucketName>`. */
  bucketName: string;
  /** How a probe is made. */
  probe?: {
    /** Give up on a probe after this long. Default: 5. */
    timeoutSeconds?: number;
  };
}

export interface StorageBucketStatus {
  /** The generation of the spec the conditions describe. */
  observedGeneration?: number;
  /** `Available`: whether the last probe found the bucket. */
  conditions?: Condition[];
}

export interface StorageBucket {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: StorageBucketSpec;
  status?: StorageBucketStatus;
}

export const StorageBucket = defineKind<StorageBucket>({
  group: "storage.example.com",
  version: "v1alpha1",
  kind: "StorageBucket",
});

/** The condition type this controller maintains. */
export const conditionAvailable = "Available";
