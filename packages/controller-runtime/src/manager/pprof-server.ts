// The profiling server (controller-runtime's PprofBindAddress, which serves Go's net/http/pprof):
// here V8's profiles, in the formats Node's tools read, since Go's pprof protobuf does not exist
// for Node. /debug/pprof/profile?seconds=N records a CPU profile (a .cpuprofile for Chrome
// DevTools or speedscope), /debug/pprof/heap streams a heap snapshot (a .heapsnapshot for
// DevTools' Memory tab), /debug/pprof/heapstats answers V8's heap statistics as JSON.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Session } from "node:inspector/promises";
import { getHeapSnapshot, getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
import { type HTTPServerRunnable, newHTTPServerRunnable, requestTarget } from "../httpserver/index.js";
import { type Logger, nullLogger } from "../log/index.js";

export interface PprofServerOptions {
  /** `":8082"`, `"127.0.0.1:0"`, or `"0"`/`""` to disable. Default: `"0"`. */
  bindAddress?: string;
  /** Default: nullLogger(). */
  logger?: Logger;
  /** The longest CPU profile asked for, in seconds. Default: 300. */
  maxSeconds?: number;
}

const index = `<html><head><title>/debug/pprof/</title></head><body>
<p>Profiles of this Node.js process (V8's formats; Go's pprof protobuf is not available):</p>
<ul>
<li><a href="profile?seconds=30">profile?seconds=30</a>: a CPU profile (.cpuprofile: Chrome DevTools, speedscope)</li>
<li><a href="heap">heap</a>: a heap snapshot (.heapsnapshot: Chrome DevTools' Memory tab)</li>
<li><a href="heapstats">heapstats</a>: V8's heap statistics (JSON)</li>
</ul></body></html>
`;

/** The profiling server Runnable; disabled (no port) unless given a bind address. */
export function newPprofServer(opts: PprofServerOptions = {}): HTTPServerRunnable {
  const bindAddress = opts.bindAddress || "0";
  const log = (opts.logger ?? nullLogger()).withName("pprof");
  const maxSeconds = opts.maxSeconds ?? 300;
  let profiling = false;

  const cpuProfile = async (req: IncomingMessage, res: ServerResponse, query: URLSearchParams) => {
    const seconds = Number(query.get("seconds") ?? "30");
    if (!(seconds > 0 && seconds <= maxSeconds)) {
      res.writeHead(400, { "content-type": "text/plain; charset=utf-8" });
      res.end(`seconds must be more than 0 and at most ${maxSeconds}\n`);
      return;
    }
    if (profiling) {
      res.writeHead(409, { "content-type": "text/plain; charset=utf-8" });
      res.end("a CPU profile is being recorded already; try again when it is done\n");
      return;
    }
    profiling = true;
    const session = new Session();
    session.connect();
    try {
      await session.post("Profiler.enable");
      await session.post("Profiler.start");
      // The client may go away; the profile then stops early.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, seconds * 1000);
        req.socket.once("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
      const { profile } = await session.post("Profiler.stop");
      if (res.destroyed) return;
      res.writeHead(200, {
        "content-type": "application/json",
        "content-disposition": 'attachment; filename="profile.cpuprofile"',
      });
      res.end(JSON.stringify(profile));
    } finally {
      session.disconnect();
      profiling = false;
    }
  };

  return newHTTPServerRunnable({
    name: "pprof",
    bindAddress,
    logger: log,
    handler: async (req, res) => {
      const { path, query } = requestTarget(req);
      switch (path) {
        case "/debug/pprof":
        case "/debug/pprof/":
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
          res.end(index);
          return;
        case "/debug/pprof/profile":
          return cpuProfile(req, res, query);
        case "/debug/pprof/heap":
          res.writeHead(200, {
            "content-type": "application/json",
            "content-disposition": 'attachment; filename="heap.heapsnapshot"',
          });
          getHeapSnapshot().pipe(res);
          return;
        case "/debug/pprof/heapstats":
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ heap: getHeapStatistics(), spaces: getHeapSpaceStatistics() }));
          return;
        default:
          res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
          res.end("404 page not found\n");
      }
    },
  });
}
