// The smallest valid object of each built-in kind kube-apiserver serves beyond the workloads:
// the policy, networking, autoscaling, storage, scheduling, certificates and flowcontrol kinds,
// and the core kinds an operator meets (PersistentVolumes, quotas, limit ranges, templates).
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

export interface KindCase {
  /** The collection, with `{ns}` for the namespace. */
  path: string;
  body: Record<string, unknown>;
}

const podTemplate = (app: string, restartPolicy?: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: "c", image: "nginx" }], ...(restartPolicy ? { restartPolicy } : {}) },
});

/** A PEM certificate request, as a CertificateSigningRequest carries it. */
export async function certificateRequestPem(cn: string): Promise<string> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=${cn}`,
    keys,
    signingAlgorithm: alg,
  });
  return csr.toString("pem");
}

/** A self-signed CA certificate in PEM, as a ClusterTrustBundle carries it. */
export async function caCertificatePem(cn: string): Promise<string> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${cn}`,
    keys,
    signingAlgorithm: alg,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  return cert.toString("pem");
}

const claimSpec = {
  devices: { requests: [{ name: "gpu", exactly: { deviceClassName: "gpu.example.com" } }] },
};

export async function servedKinds(): Promise<Record<string, KindCase>> {
  const csr = Buffer.from(await certificateRequestPem("alice")).toString("base64");
  const trustBundle = await caCertificatePem("example-ca");
  // IPAddresses are named by their address: one per run, as cluster-scoped names carry {ns}.
  const octet = 1 + Math.floor(Math.random() * 254);
  const kind = (apiVersion: string, k: string, name: string, rest: Record<string, unknown>) => ({
    apiVersion,
    kind: k,
    metadata: { name },
    ...rest,
  });
  return {
    LimitRange: {
      path: "/api/v1/namespaces/{ns}/limitranges",
      body: kind("v1", "LimitRange", "lr", {
        spec: { limits: [{ type: "Container", default: { cpu: "500m" } }] },
      }),
    },
    PersistentVolume: {
      path: "/api/v1/persistentvolumes",
      body: kind("v1", "PersistentVolume", "pv-{ns}", {
        spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/pv" } },
      }),
    },
    PodTemplate: {
      path: "/api/v1/namespaces/{ns}/podtemplates",
      body: kind("v1", "PodTemplate", "pt", { template: podTemplate("pt") }),
    },
    ReplicationController: {
      path: "/api/v1/namespaces/{ns}/replicationcontrollers",
      body: kind("v1", "ReplicationController", "rc", { spec: { template: podTemplate("rc") } }),
    },
    ResourceQuota: {
      path: "/api/v1/namespaces/{ns}/resourcequotas",
      body: kind("v1", "ResourceQuota", "rq", { spec: { hard: { pods: "10" } } }),
    },
    ControllerRevision: {
      path: "/apis/apps/v1/namespaces/{ns}/controllerrevisions",
      body: kind("apps/v1", "ControllerRevision", "cr", { revision: 1, data: { spec: {} } }),
    },
    CronJob: {
      path: "/apis/batch/v1/namespaces/{ns}/cronjobs",
      body: kind("batch/v1", "CronJob", "cj", {
        spec: {
          schedule: "*/5 * * * *",
          jobTemplate: { spec: { template: podTemplate("cj", "OnFailure") } },
        },
      }),
    },
    HorizontalPodAutoscaler: {
      path: "/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers",
      body: kind("autoscaling/v2", "HorizontalPodAutoscaler", "hpa", {
        spec: {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "d" },
          maxReplicas: 3,
          metrics: [
            {
              type: "Resource",
              resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
            },
          ],
        },
      }),
    },
    CertificateSigningRequest: {
      path: "/apis/certificates.k8s.io/v1/certificatesigningrequests",
      body: kind("certificates.k8s.io/v1", "CertificateSigningRequest", "csr-{ns}", {
        spec: { request: csr, signerName: "kubernetes.io/kube-apiserver-client", usages: ["client auth"] },
      }),
    },
    EndpointSlice: {
      path: "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices",
      body: kind("discovery.k8s.io/v1", "EndpointSlice", "es", {
        addressType: "IPv4",
        endpoints: [{ addresses: ["10.1.2.3"] }],
        ports: [{ port: 80 }],
      }),
    },
    IngressClass: {
      path: "/apis/networking.k8s.io/v1/ingressclasses",
      body: kind("networking.k8s.io/v1", "IngressClass", "ic-{ns}", {
        spec: { controller: "example.com/ingress" },
      }),
    },
    Ingress: {
      path: "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses",
      body: kind("networking.k8s.io/v1", "Ingress", "ing", {
        spec: { defaultBackend: { service: { name: "s", port: { number: 80 } } } },
      }),
    },
    NetworkPolicy: {
      path: "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies",
      body: kind("networking.k8s.io/v1", "NetworkPolicy", "np", { spec: { podSelector: {} } }),
    },
    RuntimeClass: {
      path: "/apis/node.k8s.io/v1/runtimeclasses",
      body: kind("node.k8s.io/v1", "RuntimeClass", "rtc-{ns}", { handler: "runc" }),
    },
    PodDisruptionBudget: {
      path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets",
      body: kind("policy/v1", "PodDisruptionBudget", "pdb", {
        spec: { minAvailable: 1, selector: { matchLabels: { app: "x" } } },
      }),
    },
    PriorityClass: {
      path: "/apis/scheduling.k8s.io/v1/priorityclasses",
      body: kind("scheduling.k8s.io/v1", "PriorityClass", "pc-{ns}", { value: 1000 }),
    },
    CSIDriver: {
      path: "/apis/storage.k8s.io/v1/csidrivers",
      body: kind("storage.k8s.io/v1", "CSIDriver", "csi-{ns}.example.com", { spec: {} }),
    },
    CSINode: {
      path: "/apis/storage.k8s.io/v1/csinodes",
      body: kind("storage.k8s.io/v1", "CSINode", "node-{ns}", { spec: { drivers: [] } }),
    },
    CSIStorageCapacity: {
      path: "/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities",
      body: kind("storage.k8s.io/v1", "CSIStorageCapacity", "cap", { storageClassName: "sc" }),
    },
    StorageClass: {
      path: "/apis/storage.k8s.io/v1/storageclasses",
      body: kind("storage.k8s.io/v1", "StorageClass", "sc-{ns}", { provisioner: "example.com/disk" }),
    },
    VolumeAttributesClass: {
      path: "/apis/storage.k8s.io/v1/volumeattributesclasses",
      body: kind("storage.k8s.io/v1", "VolumeAttributesClass", "vac-{ns}", {
        driverName: "disk.example.com",
        parameters: { iops: "3000" },
      }),
    },
    MutatingAdmissionPolicy: {
      path: "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies",
      body: kind("admissionregistration.k8s.io/v1", "MutatingAdmissionPolicy", "map-{ns}", {
        spec: {
          matchConstraints: {
            resourceRules: [
              { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] },
            ],
          },
          mutations: [
            {
              patchType: "ApplyConfiguration",
              applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"m": "1"}}}' },
            },
          ],
          reinvocationPolicy: "Never",
        },
      }),
    },
    MutatingAdmissionPolicyBinding: {
      path: "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings",
      body: kind("admissionregistration.k8s.io/v1", "MutatingAdmissionPolicyBinding", "mapb-{ns}", {
        spec: { policyName: "map-{ns}" },
      }),
    },
    ClusterTrustBundle: {
      path: "/apis/certificates.k8s.io/v1/clustertrustbundles",
      body: kind("certificates.k8s.io/v1", "ClusterTrustBundle", "ctb-{ns}", { spec: { trustBundle } }),
    },
    IPAddress: {
      path: "/apis/networking.k8s.io/v1/ipaddresses",
      body: kind("networking.k8s.io/v1", "IPAddress", `192.168.${octet}.5`, {
        spec: { parentRef: { group: "", resource: "services", namespace: "{ns}", name: "s" } },
      }),
    },
    ServiceCIDR: {
      path: "/apis/networking.k8s.io/v1/servicecidrs",
      body: kind("networking.k8s.io/v1", "ServiceCIDR", "cidr-{ns}", { spec: { cidrs: ["10.200.0.0/24"] } }),
    },
    DeviceClass: {
      path: "/apis/resource.k8s.io/v1/deviceclasses",
      body: kind("resource.k8s.io/v1", "DeviceClass", "dc-{ns}", { spec: {} }),
    },
    DeviceTaintRule: {
      path: "/apis/resource.k8s.io/v1/devicetaintrules",
      body: kind("resource.k8s.io/v1", "DeviceTaintRule", "dtr-{ns}", {
        spec: { taint: { key: "example.com/broken", effect: "NoSchedule" } },
      }),
    },
    ResourceClaim: {
      path: "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims",
      body: kind("resource.k8s.io/v1", "ResourceClaim", "claim", { spec: claimSpec }),
    },
    ResourceClaimTemplate: {
      path: "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaimtemplates",
      body: kind("resource.k8s.io/v1", "ResourceClaimTemplate", "claims", { spec: { spec: claimSpec } }),
    },
    ResourceSlice: {
      path: "/apis/resource.k8s.io/v1/resourceslices",
      body: kind("resource.k8s.io/v1", "ResourceSlice", "slice-{ns}", {
        spec: {
          driver: "gpu.example.com",
          pool: { name: "pool", generation: 1, resourceSliceCount: 1 },
          nodeName: "node-{ns}",
          devices: [{ name: "gpu-0" }],
        },
      }),
    },
    StorageVersionMigration: {
      path: "/apis/storagemigration.k8s.io/v1/storageversionmigrations",
      body: kind("storagemigration.k8s.io/v1", "StorageVersionMigration", "svm-{ns}", {
        spec: { resource: { group: "", resource: "configmaps" } },
      }),
    },
    VolumeAttachment: {
      path: "/apis/storage.k8s.io/v1/volumeattachments",
      body: kind("storage.k8s.io/v1", "VolumeAttachment", "va-{ns}", {
        spec: { attacher: "disk.example.com", nodeName: "n1", source: { persistentVolumeName: "pv1" } },
      }),
    },
  };
}
