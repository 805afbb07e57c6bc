// A new user's path through the CLI, on the package as npm installs it: `init` in an empty folder,
// `create api`, `create webhook`; the scaffolded project passes its own tests (against the API
// server this run uses: embedded, or kube-apiserver with KUBEBUILDER_ASSETS) and builds; its
// generated manifests are up to date, and `generate:check` catches a definition changed without
// regenerating. Then docs/tutorial.md's files, dropped into a fresh project, pass its test too.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { eventually } from "controller-runtime/envtest";
import { installBuiltPackage } from "../support/built-package.js";
import { testEnvironment } from "../support/environment.js";

const execFileP = promisify(execFile);
const withoutSourceCondition = (options: string | undefined) =>
  (options ?? "").replace(/--conditions[= ]cr-source/g, "").trim() || undefined;
let project = "";
let deps = "";

async function sh(cmd: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await execFileP(cmd, args, {
      cwd: project,
      maxBuffer: 1 << 24,
      timeout: 240_000,
      env: {
        ...process.env,
        // The installed packages have no sources: this checkout's "cr-source" condition must not follow.
        NODE_OPTIONS: withoutSourceCondition(process.env.NODE_OPTIONS),
        PATH: `${join(deps, "node_modules", ".bin")}:${process.env.PATH}`,
        // This file runs under node's test runner; the project's own runner must not think it nested.
        NODE_TEST_CONTEXT: undefined,
      },
    });
    return stdout + stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}${e.message}`);
  }
}
const cli = (...args: string[]) => sh("controller-runtime", args);

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
});

test("init, create api and create webhook give a project that passes its own tests", async () => {
  mkdirSync(project);
  const initOut = await cli("init", "--domain", "example.com", "--project-name", "memcached-operator");
  assert.match(initOut, /wrote src\/main\.ts/);
  await cli("create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached");
  await cli("create", "webhook", "--kind", "Memcached", "--defaulting", "--programmatic-validation");

  // The generated CRD is what the definition says; the role carries the controller's markers.
  const crd = parseAllDocuments(
    readFileSync(join(project, "config/crd/cache.example.com_memcacheds.yaml"), "utf8"),
  )[0]?.toJS();
  assert.equal(crd.metadata.name, "memcacheds.cache.example.com");
  assert.equal(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.default, 1);
  const role = readFileSync(join(project, "config/rbac/role.yaml"), "utf8");
  assert.match(role, /- memcacheds\/status/);
  assert.match(
    readFileSync(join(project, "src/manager.ts"), "utf8"),
    /setupMemcachedController\(mgr\);\n {2}setupMemcachedWebhook\(mgr\);/,
  );

  // Its tests: type check, drift check, the controller, the webhooks, the manager.
  const out = await sh("npm", ["test"]);
  assert.match(out, /# pass 4\n# fail 0/, out);
  await sh("npm", ["run", "build"]);
  assert.ok(existsSync(join(project, "dist/main.js")));
});

test("generate:check fails on a definition changed without regenerating, and passes after", async () => {
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
});

test("the CLI refuses what would clobber or make no sense, with a clear message", async () => {
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
  const types = await cli("generate", "types", "config/crd");
  assert.match(types, /export interface Memcached \{/);
});

test("the tutorial's files pass their test in a project of their own", async () => {
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
  await sh("npm", ["run", "generate"]);
  assert.match(readFileSync(join(project, "config/rbac/role.yaml"), "utf8"), /- deployments/);
  const out = await sh("npm", ["test"]);
  assert.match(out, /# pass 2\n# fail 0/, out);
});

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
      "--metrics-bind-address=127.0.0.1:0",
      "--health-probe-bind-address=127.0.0.1:0",
      "--zap-log-level=info",
    ],
    {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        NODE_TEST_CONTEXT: undefined,
        NODE_OPTIONS: withoutSourceCondition(process.env.NODE_OPTIONS),
      },
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
    child.kill("SIGTERM");
    assert.equal(await exited, 0, output);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    await env.stop();
  }
});
