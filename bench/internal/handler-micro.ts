// The embedded API server's request path without TLS, sockets or HTTP parsing: the router and
// handlers driven in-process with stand-in requests and responses, so their CPU per create and
// per get can be told apart from the transport's (compare with profile-apiserver.ts --floor).
// `npx tsx bench/internal/handler-micro.ts [--n N] [--rounds N] [--protobuf]`: --protobuf sends
// and accepts protobuf, as the library's client does (bench/apiserver.ts), instead of JSON.
import { Faults } from "../../packages/controller-runtime/src/envtest/faults/faults.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { parseArgs } from "node:util";
import { Admission, clusterDnsResolver } from "../../packages/apiserver/src/admission/index.js";
import { createHooks } from "../../packages/apiserver/src/controllers/hooks.js";
import { Conversion } from "../../packages/apiserver/src/conversion/index.js";
import type { ServerContext } from "../../packages/apiserver/src/handlers/context.js";
import { OpenAPIService } from "../../packages/apiserver/src/openapi/index.js";
import { builtinResources, Registry } from "../../packages/apiserver/src/registry/index.js";
import { requestTarget } from "../../packages/apiserver/src/request-path.js";
import { route } from "../../packages/apiserver/src/router.js";
import { objectMetaSchema, PatternCache, type Schema } from "../../packages/apiserver/src/schema/index.js";
import { TypeModels } from "../../packages/apiserver/src/apply/index.js";
import { WatchWindows } from "../../packages/apiserver/src/handlers/watch-windows.js";
import { seed } from "../../packages/apiserver/src/seed.js";
import { Storage } from "../../packages/apiserver/src/storage/index.js";
import { encodeProtobuf } from "controller-runtime/protobuf";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "20000" },
    rounds: { type: "string", default: "3" },
    protobuf: { type: "boolean", default: false },
  },
});
const n = Number(values.n);
const protobuf = values.protobuf;
const PROTOBUF = "application/vnd.kubernetes.protobuf";

function context(): ServerContext {
  const storage = new Storage({ historySize: 50_000 });
  const registry = new Registry(builtinResources());
  const signal = new AbortController().signal;
  let ctx: ServerContext | undefined;
  let objectMeta: Schema | undefined;
  const conversion = new Conversion({ storage, serviceResolver: clusterDnsResolver, signal });
  ctx = {
    storage,
    registry,
    faults: new Faults(),
    limits: {
      maxBodyBytes: 3 << 20,
      watchBufferBytes: 16 << 20,
      bookmarkIntervalMs: 60_000,
      defaultWatchTimeoutSeconds: 1800,
    },
    hooks: createHooks(() => ctx!, { garbageCollection: false, signal, onError: console.error }),
    admission: new Admission({
      storage,
      registry,
      serviceResolver: clusterDnsResolver,
      signal,
      convert: async (obj) => obj,
    }),
    conversion,
    openapi: new OpenAPIService(registry),
    patterns: new PatternCache(),
    watchWindows: new WatchWindows(storage),
    types: new TypeModels(),
    objectMetaSchema: () => {
      objectMeta ??= objectMetaSchema();
      return objectMeta;
    },
    signal,
    now: () => new Date(),
  };
  seed(ctx);
  return ctx;
}

/** Answers the status code once the handler has ended the response. */
function call(ctx: ServerContext, method: string, url: string, body?: string | Buffer): Promise<number> {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  const req = Readable.from(bytes === undefined ? [] : [bytes]) as unknown as IncomingMessage;
  Object.assign(req, {
    method,
    url,
    headers: {
      host: "127.0.0.1",
      "user-agent": "bench/v0.0.0 (linux/amd64) kubernetes/$Format",
      accept: protobuf ? "application/vnd.kubernetes.protobuf, application/json" : "application/json",
      ...(bytes === undefined
        ? {}
        : {
            "content-type": typeof body === "string" ? "application/json" : PROTOBUF,
            "content-length": String(bytes.length),
          }),
    },
  });
  return new Promise((resolve) => {
    let code = 0;
    const res = {
      get headersSent() {
        return code !== 0;
      },
      writeHead(c: number) {
        code = c;
        return res;
      },
      end() {
        resolve(code);
      },
      setHeader() {},
    } as unknown as ServerResponse;
    const admin = { name: "admin", groups: ["system:masters", "system:authenticated"] };
    const target = requestTarget(req.url ?? "/");
    void route(
      { server: ctx, serverAddress: "127.0.0.1:0", onError: console.error },
      req,
      res,
      admin,
      target,
    );
  });
}

const payload = "x".repeat(900);
const ctx = context();
await call(ctx, "POST", "/api/v1/namespaces", JSON.stringify({ metadata: { name: "bench" } }));
const base = "/api/v1/namespaces/bench/configmaps";
for (let round = 0; round < Number(values.rounds); round++) {
  const body = (i: number) => {
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `cm-${round}-${i}` },
      data: { payload },
    };
    return protobuf ? encodeProtobuf(cm)! : JSON.stringify(cm);
  };
  let cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const code = await call(ctx, "POST", base, body(i));
    if (code !== 201) throw new Error(`create answered ${code}`);
  }
  let cpu = process.cpuUsage(cpu0);
  console.log(`creates: ${((cpu.user + cpu.system) / n) | 0} µs CPU each (handlers only)`);
  cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const code = await call(ctx, "GET", `${base}/cm-${round}-${i}`);
    if (code !== 200) throw new Error(`get answered ${code}`);
  }
  cpu = process.cpuUsage(cpu0);
  console.log(`gets: ${((cpu.user + cpu.system) / n) | 0} µs CPU each (handlers only)`);
}
