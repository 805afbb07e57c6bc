// A webhook served by a server of one's own (controller-runtime's admission.StandaloneWebhook):
// a plain Node request handler that gives the webhook its request context (signal, logger,
// metrics) and records the webhook metrics under the path, as the webhook server does.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Registry } from "prom-client";
import { requestTarget } from "../httpserver/index.js";
import { type Logger, nullLogger } from "../log/index.js";
import { webhookMetrics } from "../metrics/index.js";
import type { WebhookHandler, WebhookHTTPHandler, WebhookRequestContext } from "./handler.js";
import { requestSignal } from "./internal/request-signal.js";

export interface StandaloneOptions {
  /** The path in metrics and logs (Go's `MetricsPath`). Default: each request's own path. */
  path?: string;
  /** Default: nullLogger(). */
  logger?: Logger;
  /** Where the webhook metrics go. Default: a registry of its own. */
  registry?: Registry;
}

/**
 * `webhook` as a `(req, res)` handler for `http.createServer`, Express or any router
 * (controller-runtime's `StandaloneWebhook`). A throw is answered with a plain 500.
 */
export function standaloneWebhook(
  webhook: WebhookHandler,
  opts: StandaloneOptions = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const serve: WebhookHTTPHandler =
    typeof webhook === "function" ? webhook : (req, res, ctx) => webhook.serveHTTP(req, res, ctx);
  const log = (opts.logger ?? nullLogger()).withName("webhooks");
  const metrics = webhookMetrics(opts.registry ?? new Registry());
  const never = new AbortController().signal;
  return async (req, res) => {
    const { path: own, query } = requestTarget(req);
    const path = opts.path ?? own;
    const endTimer = metrics.requestLatency.startTimer({ webhook: path });
    metrics.requestsInFlight.labels(path).inc();
    const { signal, done } = requestSignal(req, res, query, never);
    res.once("close", () => {
      done();
      endTimer();
      metrics.requestsInFlight.labels(path).dec();
      metrics.requestTotal.labels(path, String(res.statusCode)).inc();
    });
    const ctx: WebhookRequestContext = { path, signal, logger: log.withValues({ webhook: path }), metrics };
    try {
      await serve(req, res, ctx);
    } catch (err) {
      log.error(err, "webhook handler failed", { webhook: path });
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end("internal server error\n");
      } else res.destroy();
    }
  };
}
