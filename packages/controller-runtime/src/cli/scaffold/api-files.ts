// What `create api` and `create webhook` write for one kind: its definition (src/api), its
// controller with the RBAC markers `generate rbac` reads (src/controllers), its webhooks
// (src/webhooks), a test of each against an API server, a sample, and the editor and viewer
// ClusterRoles kubebuilder gives each kind.
import { fileNameOf } from "./names.js";
import type { ProjectResource } from "./project.js";

/** The marker in config/samples/kustomization.yaml above which `create api` lists its sample. */
export const SAMPLES_MARKER = "# +controller-runtime:scaffold:samples";
/** The marker in config/rbac/kustomization.yaml above which `create api` lists its roles. */
export const RBAC_MARKER = "# +controller-runtime:scaffold:rbac";

export const sampleFileOf = (r: ProjectResource) => `${r.group}_${r.version}_${fileNameOf(r.kind)}.yaml`;
export const roleFilesOf = (r: ProjectResource) => {
  const file = fileNameOf(r.kind).replaceAll("-", "_");
  return [`${file}_editor_role.yaml`, `${file}_viewer_role.yaml`];
};

/** config/samples/kustomization.yaml as the first `create api` writes it. */
export function samplesKustomization(): string {
  return `# The samples of each kind: kubectl apply -k config/samples
resources:
  ${SAMPLES_MARKER}
`;
}

export function apiFiles(r: ProjectResource, projectName: string): Map<string, string> {
  const file = fileNameOf(r.kind);
  const files = new Map<string, string>();
  files.set(`src/api/${file}.ts`, definitionTs(r));
  files.set(`src/controllers/${file}.ts`, controllerTs(r));
  files.set(`src/controllers/${file}.test.ts`, controllerTestTs(r));
  const [editor, viewer] = roleFilesOf(r) as [string, string];
  files.set(`config/rbac/${editor}`, roleYaml(r, projectName, "editor"));
  files.set(`config/rbac/${viewer}`, roleYaml(r, projectName, "viewer"));
  files.set(
    `config/samples/${sampleFileOf(r)}`,
    `apiVersion: ${r.apiGroup}/${r.version}
kind: ${r.kind}
metadata:
  name: ${file}-sample
spec:
  size: 1
`,
  );
  return files;
}

/** kubebuilder's `<kind>_editor_role.yaml` and `<kind>_viewer_role.yaml`. */
function roleYaml(r: ProjectResource, projectName: string, role: "editor" | "viewer"): string {
  const name = `${fileNameOf(r.kind)}-${role}-role`;
  const verbs =
    role === "editor"
      ? ["create", "delete", "get", "list", "patch", "update", "watch"]
      : ["get", "list", "watch"];
  const what = role === "editor" ? "create, change and delete" : "read";
  return `# Not used by ${projectName} itself: a role for the cluster admin to grant to people who
# ${what} ${r.plural}.${r.apiGroup}.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  labels:
    app.kubernetes.io/name: ${projectName}
    app.kubernetes.io/managed-by: kustomize
  name: ${name}
rules:
  - apiGroups:
      - ${r.apiGroup}
    resources:
      - ${r.plural}
    verbs:
${verbs.map((v) => `      - ${v}`).join("\n")}
  - apiGroups:
      - ${r.apiGroup}
    resources:
      - ${r.plural}/status
    verbs:
      - get
`;
}

function definitionTs(r: ProjectResource): string {
  return `// The ${r.kind} custom resource: its schema, its TypeScript type and its CRD in one definition.
// Change the schema here, then \`npm run generate\` writes config/crd.
import type { ObjectOf } from "controller-runtime/api";
import { defineCRD, k, Type } from "controller-runtime/crd";

export const ${r.kind} = defineCRD({
  group: "${r.apiGroup}",
  kind: "${r.kind}",
  versions: {
    ${r.version}: {
      spec: Type.Object({
        /** How many of it to run. */
        size: Type.Integer({ minimum: 0, default: 1, description: "How many of it to run." }),
        /** An example field; replace it with yours. */
        foo: Type.Optional(Type.String({ maxLength: 64, description: "An example field; replace it with yours." })),
      }),
      status: Type.Object({
        conditions: Type.Optional(k.conditions()),
      }),
      printerColumns: [
        { name: "Size", type: "integer", jsonPath: ".spec.size" },
        { name: "Available", type: "string", jsonPath: '.status.conditions[?(@.type=="Available")].status' },
        { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
    },
  },
});
export type ${r.kind} = ObjectOf<typeof ${r.kind}>;
`;
}

function controllerTs(r: ProjectResource): string {
  return `// The ${r.kind} controller: brings the world in line with each ${r.kind}'s spec, and says so in
// its status. The markers below are the permissions it needs (\`npm run generate\` writes them
// into config/rbac/role.yaml).
import { type DeepReadonly, deepCopy, setStatusCondition } from "controller-runtime/api";
import { controllerManagedBy } from "controller-runtime/builder";
import type { Client } from "controller-runtime/client";
import type { Manager } from "controller-runtime/manager";
import type { ReconcileContext, Reconciler, Request, Result } from "controller-runtime/reconcile";
import { isNotFound } from "controller-runtime/rest";
import { ${r.kind} } from "../api/${fileNameOf(r.kind)}.js";

// +kubebuilder:rbac:groups=${r.apiGroup},resources=${r.plural},verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=${r.apiGroup},resources=${r.plural}/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=${r.apiGroup},resources=${r.plural}/finalizers,verbs=update

export class ${r.kind}Reconciler implements Reconciler {
  constructor(private readonly client: Client) {}

  async reconcile(req: Request, { signal, logger }: ReconcileContext): Promise<Result> {
    let current: DeepReadonly<${r.kind}>;
    try {
      current = await this.client.get(${r.kind}, req, { signal });
    } catch (err) {
      if (isNotFound(err)) return {}; // deleted: owned objects go with it
      throw err;
    }

    // TODO(user): compare current.spec with the world and change the world to match (create or
    // update owned objects with setControllerReference, record Events, ...).

    const updated = deepCopy(current);
    updated.status ??= {};
    updated.status.conditions ??= [];
    const changed = setStatusCondition(updated.status.conditions, {
      type: "Available",
      status: "True",
      reason: "Reconciled",
      message: \`size \${current.spec.size} is in place\`,
      observedGeneration: current.metadata?.generation ?? 0,
    });
    if (changed) {
      await this.client.status().update(updated, { signal });
      logger.info("status updated", { size: current.spec.size });
    }
    return {};
  }
}

export function setup${r.kind}Controller(mgr: Manager): void {
  controllerManagedBy(mgr).for(${r.kind}).complete(new ${r.kind}Reconciler(mgr.getClient()));
}
`;
}

function controllerTestTs(r: ProjectResource): string {
  const file = fileNameOf(r.kind);
  return `// The ${r.kind} controller against an API server (embedded by default; KUBEBUILDER_ASSETS for
// real binaries), in the manager as src/main.ts builds it: a new ${r.kind} is reconciled to
// Available.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { isStatusConditionTrue, newObject } from "controller-runtime/api";
import { Environment, eventually } from "controller-runtime/envtest";
import type { Manager } from "controller-runtime/manager";
import { ${r.kind} } from "../api/${file}.js";
import { setupManager } from "../manager.js";

// Every CRD of config/crd, not this kind's alone: the manager runs every controller of the project.
const env = new Environment({
  crdDirectoryPaths: ["config/crd"],
  errorIfCRDPathMissing: true,
  webhookInstallOptions: { paths: ["config/webhook"], ignoreErrorIfPathMissing: true },
});
const stop = new AbortController();
let mgr: Manager;
let running: Promise<void>;

before(async () => {
  mgr = await setupManager(await env.start(), { webhookServer: env.webhookInstallOptions.server });
  running = mgr.start(stop.signal);
  // The API server calls the project's webhooks (once it has some) from the first create on.
  await mgr.getWebhookServer().listening();
});

after(async () => {
  stop.abort();
  await running;
  await env.stop();
});

test("a new ${r.kind} becomes Available", async () => {
  const client = mgr.getClient();
  // newObject types the fields from the Kind: a misspelt field does not compile.
  await client.create(newObject(${r.kind}, { metadata: { namespace: "default", name: "${file}-test" }, spec: { size: 2 } }));
  const key = { namespace: "default", name: "${file}-test" };
  await eventually("the ${r.kind} is Available", async () => {
    const current = await mgr.getAPIReader().get(${r.kind}, key);
    return isStatusConditionTrue(current.status?.conditions, "Available");
  });
  const current = await mgr.getAPIReader().get(${r.kind}, key);
  assert.equal(current.spec.size, 2);
});
`;
}

export function webhookFiles(r: ProjectResource): Map<string, string> {
  const file = fileNameOf(r.kind);
  const files = new Map<string, string>();
  const defaulting = r.webhooks?.defaulting ?? false;
  const validation = r.webhooks?.validation ?? false;
  const parts: string[] = [];
  // The examples use metadata, which every kind has, so that they compile whatever the spec
  // holds (the tutorial's, or yours).
  if (defaulting) {
    parts.push(`
/** Fills in what a ${r.kind} leaves out, before it is stored. */
export const ${lowerFirst(r.kind)}Defaulter: CustomDefaulter<${r.kind}> = {
  default(obj) {
    // TODO(user): set your defaults (for spec fields, a \`default\` in the schema often does).
    // The example labels each ${r.kind} ${NAME_LABEL}=${file}, for \`kubectl get -l\`.
    obj.metadata ??= {};
    obj.metadata.labels = { "${NAME_LABEL}": "${file}", ...obj.metadata.labels };
  },
};
`);
  }
  if (validation) {
    parts.push(`
/** Refuses a ${r.kind} the schema alone cannot. */
export const ${lowerFirst(r.kind)}Validator: CustomValidator<${r.kind}> = {
  validateCreate(obj) {
    check(obj);
  },
  validateUpdate(_old, obj) {
    check(obj);
  },
};

function check(obj: ${r.kind}): void {
  // TODO(user): your rules. Throwing refuses the request with the message. The example keeps the
  // name short enough to name a Service after it (a DNS label: at most 63 characters).
  const name = obj.metadata?.name ?? "";
  if (name.length > 63) {
    throw new Error(\`metadata.name: \${name.length} characters, at most 63 (it names the ${r.kind}'s Service)\`);
  }
}
`);
  }
  const builder = [
    `  webhookManagedBy(mgr)`,
    `    .for(${r.kind})`,
    ...(defaulting ? [`    .withDefaulter(${lowerFirst(r.kind)}Defaulter)`] : []),
    ...(validation ? [`    .withValidator(${lowerFirst(r.kind)}Validator)`] : []),
    `    .complete();`,
  ];
  const types = [...(defaulting ? ["CustomDefaulter"] : []), ...(validation ? ["CustomValidator"] : [])];
  files.set(
    `src/webhooks/${file}.ts`,
    `// The ${r.kind} webhooks, served by the manager's webhook server and called by the API server.
import { webhookManagedBy } from "controller-runtime/builder";
import type { Manager } from "controller-runtime/manager";
import type { ${types.join(", ")} } from "controller-runtime/webhook";
import { ${r.kind} } from "../api/${file}.js";
${parts.join("")}
export function setup${r.kind}Webhook(mgr: Manager): void {
${builder.join("\n")}
}
`,
  );
  files.set(`src/webhooks/${file}.test.ts`, webhookTestTs(r, defaulting, validation));
  return files;
}

function webhookTestTs(r: ProjectResource, defaulting: boolean, validation: boolean): string {
  const file = fileNameOf(r.kind);
  const checks: string[] = [];
  if (defaulting) {
    checks.push(`
test("the defaulting webhook labels a new ${r.kind}", async () => {
  const created = await mgr.getClient().create<${r.kind}>(sample("${file}-defaulted"));
  assert.equal(created.metadata?.labels?.["${NAME_LABEL}"], "${file}");
});
`);
  }
  if (validation) {
    checks.push(`
test("the validating webhook refuses a name longer than 63 characters", async () => {
  await assert.rejects(mgr.getClient().create(sample("x".repeat(64))), /at most 63/);
});
`);
  }
  return `// The ${r.kind} webhooks, installed on an API server that calls the manager's webhook server.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Environment } from "controller-runtime/envtest";
import type { Manager } from "controller-runtime/manager";
import { ${r.kind} } from "../api/${file}.js";
import { setupManager } from "../manager.js";

const env = new Environment({
  crdDirectoryPaths: ["config/crd"],
  errorIfCRDPathMissing: true,
  webhookInstallOptions: { paths: ["config/webhook"] },
});
const stop = new AbortController();
let mgr: Manager;
let running: Promise<void>;

before(async () => {
  const config = await env.start();
  mgr = await setupManager(config, { webhookServer: env.webhookInstallOptions.server });
  running = mgr.start(stop.signal);
  await mgr.getWebhookServer().listening();
});

after(async () => {
  stop.abort();
  await running;
  await env.stop();
});

function sample(name: string): ${r.kind} {
  return { apiVersion: ${r.kind}.apiVersion, kind: ${r.kind}.kind, metadata: { namespace: "default", name }, spec: { size: 1 } };
}
${checks.join("")}`;
}

/** config/webhook for every kind with webhooks: the configurations and the Service they call. */
export function webhookConfigFiles(
  projectName: string,
  resources: readonly ProjectResource[],
): Map<string, string> {
  const files = new Map<string, string>();
  const withHooks = resources.filter((r) => r.webhooks?.defaulting || r.webhooks?.validation);
  if (withHooks.length === 0) return files;
  const hook = (r: ProjectResource, kind: "mutate" | "validate") => {
    const suffix = `${r.apiGroup.replaceAll(".", "-")}-${r.version}-${r.kind.toLowerCase()}`;
    return `  - name: ${kind[0]}${r.kind.toLowerCase()}-${r.version}.${r.apiGroup}
    admissionReviewVersions: ["v1"]
    clientConfig:
      service:
        name: webhook-service
        namespace: system
        path: /${kind}-${suffix}
    failurePolicy: Fail
    sideEffects: None
    rules:
      - apiGroups: ["${r.apiGroup}"]
        apiVersions: ["${r.version}"]
        operations: ["CREATE", "UPDATE"]
        resources: ["${r.plural}"]`;
  };
  const mutating = withHooks.filter((r) => r.webhooks?.defaulting).map((r) => hook(r, "mutate"));
  const validating = withHooks.filter((r) => r.webhooks?.validation).map((r) => hook(r, "validate"));
  const docs: string[] = [];
  if (mutating.length > 0) {
    docs.push(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
  annotations:
    cert-manager.io/inject-ca-from: ${projectName}-system/${projectName}-serving-cert
webhooks:
${mutating.join("\n")}
`);
  }
  if (validating.length > 0) {
    docs.push(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
  annotations:
    cert-manager.io/inject-ca-from: ${projectName}-system/${projectName}-serving-cert
webhooks:
${validating.join("\n")}
`);
  }
  files.set(
    "config/webhook/manifests.yaml",
    `# Written by controller-runtime create webhook.\n---\n${docs.join("---\n")}`,
  );
  files.set(
    "config/webhook/service.yaml",
    `apiVersion: v1
kind: Service
metadata:
  name: webhook-service
  namespace: system
spec:
  ports:
    - port: 443
      protocol: TCP
      targetPort: 9443
  selector:
    control-plane: controller-manager
`,
  );
  files.set("config/webhook/kustomization.yaml", "resources:\n  - manifests.yaml\n  - service.yaml\n");
  files.set(
    "config/certmanager/certificate.yaml",
    `# The webhook server's certificate, issued by cert-manager (which must be installed).
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: selfsigned-issuer
  namespace: system
spec:
  selfSigned: {}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: serving-cert
  namespace: system
spec:
  dnsNames:
    - ${projectName}-webhook-service.${projectName}-system.svc
    - ${projectName}-webhook-service.${projectName}-system.svc.cluster.local
  issuerRef:
    kind: Issuer
    name: selfsigned-issuer
  secretName: webhook-server-cert
`,
  );
  files.set("config/certmanager/kustomization.yaml", "resources:\n  - certificate.yaml\n");
  files.set(
    "config/default/manager_webhook_patch.yaml",
    `# The manager serves webhooks on 9443 with the certificate cert-manager issues.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-manager
  namespace: system
spec:
  template:
    spec:
      containers:
        - name: manager
          ports:
            - containerPort: 9443
              name: webhook-server
              protocol: TCP
          volumeMounts:
            - mountPath: /tmp/k8s-webhook-server/serving-certs
              name: cert
              readOnly: true
      volumes:
        - name: cert
          secret:
            secretName: webhook-server-cert
`,
  );
  files.set(
    "config/default/kustomization.yaml",
    `# Everything the operator needs, in the ${projectName}-system namespace: kubectl apply -k config/default
# (the webhooks need cert-manager in the cluster).
namespace: ${projectName}-system
namePrefix: ${projectName}-
resources:
  - ../crd
  - ../rbac
  - ../manager
  - ../webhook
  - ../certmanager
  - metrics_service.yaml
patches:
  - path: manager_webhook_patch.yaml
`,
  );
  return files;
}

const NAME_LABEL = "app.kubernetes.io/name";

function lowerFirst(s: string): string {
  return s[0]?.toLowerCase() + s.slice(1);
}
