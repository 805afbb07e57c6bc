// A new user's path through the CLI, on the packages as npm installs them: `init` in an empty
// folder, `create api`, `create webhook`, a second `create api` of another group, `generate`; the
// scaffolded project passes its own tests (against the API server this run uses: embedded, or
// kube-apiserver with KUBEBUILDER_ASSETS) and builds; its generated manifests are up to date, and
// `generate:check` catches a definition changed without regenerating. docs/tutorial.md's files,
// dropped into a fresh project, pass its test too, with a webhook added after them. `run` runs the
// manager on the embedded server (or, with --kubeconfig, on this run's cluster after `install`)
// until Ctrl-C. And `init` run from the packed tarballs writes dependencies `npm install` resolves.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { parseAllDocuments, parse as parseYAML } from "yaml";
import type { Condition } from "kubernetes-types/meta/v1.js";
import { isStatusConditionTrue, type KubeObject } from "controller-runtime/api";
import { eventually } from "controller-runtime/envtest";
import { getConfig, isNotFound, newRESTClient, type ResourceRef } from "controller-runtime/rest";
import { installBuiltPackage } from "../support/built-package.js";
import { embedded, independentOfServer, testEnvironment } from "../support/environment.js";

const execFileP = promisify(execFile);
const withoutSourceCondition = (options: string | undefined) =>
  (options ?? "").replace(/--conditions[= ]cr-source/g, "").trim() || undefined;
let project = "";
let deps = "";
let packed = "";

/** The environment of a command run as the user would run it, in a shell of the project. */
function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // Under `npm test`, npm hands its configuration down as npm_config_* (node-options among them,
  // which a nested `npm run` turns back into NODE_OPTIONS): a user's shell has none of it.
  const own = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return {
    ...own,
    // The installed packages have no sources: this checkout's "cr-source" condition must not follow.
    NODE_OPTIONS: withoutSourceCondition(process.env.NODE_OPTIONS),
    PATH: `${join(deps, "node_modules", ".bin")}:${process.env.PATH}`,
    // This file runs under node's test runner; the project's own runner must not think it nested.
    NODE_TEST_CONTEXT: undefined,
    ...extra,
  };
}

async function sh(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  try {
    const { stdout, stderr } = await execFileP(cmd, args, {
      cwd: opts.cwd ?? project,
      maxBuffer: 1 << 24,
      timeout: 240_000,
      env: userEnv(opts.env),
    });
    return stdout + stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}${e.message}`);
  }
}
const cli = (...args: string[]) => sh("controller-runtime", args);
/**
 * The project's `npm test`: its type check, its drift check, then its tests. Against a real control
 * plane, its tests alone: they are what asks the server; the checks ran with the embedded one.
 */
const projectTests = () => (embedded ? sh("npm", ["test"]) : sh("node", ["scripts/run-tests.mjs"]));

/** `controller-runtime run ...` in the background, as in a terminal; `output` grows as it runs. */
function startRun(args: string[], env: NodeJS.ProcessEnv = {}) {
  const bin = join(deps, "node_modules", "controller-runtime", "dist", "cli", "bin.js");
  const child: ChildProcess = spawn(process.execPath, [bin, "run", ...args], {
    cwd: project,
    stdio: ["ignore", "pipe", "pipe"],
    env: userEnv(env),
  });
  const run = {
    child,
    output: "",
    exited: new Promise<number | null>((r) => child.on("exit", (code) => r(code))),
  };
  child.stdout?.on("data", (b) => {
    run.output += b;
  });
  child.stderr?.on("data", (b) => {
    run.output += b;
  });
  return run;
}

/** A custom resource with status conditions, as the scaffolded controllers write them. */
type WithConditions = KubeObject & { spec?: unknown; status?: { conditions?: Condition[] } };
const memcacheds: ResourceRef = { group: "cache.example.com", version: "v1alpha1", resource: "memcacheds" };
const webapps: ResourceRef = { group: "web.example.com", version: "v1", resource: "webapps" };
const crds: ResourceRef = {
  group: "apiextensions.k8s.io",
  version: "v1",
  resource: "customresourcedefinitions",
  namespaced: false,
};
const deployments: ResourceRef = { group: "apps", version: "v1", resource: "deployments" };
// The manager's servers on free loopback ports: tests run side by side.
const freePorts = ["--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0"];

before(async () => {
  // What `npm install` would give the scaffolded package.json: the library, and the dev tools.
  // Projects are folders beside that node_modules, which Node finds by walking up.
  deps = mkdtempSync(join(tmpdir(), "cr-scaffold-"));
  await installBuiltPackage(
    deps,
    ["@types", "tsx", "typescript", "esbuild", "get-tsconfig", "resolve-pkg-maps"],
    { server: true },
  );
  project = join(deps, "memcached-operator");
});

after(() => {
  if (deps) rmSync(deps, { recursive: true, force: true });
  if (packed) rmSync(packed, { recursive: true, force: true });
});

test("init, create api, create webhook and a second create api give a project that builds and passes its tests", async () => {
  mkdirSync(project);
  const initOut = await cli("init", "--domain", "example.com", "--project-name", "memcached-operator");
  assert.match(initOut, /wrote src\/main\.ts/);
  const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
  // Installed as a copy npm recorded nothing of: the registry's range, for both.
  assert.equal(pkg.dependencies["controller-runtime"], "^0.1.0");
  assert.equal(pkg.devDependencies["controller-runtime-apiserver"], "^0.1.0");
  assert.doesNotMatch(readFileSync(join(project, "README.md"), "utf8"), /npmjs\.com/);
  for (const script of Object.values(pkg.scripts) as string[]) {
    assert.doesNotMatch(script, /\$[({A-Z]|'/, `${script}: runs in cmd.exe too`);
  }
  await cli("create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached");
  await cli("create", "webhook", "--kind", "Memcached", "--defaulting", "--programmatic-validation");
  await cli("create", "api", "--group", "web", "--version", "v1", "--kind", "WebApp");
  await sh("npm", ["run", "generate"]);

  // The generated CRD is what the definition says; the role carries the controllers' markers.
  const crd = parseAllDocuments(
    readFileSync(join(project, "config/crd/cache.example.com_memcacheds.yaml"), "utf8"),
  )[0]?.toJS();
  assert.equal(crd.metadata.name, "memcacheds.cache.example.com");
  assert.equal(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.default, 1);
  assert.ok(existsSync(join(project, "config/crd/web.example.com_webapps.yaml")));
  const role = readFileSync(join(project, "config/rbac/role.yaml"), "utf8");
  assert.match(role, /- memcacheds\/status/);
  assert.match(role, /- webapps\/status/);
  assert.match(
    readFileSync(join(project, "src/manager.ts"), "utf8"),
    /setupMemcachedController\(mgr\);\n {2}if \(process\.env\.ENABLE_WEBHOOKS !== "false"\) setupMemcachedWebhook\(mgr\);\n {2}setupWebAppController\(mgr\);/,
  );
  // kubebuilder's kustomizations: the samples, and an editor and a viewer role per kind.
  const kustomization = (dir: string) =>
    parseYAML(readFileSync(join(project, dir, "kustomization.yaml"), "utf8")).resources as string[];
  assert.deepEqual(kustomization("config/samples"), ["cache_v1alpha1_memcached.yaml", "web_v1_web-app.yaml"]);
  const roles = kustomization("config/rbac").filter((r) => /_(editor|viewer)_role\.yaml$/.test(r));
  assert.deepEqual(roles, [
    "memcached_editor_role.yaml",
    "memcached_viewer_role.yaml",
    "web_app_editor_role.yaml",
    "web_app_viewer_role.yaml",
  ]);
  for (const file of [...kustomization("config/rbac"), ...kustomization("config/samples")]) {
    const dir = file.includes("role") || file.includes("account") ? "config/rbac" : "config/samples";
    assert.ok(existsSync(join(project, dir, file)), `${dir}/${file} exists`);
  }
  const viewer = parseYAML(readFileSync(join(project, "config/rbac/web_app_viewer_role.yaml"), "utf8"));
  assert.deepEqual(viewer.rules[0], {
    apiGroups: ["web.example.com"],
    resources: ["webapps"],
    verbs: ["get", "list", "watch"],
  });

  // Its tests: type check, drift check, both controllers, the webhooks, the manager.
  const out = await projectTests();
  assert.match(out, /# pass 5\n# fail 0/, out);
});

// What follows up to the tutorial asks no server of this run's mode: the CLI, the compiler and the
// embedded server `run` starts itself. The runs against a real control plane skip it (issue #43).
const noServer = independentOfServer(
  "the CLI writes, checks and builds files, and `run` starts its own server",
);

test("the project builds", noServer, async () => {
  await sh("npm", ["run", "build"]);
  assert.ok(existsSync(join(project, "dist/main.js")));
});

test(
  "generate:check fails on a definition changed without regenerating, and passes after",
  noServer,
  async () => {
    const def = join(project, "src/api/memcached.ts");
    writeFileSync(def, readFileSync(def, "utf8").replace("minimum: 0, default: 1", "minimum: 1, default: 1"));
    await assert.rejects(
      sh("npm", ["run", "generate:check"]),
      /config\/crd\/cache\.example\.com_memcacheds\.yaml: differs from its definition/,
    );
    await sh("npm", ["run", "generate"]);
    // A new permission marker is drift too.
    const controller = join(project, "src/controllers/memcached.ts");
    writeFileSync(
      controller,
      readFileSync(controller, "utf8").replace(
        "export class",
        "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch\n\nexport class",
      ),
    );
    await assert.rejects(sh("npm", ["run", "generate:check"]), /config\/rbac\/role\.yaml: differs/);
    await sh("npm", ["run", "generate"]);
    await sh("npm", ["run", "generate:check"]);
    assert.match(readFileSync(join(project, "config/rbac/role.yaml"), "utf8"), /- deployments/);
  },
);

test("the CLI refuses what would clobber or make no sense, with a clear message", noServer, async () => {
  await assert.rejects(cli("init"), /already holds a project/);
  await assert.rejects(
    cli("create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"),
    /already exists/,
  );
  await assert.rejects(
    cli("create", "api", "--group", "Cache", "--version", "v1", "--kind", "X"),
    /group "Cache": a lower-case DNS label/,
  );
  await assert.rejects(
    cli("create", "api", "--group", "cache", "--version", "one", "--kind", "X"),
    /version "one"/,
  );
  await assert.rejects(cli("create", "webhook", "--kind", "Absent", "--defaulting"), /no Absent in PROJECT/);
  await assert.rejects(cli("frobnicate"), /unknown command "frobnicate"/);
  await assert.rejects(cli("generate", "types"), /name CRD files or folders, or --from-cluster/);
  await assert.rejects(
    cli("install", "--kubeconfig", join(project, "absent-kubeconfig")),
    /controller-runtime: .*absent-kubeconfig/,
  );
  const types = await cli("generate", "types", "config/crd");
  assert.match(types, /export interface Memcached \{/);
});

test(
  "run: the manager on the embedded API server, with the simulation, CRDs and webhooks, until Ctrl-C",
  noServer,
  async () => {
    // KUBECONFIG unset: run starts its own server, whatever this run's tests use.
    // Arguments not run's own go to the manager, as `npm run run -- <flags>` passes them.
    const run = startRun([...freePorts, "--zap-stacktrace-level=error"], { KUBECONFIG: undefined });
    try {
      const shown = await eventually(
        "run writes the kubeconfig",
        () => /kubeconfig written to (\S+):/.exec(run.output)?.[1],
        { timeoutMs: 120_000 },
      );
      const kubeconfig = resolve(project, shown);
      await eventually("the manager starts", () => /"msg":"starting manager"/.test(run.output), {
        timeoutMs: 120_000,
      });
      // The manager starts its webhook server after saying it starts: on a busy machine the API
      // server could call the webhook before it listened (connection refused).
      await eventually(
        "the webhook server listens",
        () => /"msg":"Serving webhook server"/.test(run.output),
        {
          timeoutMs: 120_000,
        },
      );
      assert.match(run.output, /with the cluster simulation/);
      assert.match(run.output, /installed memcacheds\.cache\.example\.com, webapps\.web\.example\.com/);
      assert.match(
        run.output,
        /"flags":\["--zap-stacktrace-level=error"\],"msg":"warning: ignoring flags this manager/,
      );
      const rest = newRESTClient(getConfig({ kubeconfig, argv: [] }));
      try {
        const ns = { namespace: "default" };
        // The webhooks are served: the defaulting one labels the Memcached.
        const created = await rest.create<WithConditions>(
          memcacheds,
          {
            apiVersion: "cache.example.com/v1alpha1",
            kind: "Memcached",
            metadata: { name: "run-sample", ...ns },
            spec: { size: 1 },
          },
          ns,
        );
        assert.equal(created.metadata?.labels?.["app.kubernetes.io/name"], "memcached");
        await eventually("the controller reconciles the Memcached to Available", async () => {
          const m = await rest.get<WithConditions>(memcacheds, "run-sample", ns);
          return isStatusConditionTrue(m.status?.conditions, "Available");
        });
        // The simulation: a Deployment gets its Pods, which become ready.
        await rest.create(
          deployments,
          {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "web", ...ns },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: "web" } },
              template: {
                metadata: { labels: { app: "web" } },
                spec: { containers: [{ name: "web", image: "nginx" }] },
              },
            },
          },
          ns,
        );
        await eventually("the simulated Deployment becomes available", async () => {
          const d = await rest.get<KubeObject & { status?: { availableReplicas?: number } }>(
            deployments,
            "web",
            ns,
          );
          return d.status?.availableReplicas === 1;
        });
      } finally {
        await rest.close();
      }
      run.child.kill("SIGINT");
      assert.equal(await run.exited, 0, run.output);
      assert.ok(!existsSync(kubeconfig), "run removes its kubeconfig");
    } finally {
      if (run.child.exitCode === null) run.child.kill("SIGKILL");
    }
  },
);

test("install, run --kubeconfig and uninstall against this run's cluster", async () => {
  const env = testEnvironment({});
  await env.start();
  const kubeconfig = env.started.kubeconfigPath;
  const rest = newRESTClient(env.config);
  const run = startRun(["--kubeconfig", kubeconfig, "--", ...freePorts]);
  try {
    // Before install, run names the CRDs the cluster lacks and the command that installs them.
    await eventually(
      "run names the missing CRDs",
      () => /not installed in that cluster: .*install-crds/.test(run.output),
      {
        timeoutMs: 120_000,
      },
    );
    run.child.kill("SIGINT");
    await run.exited;

    const installed = await cli("install", "--kubeconfig", kubeconfig);
    assert.match(installed, /installed CRD memcacheds\.cache\.example\.com/);
    await rest.get(crds, "webapps.web.example.com");

    const second = startRun([`--kubeconfig=${kubeconfig}`, ...freePorts]);
    try {
      await eventually("the manager starts", () => /"msg":"starting manager"/.test(second.output), {
        timeoutMs: 120_000,
      });
      assert.match(second.output, /running against the cluster at /);
      assert.match(second.output, /webhooks are off \(ENABLE_WEBHOOKS=false\)/);
      assert.doesNotMatch(second.output, /not installed in that cluster/);
      const ns = { namespace: "default" };
      await rest.create(
        webapps,
        {
          apiVersion: "web.example.com/v1",
          kind: "WebApp",
          metadata: { name: "installed", ...ns },
          spec: { size: 1 },
        },
        ns,
      );
      await eventually("the controller reconciles the WebApp to Available", async () => {
        const w = await rest.get<WithConditions>(webapps, "installed", ns);
        return isStatusConditionTrue(w.status?.conditions, "Available");
      });
      second.child.kill("SIGINT");
      assert.equal(await second.exited, 0, second.output);
    } finally {
      if (second.child.exitCode === null) second.child.kill("SIGKILL");
    }

    const removed = await cli("uninstall", "--kubeconfig", kubeconfig);
    assert.match(removed, /deleted CRD webapps\.web\.example\.com/);
    await assert.rejects(rest.get(crds, "webapps.web.example.com"), (err) => isNotFound(err));
  } finally {
    if (run.child.exitCode === null) run.child.kill("SIGKILL");
    await rest.close();
    await env.stop();
  }
});

test("the tutorial's files pass their test in a project of their own, and a webhook after them", async () => {
  project = join(deps, "tutorial");
  mkdirSync(project);
  await cli("init", "--domain", "example.com");
  await cli("create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached");
  const blocks = [...readFileSync("docs/tutorial.md", "utf8").matchAll(/```ts file=(\S+)\n([\s\S]*?)```/g)];
  assert.deepEqual(
    blocks.map((b) => b[1]),
    ["src/api/memcached.ts", "src/controllers/memcached.ts", "src/controllers/memcached.test.ts"],
  );
  for (const [, path, code] of blocks) writeFileSync(join(project, path as string), code as string);
  writeFileSync(join(project, "src/controllers/writes.test.ts"), TUTORIAL_WRITES_TEST);
  await sh("npm", ["run", "generate"]);
  assert.match(readFileSync(join(project, "config/rbac/role.yaml"), "utf8"), /- deployments/);
  // The tutorial's next step: its webhooks compile against its API and pass their tests.
  await cli("create", "webhook", "--kind", "Memcached", "--defaulting", "--programmatic-validation");
  const out = await projectTests();
  assert.match(out, /# pass 5\n# fail 0/, out);
});

// Beside the tutorial's own test: once its Deployment is as wanted, the reconciles that the
// Deployment's status changes cause write nothing (createOrUpdate answers "unchanged").
const TUTORIAL_WRITES_TEST = `import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { isStatusConditionTrue } from "controller-runtime/api";
import { Environment, eventually } from "controller-runtime/envtest";
import { newLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import { Memcached } from "../api/memcached.js";
import { setupMemcachedController } from "./memcached.js";

test("once its Deployment is as wanted, a reconcile writes nothing", async () => {
  const env = new Environment({ crds: [Memcached.crd], simulate: { workloads: { podStartupMs: 100 } } });
  const lines = new PassThrough();
  let logged = "";
  lines.on("data", (chunk) => {
    logged += chunk;
  });
  const mgr = await Manager.create(await env.start(), { logger: newLogger({ level: "info", destination: lines }) });
  setupMemcachedController(mgr);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  try {
    const key = { namespace: "default", name: "writes" };
    await mgr.getClient().create<Memcached>({
      apiVersion: Memcached.apiVersion,
      kind: Memcached.kind,
      metadata: key,
      spec: { size: 2 },
    });
    await eventually("the Memcached is Available", async () => {
      const m = await mgr.getAPIReader().get(Memcached, key);
      return isStatusConditionTrue(m.status?.conditions, "Available");
    });
    assert.match(logged, /deployment created/);
    assert.doesNotMatch(logged, /deployment updated/);
  } finally {
    stop.abort();
    await running;
    await env.stop();
  }
});
`;

test("the built manager runs as the image would run it: flags, kubeconfig, ready, clean stop", async () => {
  // What the Dockerfile's last stage runs (`node dist/main.js`), here on the test API server.
  await sh("npm", ["run", "build"]);
  const env = testEnvironment({
    crdDirectoryPaths: [join(project, "config/crd")],
    errorIfCRDPathMissing: true,
  });
  await env.start();
  const child = spawn(
    process.execPath,
    [
      "dist/main.js",
      `--kubeconfig=${env.started.kubeconfigPath}`,
      ...freePorts,
      "--zap-log-level=info",
      // A flag of Go's zap this logger does not implement: a warning, not a refusal.
      "--zap-time-encoding",
      "iso8601",
    ],
    {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
      // No webhook certificates here: the manager runs without its webhooks, as kubebuilder's does.
      env: userEnv({ ENABLE_WEBHOOKS: "false" }),
    },
  );
  let output = "";
  child.stdout.on("data", (b) => {
    output += b;
  });
  child.stderr.on("data", (b) => {
    output += b;
  });
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  try {
    const addr = await eventually(
      "the probe server listens",
      () => /"name":"health probe","addr":"([^"]+)"/.exec(output)?.[1],
      {
        timeoutMs: 30_000,
      },
    );
    await eventually("readyz answers 200", async () => (await fetch(`http://${addr}/readyz`)).ok);
    assert.match(
      output,
      /"flags":\["--zap-time-encoding","iso8601"\],"msg":"warning: ignoring flags this manager/,
    );
    child.kill("SIGTERM");
    assert.equal(await exited, 0, output);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    await env.stop();
  }
});

/** npm's answers when the registry cannot be reached (the install needs the libraries' own dependencies). */
const offline = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENOTCACHED|ETIMEDOUT|ENETUNREACH/;

test(
  "init run from the packed tarballs writes file: dependencies that npm install resolves",
  noServer,
  async (t) => {
    // What README's "from a clone" says: npm pack both packages, install the tarballs, init, install.
    // Away from deps: no node_modules above the project but its own.
    packed = mkdtempSync(join(tmpdir(), "cr-packed-"));
    const tarballs = packed;
    for (const name of ["controller-runtime", "controller-runtime-apiserver"]) {
      await sh("npm", ["pack", "--ignore-scripts", "--pack-destination", tarballs], {
        cwd: join(deps, "node_modules", name),
      });
    }
    project = join(tarballs, "memcached-operator");
    mkdirSync(project);
    // npm, not this checkout's links: a PATH without deps' bins.
    const npm = (...args: string[]) =>
      sh("npm", [...args, "--prefer-offline", "--no-audit", "--no-fund"], {
        env: { PATH: process.env.PATH },
      });
    try {
      await npm("install", "../controller-runtime-0.1.0.tgz", "kubernetes-types");
    } catch (err) {
      if (offline.test(String(err)))
        return t.skip(`the npm registry is not reachable: ${offline.exec(String(err))?.[0]}`);
      throw err;
    }
    await npm("install", "--save-dev", "../controller-runtime-apiserver-0.1.0.tgz");
    await sh(
      join(project, "node_modules", ".bin", "controller-runtime"),
      ["init", "--domain", "example.com"],
      {
        env: { PATH: process.env.PATH },
      },
    );
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    assert.equal(pkg.dependencies["controller-runtime"], "file:../controller-runtime-0.1.0.tgz");
    assert.equal(
      pkg.devDependencies["controller-runtime-apiserver"],
      "file:../controller-runtime-apiserver-0.1.0.tgz",
    );
    await npm("install");
    await sh("npm", ["ls", "controller-runtime", "controller-runtime-apiserver", "tsx", "typescript"], {
      env: { PATH: process.env.PATH },
    });
    // The installed CLI works in it: a kind, generated from its definition through the project's tsx.
    const created = await sh(
      join(project, "node_modules", ".bin", "controller-runtime"),
      ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"],
      { env: { PATH: process.env.PATH } },
    );
    assert.match(created, /wrote config\/crd\/cache\.example\.com_memcacheds\.yaml/);
  },
);
