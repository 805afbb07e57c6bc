// What `controller-runtime init` writes: a project laid out as kubebuilder lays one out, in
// TypeScript. The manager is built in src/manager.ts (which `create api` extends at its scaffold
// markers) so that tests run the same wiring as src/main.ts does in the cluster.
import { readFileSync } from "node:fs";
import { EMBEDDED_SERVER_PACKAGE } from "../../envtest/embedded-server.js";
import type { Project } from "./project.js";
import { leaderElectionID } from "./names.js";

interface OwnPackage {
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

// This package's own package.json: same place relative to src/cli/scaffold and dist/cli/scaffold.
const own = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as OwnPackage;

/** The dependency specs `init` writes for the library and the embedded server. */
export interface DependencySpecs {
  library: string;
  server: string;
}

export function initFiles(project: Project, deps: DependencySpecs): Map<string, string> {
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
        // Every script runs in cmd.exe as well as in sh: no shell syntax beyond `&&`, and what
        // would need more is a node script in scripts/.
        scripts: {
          build: "tsc -p tsconfig.build.json",
          start: "node dist/main.js",
          // kubebuilder's `make run`: the embedded API server (or KUBECONFIG's cluster) and the manager.
          run: "controller-runtime run",
          dev: "controller-runtime run",
          typecheck: "tsc --noEmit",
          test: "npm run typecheck && npm run generate:check && node scripts/run-tests.mjs",
          generate:
            "controller-runtime generate crds --from src/api --out config/crd && controller-runtime generate rbac --from src --out config/rbac/role.yaml",
          "generate:check":
            "controller-runtime generate crds --from src/api --out config/crd --check && controller-runtime generate rbac --from src --out config/rbac/role.yaml --check",
          // kubebuilder's `make install` / `make uninstall` (npm runs a script named `install`
          // on every `npm install`, hence the longer names).
          "install-crds": "controller-runtime install",
          "uninstall-crds": "controller-runtime uninstall",
          "docker-build": "node scripts/docker-build.mjs",
          deploy: "kubectl apply -k config/default",
          undeploy: "kubectl delete -k config/default",
        },
        dependencies: {
          "controller-runtime": deps.library,
          "kubernetes-types": own.peerDependencies["kubernetes-types"],
        },
        devDependencies: {
          "@types/node": own.devDependencies["@types/node"],
          // The embedded API server the project's tests start through envtest; never shipped.
          [EMBEDDED_SERVER_PACKAGE]: deps.server,
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
  files.set(".gitignore", "node_modules/\ndist/\n.controller-runtime/\n");
  files.set(".dockerignore", "node_modules/\ndist/\nconfig/\n.controller-runtime/\n");
  files.set("Dockerfile", dockerfile());
  files.set("README.md", readme(name));
  files.set("src/main.ts", mainTs(project));
  files.set("src/manager.ts", managerTs());
  files.set("src/manager.test.ts", managerTestTs());
  files.set("scripts/run-tests.mjs", runTestsMjs());
  files.set("scripts/docker-build.mjs", dockerBuildMjs());
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

A Kubernetes operator written with controller-runtime for TypeScript, laid out as kubebuilder lays
out a Go one.

- \`npx controller-runtime create api --group <group> --version v1alpha1 --kind <Kind>\`: a custom
  resource (src/api), its controller (src/controllers) and its test;
  \`npx controller-runtime create webhook --kind <Kind> --defaulting --programmatic-validation\`:
  its admission webhooks (src/webhooks) and their test.
- \`npm run generate\`: CRDs into config/crd and the manager's ClusterRole into config/rbac from
  the definitions and the \`+kubebuilder:rbac\` markers; \`npm test\` fails when they drift.
- \`npm test\`: type check, drift check, and the tests against an API server (an embedded one by
  default; \`KUBEBUILDER_ASSETS\` for real binaries; \`USE_EXISTING_CLUSTER=true\` for your cluster).
- \`npm run run\` (or \`npm run dev\`): the manager from src/ against the embedded API server, with
  the CRDs installed and Deployments, ReplicaSets and Pods simulated, until Ctrl-C;
  \`kubectl --kubeconfig .controller-runtime/kubeconfig ...\` reaches it meanwhile. With
  \`KUBECONFIG\` set (or \`npm run run -- --kubeconfig <file>\`) it runs against that cluster
  instead, after \`npm run install-crds\` (\`npm run uninstall-crds\` takes them out again).
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

// kubebuilder's zap flags this logger does not implement (--zap-stacktrace-level,
// --zap-time-encoding, ...) are dropped with a warning rather than refused, so that args written
// for a Go manager start this one.
const implemented = new Set(["zap-log-level", "zap-encoder", "zap-devel"]);
const args: string[] = [];
const ignored: string[] = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i] ?? "";
  const zap = /^--?(zap-[a-z-]+)(=.*)?$/s.exec(arg);
  if (!zap?.[1] || implemented.has(zap[1])) {
    args.push(arg);
    continue;
  }
  ignored.push(arg);
  const next = argv[i + 1];
  if (zap[2] === undefined && next !== undefined && !next.startsWith("-")) ignored.push(argv[++i] ?? "");
}

const { values: flags } = parseArgs({
  args,
  options: {
    kubeconfig: { type: "string" },
    "metrics-bind-address": { type: "string", default: ":8080" },
    "health-probe-bind-address": { type: "string", default: ":8081" },
    "leader-elect": { type: "boolean", default: false },
    "webhook-cert-path": { type: "string" },
    "webhook-port": { type: "string" },
    "zap-log-level": { type: "string" },
    "zap-encoder": { type: "string" },
    "zap-devel": { type: "boolean" },
  },
  strict: true,
});

const logger = loggerFromFlags(args);
const setupLog = logger.withName("setup");
if (ignored.length > 0) setupLog.info("warning: ignoring flags this manager does not implement", { flags: ignored });
const config = getConfig(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {});
const mgr = await setupManager(config, {
  logger,
  metrics: { bindAddress: flags["metrics-bind-address"] },
  healthProbeBindAddress: flags["health-probe-bind-address"],
  leaderElection: flags["leader-elect"],
  leaderElectionID: "${leaderElectionID(project.projectName, project.domain)}",
  leaderElectionReleaseOnCancel: true,
  webhookServer: {
    ...(flags["webhook-cert-path"] ? { certDir: flags["webhook-cert-path"] } : {}),
    ...(flags["webhook-port"] ? { port: Number(flags["webhook-port"]) } : {}),
  },
});
setupLog.info("starting manager");
await mgr.start(setupSignalHandler());
`;
}

function managerTs(): string {
  return `// The manager with every controller and webhook of the project. \`create api\` and \`create
// webhook\` add theirs at the scaffold markers. ENABLE_WEBHOOKS=false leaves the webhooks out (as
// in kubebuilder's main.go), for a manager run where no API server can call it.
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

function runTestsMjs(): string {
  return `// \`npm test\`'s runner: every *.test.ts under src/ with node's test runner, through tsx. Node 20's
// --test takes no globs and npm's shell may be cmd.exe, so the file list is made here. Arguments
// narrow the run to files whose path contains one of them: \`npm test -- memcached\`.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const filters = process.argv.slice(2);
const files = readdirSync("src", { recursive: true })
  .map((f) => join("src", String(f)))
  .filter((f) => f.endsWith(".test.ts"))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error("no test files under src/", filters.length > 0 ? \`matching \${filters.join(", ")}\` : "");
  process.exit(1);
}
const run = spawnSync(process.execPath, ["--import", "tsx", "--test", ...files], { stdio: "inherit" });
process.exit(run.status ?? 1);
`;
}

function dockerBuildMjs(): string {
  return `// \`npm run docker-build\`: the image, tagged $IMG (default controller:latest), in any shell.
import { spawnSync } from "node:child_process";

const image = process.env.IMG || "controller:latest";
const run = spawnSync("docker", ["build", "-t", image, "."], { stdio: "inherit" });
if (run.error) console.error(\`docker-build: \${run.error.message}\`);
process.exit(run.status ?? 1);
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
  # For each kind, an editor and a viewer ClusterRole, for the cluster admin to grant to the
  # people who manage or read them; the manager itself uses neither.
  # +controller-runtime:scaffold:rbac
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
