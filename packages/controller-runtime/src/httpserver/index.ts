/** @module controller-runtime/httpserver */
// httpserver: a plain HTTP server as a Runnable (bind address parsing, graceful stop), shared by
// the metrics server and the health probe server; and the request-target split the HTTP servers
// route on.
export type { HTTPHandler, HTTPServerRunnable, HTTPServerRunnableOptions, HTTPServerTLS } from "./server.js";
export {
  InvalidBindAddressError,
  newHTTPServerRunnable,
  parseBindAddress,
  ServerAlreadyStartedError,
} from "./server.js";
export type { RequestTarget } from "./target.js";
export { requestTarget } from "./target.js";
