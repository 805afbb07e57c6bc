// What `controller-runtime init` writes: a project laid out as kubebuilder lays one out, in
// TypeScript. The manager is built in src/manager.ts (which `create api` extends at its scaffold
// markers) so that tests run the same wiring as src/main.ts does in the cluster.
import { readFileSync } from "node:fs";
import { EMBEDDED_SERVER_PACKAGE } from "../../envtest/embedded-server.js";
import type { Project } from "./project.js";
import { leaderElectionID } from "./names.js";

interface OwnPackage {
  version: string;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

// This package's own package.json: same place relative to src/cli/scaffold and dist/cli/scaffold.
const own = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as OwnPackage;

export function initFiles(project: Project): Map<string, string> {
  const name = project.projectName;
  const files = new Map<string, string>();
  files.set(
    "package.json",
    `${JSON.stringify(
      {
        name,
        version: "0.1.0",
        private: true,
        type: "module",
        scripts: {
          build: "tsc -p tsconfig.build.json",
          start: "node dist/main.js",
          typecheck: "tsc --noEmit",
          test: "npm run typecheck && npm run generate:check && node --import tsx --test $(find src -name '*.test.ts')",
          generate:
            "controller-runtime generate crds --from src/api --out config/crd && controller-runtime generate rbac --from src --out config/rbac/role.yaml",
          "generate:check":
            "controller-runtime generate crds --from src/api --out config/crd --check && controller-runtime generate rbac --from src --out config/rbac/role.yaml --check",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable in an npm script
          "docker-build": "docker build -t ${IMG:-controller:latest} .",
          deploy: "kubectl apply -k config/default",
          undeploy: "kubectl delete -k config/default",
        },
        dependencies: {
          "controller-runtime": `^${own.version}`,
          "kubernetes-types": own.peerDependencies["kubernetes-types"],
        },
        devDependencies: {
          "@types/node": own.devDependencies["@types/node"],
          // The embedded API server the project's tests start through envtest; never shipped.
          [EMBEDDED_SERVER_PACKAGE]: `^${own.version}`,
          tsx: own.devDependencies.tsx,
          typescript: own.devDependencies.typescript,
        },
      },
      null,
      2,
    )}\n`,
  );
  files.set(
    "tsconfig.json",
    `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2023",
          lib: ["ES2023"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
          strict: true,
          skipLibCheck: true,
          verbatimModuleSyntax: true,
          outDir: "dist",
          rootDir: "src",
        },
        include: ["src"],
      },
      null,
      2,
    )}\n`,
  );
  files.set(
    "tsconfig.build.json",
    `${JSON.stringify({ extends: "./tsconfig.json", exclude: ["src/**/*.test.ts"] }, null, 2)}\n`,
  );
  files.set(".gitignore", "node_modules/\ndist/\n");
  files.set(".dockerignore", "node_modules/\ndist/\nconfig/\n");
  files.set("Dockerfile", dockerfile());
  files.set("README.md", readme(name));
  files.set("src/main.ts", mainTs(project));
  files.set("src/manager.ts", managerTs());
  files.set("src/manager.test.ts", managerTestTs());
  for (const [path, content] of configFiles(name)) files.set(path, content);
  return files;
}

function dockerfile(): string {
  return `# Build with the dev dependencies, run with the production ones only.
FROM node:20-slim AS build
WORKDIR /workspace
COPY package*.json ./
RUN npm ci
COPY tsconfig*.json ./
COPY src/ src/
RUN npm run build && npm prune --omit=dev

FROM gcr.io/distroless/nodejs20-debian12
WORKDIR /app
COPY --from=build /workspace/package.json ./
COPY --from=build /workspace/node_modules/ node_modules/
COPY --from=build /workspace/dist/ dist/
USER 65532:65532
ENTRYPOINT ["/nodejs/bin/node", "dist/main.js"]
`;
}

function readme(name: string): string {
  return `# ${name}

A Kubernetes operator written with [controller-runtime for TypeScript](https://www.npmjs.com/package/controller-runtime).

- \`npx controller-runtime create api --group <group> --version v1alpha1 --kind <Kind>\`: a custom
  resource (src/api), its controller (src/controllers) and its test.
- \`npm run generate\`: CRDs into config/crd and the manager's ClusterRole into config/rbac from
  the definitions and the \`+kubebuilder:rbac\` markers; \`npm test\` fails when they drift.
- \`npm test\`: type check, drift check, and the tests against an API server (an embedded one by
  default; \`KUBEBUILDER_ASSETS\` for real binaries; \`USE_EXISTING_CLUSTER=true\` for your cluster).
- \`IMG=<registry>/${name}:tag npm run docker-build\`, push it, set the image in
  config/manager/kustomization.yaml, then \`npm run deploy\`.
`;
}

function mainTs(project: Project): string {
  return `// The manager's entry point: kubebuilder's flags, then the manager built by ./manager.ts.
import { parseArgs } from "node:util";
import { loggerFromFlags } from "controller-runtime/log";
import { setupSignalHandler } from "controller-runtime/manager";
import { getConfig } from "controller-runtime/rest";
import { setupManager } from "./manager.js";

const { values: flags } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    "metrics-bind-address": { type: "string", default: ":8080" },
    "health-probe-bind-address": { type: "string", default: ":8081" },
    "leader-elect": { type: "boolean", default: false },
    "zap-log-level": { type: "string" },
    "zap-encoder": { type: "string" },
    "zap-devel": { type: "boolean" },
  },
  strict: true,
});

const logger = loggerFromFlags(process.argv.slice(2));
const config = getConfig(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {});
const mgr = await setupManager(config, {
  logger,
  metrics: { bindAddress: flags["metrics-bind-address"] },
  healthProbeBindAddress: flags["health-probe-bind-address"],
  leaderElection: flags["leader-elect"],
  leaderElectionID: "${leaderElectionID(project.projectName, project.domain)}",
  leaderElectionReleaseOnCancel: true,
});
logger.withName("setup").info("starting manager");
await mgr.start(setupSignalHandler());
`;
}

function managerTs(): string {
  return `// The manager with every controller and webhook of the project. \`create api\` and \`create
// webhook\` add theirs at the scaffold markers.
import { ping } from "controller-runtime/healthz";
import { Manager, type ManagerOptions } from "controller-runtime/manager";
import type { RESTConfig } from "controller-runtime/rest";
// +controller-runtime:scaffold:imports

export async function setupManager(config: RESTConfig, options: ManagerOptions = {}): Promise<Manager> {
  const mgr = await Manager.create(config, options);
  // +controller-runtime:scaffold:builder
  mgr.addHealthzCheck("healthz", ping);
  mgr.addReadyzCheck("readyz", ping);
  return mgr;
}
`;
}

function managerTestTs(): string {
  return `// The manager starts against a test API server and reports ready, with every controller set up.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Environment, eventually } from "controller-runtime/envtest";
import { setupManager } from "./manager.js";

// The CRDs and webhooks of config/, as \`npm run generate\` and \`create webhook\` wrote them.
const env = new Environment({
  crdDirectoryPaths: ["config/crd"],
  webhookInstallOptions: { paths: ["config/webhook"], ignoreErrorIfPathMissing: true },
});
const stop = new AbortController();
let started: Promise<void> | undefined;

before(async () => {
  await env.start();
});

after(async () => {
  stop.abort();
  await started;
  await env.stop();
});

test("the manager starts and becomes ready", async () => {
  const mgr = await setupManager(env.config, {
    healthProbeBindAddress: "127.0.0.1:0",
    webhookServer: env.webhookInstallOptions.server,
  });
  started = mgr.start(stop.signal);
  const probes = await mgr.getHealthProbeServer().listening();
  assert.ok(probes, "the probe server listens");
  await eventually("readyz answers 200", async () => (await fetch(\`http://127.0.0.1:\${probes.port}/readyz\`)).ok);
});
`;
}

function configFiles(name: string): Map<string, string> {
  const files = new Map<string, string>();
  const labels = `    app.kubernetes.io/name: ${name}\n    control-plane: controller-manager`;
  files.set(
    "config/default/kustomization.yaml",
    `# Everything the operator needs, in the ${name}-system namespace: kubectl apply -k config/default
namespace: ${name}-system
namePrefix: ${name}-
resources:
  - ../crd
  - ../rbac
  - ../manager
  - metrics_service.yaml
`,
  );
  files.set(
    "config/default/metrics_service.yaml",
    `apiVersion: v1
kind: Service
metadata:
  name: controller-manager-metrics-service
  namespace: system
  labels:
${labels}
spec:
  ports:
    - name: http
      port: 8080
      protocol: TCP
      targetPort: 8080
  selector:
    control-plane: controller-manager
`,
  );
  files.set(
    "config/manager/kustomization.yaml",
    `resources:
  - manager.yaml
images:
  - name: controller
    newName: controller
    newTag: latest
`,
  );
  files.set(
    "config/manager/manager.yaml",
    `apiVersion: v1
kind: Namespace
metadata:
  name: system
  labels:
    control-plane: controller-manager
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-manager
  namespace: system
  labels:
${labels}
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: controller-manager
  template:
    metadata:
      labels:
        control-plane: controller-manager
    spec:
      serviceAccountName: controller-manager
      securityContext:
        runAsNonRoot: true
        seccompProfile:
          type: RuntimeDefault
      terminationGracePeriodSeconds: 10
      containers:
        - name: manager
          image: controller:latest
          args:
            - --leader-elect
            - --health-probe-bind-address=:8081
            - --metrics-bind-address=:8080
          ports:
            - containerPort: 8080
              name: metrics
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: ["ALL"]
          livenessProbe:
            httpGet:
              path: /healthz
              port: 8081
            initialDelaySeconds: 15
            periodSeconds: 20
          readinessProbe:
            httpGet:
              path: /readyz
              port: 8081
            initialDelaySeconds: 5
            periodSeconds: 10
          resources:
            limits:
              cpu: 500m
              memory: 256Mi
            requests:
              cpu: 10m
              memory: 96Mi
`,
  );
  files.set(
    "config/rbac/kustomization.yaml",
    `resources:
  - service_account.yaml
  - role.yaml
  - role_binding.yaml
  - leader_election_role.yaml
  - leader_election_role_binding.yaml
`,
  );
  files.set(
    "config/rbac/service_account.yaml",
    "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: controller-manager\n  namespace: system\n",
  );
  files.set(
    "config/rbac/role_binding.yaml",
    `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: manager-role
subjects:
  - kind: ServiceAccount
    name: controller-manager
    namespace: system
`,
  );
  files.set(
    "config/rbac/leader_election_role.yaml",
    `# Leader election on a Lease, and the Events it records.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: leader-election-role
  namespace: system
rules:
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
  - apiGroups: [""]
    resources: ["events"]
    verbs: ["create", "patch"]
`,
  );
  files.set(
    "config/rbac/leader_election_role_binding.yaml",
    `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: leader-election-rolebinding
  namespace: system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: leader-election-role
subjects:
  - kind: ServiceAccount
    name: controller-manager
    namespace: system
`,
  );
  files.set("config/samples/.gitkeep", "");
  return files;
}
