// The client a reconciler uses, as controller-runtime's mgr.GetClient(): reads from the manager's
// cache, writes through the manager's REST client (one connection pool, counted in /metrics).
import { type Client, newClient } from "../../src/client/index.js";
import type { Manager } from "../../src/manager/index.js";

export function managerClient(mgr: Manager): Client {
  return newClient(mgr.getConfig(), { cache: mgr.getCache(), restClient: mgr.getRestClient() });
}
