// The server as a whole: a restart on the same storage, CA and token keeps objects, versions and
// clients' trust, and a watch resumed from the last version gets later changes; owner-reference
// garbage collection is off by default and on when asked; the CLI serves until Ctrl-C.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Agent } from "undici";
import { Api, collect, configMap, type Target } from "../../../test/apiserver/harness.js";
import { type RunningAPIServer, startAPIServer } from "./index.js";
import { needs } from "../../../test/support/environment.js";
import { eventually } from "controller-runtime/envtest";

const run = promisify(execFile);

function apiFor(server: RunningAPIServer, agent = new Agent({ connect: { ca: server.caPem } })): Api {
  const target: Target = {
    url: server.url,
    token: server.adminToken,
    caPem: server.caPem,
    embedded: true,
    agent,
    close: () => agent.close(),
  };
  return new Api(target);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("restart", () => {
  test("objects, resourceVersions, the CA and the token survive; a resumed watch gets later changes", async () => {
    const first = await startAPIServer();
    const agent = new Agent({ connect: { ca: first.caPem } });
    const api1 = apiFor(first, agent);
    const ns = await api1.namespace("rs");
    const created = await api1.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("kept", { a: "1" }));
    const lastRv = created.body.metadata.resourceVersion;
    await first.stop();

    const second = await startAPIServer({
      storage: first.storage,
      certificateAuthority: first.certificateAuthority,
      adminToken: first.adminToken,
    });
    try {
      // The same agent (trusting the first server's CA) and token work against the new one.
      const api2 = apiFor(second, agent);
      assert.equal(second.caPem, first.caPem);
      const got = await api2.get(`/api/v1/namespaces/${ns}/configmaps/kept`);
      assert.equal(got.status, 200);
      assert.equal(got.body.metadata.resourceVersion, lastRv);
      assert.equal(got.body.metadata.uid, created.body.metadata.uid);

      const ac = new AbortController();
      const events = collect(
        api2.watch(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${lastRv}`, ac.signal),
        (seen) => seen.length === 1,
      );
      const later = await api2.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("later"));
      assert.ok(Number(later.body.metadata.resourceVersion) > Number(lastRv), "versions keep increasing");
      const [ev] = await events;
      ac.abort();
      assert.equal(ev.type, "ADDED");
      assert.equal(ev.object.metadata.name, "later");
    } finally {
      await second.stop();
      await agent.close();
    }
  });
});

describe("authentication", () => {
  test("as kube's union authenticator: a valid client certificate first; a header that is no bearer token is no credential", async () => {
    const server = await startAPIServer();
    const withCert = new Agent({
      connect: {
        ca: server.caPem,
        cert: server.adminCertificate.certPem,
        key: server.adminCertificate.keyPem,
      },
    });
    const bare = new Agent({ connect: { ca: server.caPem } });
    const get = async (agent: Agent, authorization?: string) => {
      const res = await fetch(`${server.url}/api/v1/namespaces`, {
        headers: authorization === undefined ? {} : { authorization },
        dispatcher: agent,
      } as unknown as RequestInit);
      await res.arrayBuffer();
      return res.status;
    };
    try {
      // The certificate authenticates whatever the header says (kube checks x509 before tokens).
      for (const header of [undefined, "Bearer ", "Basic YTpi", "Bearer not-a-token"]) {
        assert.equal(await get(withCert, header), 200, String(header));
      }
      // Without one: an unknown token is a 401; an empty token or another scheme is anonymous.
      assert.equal(await get(bare, "Bearer not-a-token"), 401);
      assert.equal(await get(bare, `Bearer ${server.adminToken}`), 200);
      for (const header of ["Bearer ", "Basic YTpi", "Bearer  x"])
        assert.equal(await get(bare, header), 403, header);
    } finally {
      await withCert.close();
      await bare.close();
      await server.stop();
    }
  });
});

describe("garbage collection", () => {
  async function ownerAndDependent(api: Api) {
    const ns = await api.namespace("gc");
    const owner = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("owner"));
    const dependent = configMap("dependent") as ReturnType<typeof configMap> & {
      metadata: Record<string, unknown>;
    };
    dependent.metadata.ownerReferences = [
      { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.body.metadata.uid },
    ];
    assert.equal((await api.post(`/api/v1/namespaces/${ns}/configmaps`, dependent)).status, 201);
    assert.equal((await api.delete(`/api/v1/namespaces/${ns}/configmaps/owner`)).status, 200);
    return ns;
  }

  test("off by default: dependents stay when their owner is deleted", async () => {
    const server = await startAPIServer();
    const api = apiFor(server);
    try {
      const ns = await ownerAndDependent(api);
      await sleep(200);
      assert.equal((await api.get(`/api/v1/namespaces/${ns}/configmaps/dependent`)).status, 200);
    } finally {
      await api.target.close();
      await server.stop();
    }
  });

  test("on: dependents whose owners are all gone are deleted", async () => {
    const server = await startAPIServer({ garbageCollection: true });
    const api = apiFor(server);
    try {
      const ns = await ownerAndDependent(api);
      let status = 200;
      for (let i = 0; i < 100 && status === 200; i++) {
        status = (await api.get(`/api/v1/namespaces/${ns}/configmaps/dependent`)).status;
        if (status === 200) await sleep(50);
      }
      assert.equal(status, 404);
    } finally {
      await api.target.close();
      await server.stop();
    }
  });
});

describe("garbage collection in the foreground", needs("garbage-collector"), () => {
  const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
  async function owned(
    api: Api,
    ns: string,
    name: string,
    owner: { name: string; uid: string },
    block: boolean,
  ) {
    const body = configMap(name) as ReturnType<typeof configMap> & { metadata: Record<string, unknown> };
    body.metadata.ownerReferences = [
      { apiVersion: "v1", kind: "ConfigMap", ...owner, blockOwnerDeletion: block },
    ];
    const r = await api.post(cms(ns), body);
    assert.equal(r.status, 201, r.text);
    return r.body.metadata as { name: string; uid: string };
  }

  test("an owner waits only for the dependents that block it", async () => {
    const server = await startAPIServer({ garbageCollection: true });
    const api = apiFor(server);
    try {
      const ns = await api.namespace("fg");
      const owner = (await api.post(cms(ns), configMap("owner"))).body.metadata;
      // Two dependents kept by a finalizer, one blocking its owner's deletion, one not.
      for (const [name, block] of [
        ["held", true],
        ["loose", false],
      ] as const) {
        const body = configMap(name) as ReturnType<typeof configMap> & { metadata: Record<string, unknown> };
        body.metadata.finalizers = ["example.com/hold"];
        body.metadata.ownerReferences = [
          { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.uid, blockOwnerDeletion: block },
        ];
        assert.equal((await api.post(cms(ns), body)).status, 201);
      }
      assert.equal((await api.delete(`${cms(ns)}/owner`, { propagationPolicy: "Foreground" })).status, 200);
      await eventually(
        "both dependents being deleted",
        async () =>
          (await api.get(cms(ns))).body.items.filter(
            (i: { metadata: { deletionTimestamp?: string } }) => i.metadata.deletionTimestamp,
          ).length === 3,
      );
      assert.equal((await api.get(`${cms(ns)}/owner`)).status, 200, "the owner waits for the blocking one");
      await api.patch(`${cms(ns)}/held`, { metadata: { finalizers: null } });
      await eventually("the owner deleted", async () => (await api.get(`${cms(ns)}/owner`)).status === 404);
      assert.equal(
        (await api.get(`${cms(ns)}/loose`)).status,
        200,
        "the non-blocking one still held by its finalizer",
      );
      await api.patch(`${cms(ns)}/loose`, { metadata: { finalizers: null } });
    } finally {
      await api.target.close();
      await server.stop();
    }
  });

  test("owners in a cycle, one deleted in the foreground: all three go, as kube's collector resolves it", async () => {
    const server = await startAPIServer({ garbageCollection: true });
    const api = apiFor(server);
    try {
      const ns = await api.namespace("cycle");
      // kube's conformance test: pod1 owned by pod3, pod2 by pod1, pod3 by pod2, all blocking.
      const one = (await api.post(cms(ns), configMap("one"))).body.metadata;
      const two = await owned(api, ns, "two", one, true);
      const three = await owned(api, ns, "three", two, true);
      const patched = await api.patch(`${cms(ns)}/one`, {
        metadata: {
          ownerReferences: [
            {
              apiVersion: "v1",
              kind: "ConfigMap",
              name: three.name,
              uid: three.uid,
              blockOwnerDeletion: true,
            },
          ],
        },
      });
      assert.equal(patched.status, 200, patched.text);
      const deleted = await api.delete(`${cms(ns)}/one`, {
        propagationPolicy: "Foreground",
        preconditions: { uid: one.uid },
      });
      assert.equal(deleted.status, 200, deleted.text);
      await eventually(
        "the three deleted",
        async () =>
          (await api.get(cms(ns))).body.items.filter((i: { metadata: { name: string } }) =>
            ["one", "two", "three"].includes(i.metadata.name),
          ).length === 0,
        { timeoutMs: 30_000 },
      );
    } finally {
      await api.target.close();
      await server.stop();
    }
  });
});

describe("CLI", () => {
  test("prints its URL, writes a kubeconfig kubectl can use, and exits 0 on SIGINT", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "apiserver-cli-"));
    const kubeconfig = join(dir, "config");
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        fileURLToPath(new URL("./cli.ts", import.meta.url)),
        "--port",
        "0",
        "--kubeconfig",
        kubeconfig,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      let out = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /listening on (https:\/\/\S+)/.exec(out);
          if (m && out.includes("kubeconfig written")) resolve(m[1]);
        });
        child.once("exit", (code) => reject(new Error(`the CLI exited early (${code}): ${out}`)));
      });
      assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
      let kubectl = true;
      try {
        await run("kubectl", ["version", "--client"]);
      } catch {
        kubectl = false;
      }
      if (kubectl) {
        const { stdout } = await run(
          "kubectl",
          ["--kubeconfig", kubeconfig, "--cache-dir", join(dir, "cache"), "get", "namespaces", "-o", "name"],
          {},
        );
        assert.match(stdout, /namespace\/default/);
      } else t.diagnostic("kubectl not on PATH: only the HTTP side is checked");
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGINT");
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });
});
