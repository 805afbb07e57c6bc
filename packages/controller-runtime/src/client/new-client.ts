// The Client's factories: newClient (cached reads when given a cache) and newAPIReader (always
// the API server). Apart from client.ts, which holds the interfaces the implementation
// (internal/kube-client.ts) implements, so that neither imports the other.
import { newRESTMapper } from "../mapper/index.js";
import type { RESTConfig } from "../rest/index.js";
import { newRESTClient } from "../rest/index.js";
import type { Client, ClientReader, WithWatch } from "./client.js";
import { KubeClient } from "./internal/kube-client.js";
import { type ClientOptions, resolveClientOptions } from "./options.js";
import { newDryRunClient } from "./write-defaults.js";

/** A client for `config`; reads through `opts.cache` when given. Opens no connection until used. */
export function newClient(config: RESTConfig, opts: ClientOptions = {}): Client {
  return newWithWatch(config, opts);
}

/** `newClient` with `watch` (controller-runtime's `NewWithWatch`); watches go to the API server. */
export function newWithWatch(config: RESTConfig, opts: ClientOptions = {}): WithWatch {
  const rest = opts.restClient ?? newRESTClient(config);
  const client = new KubeClient({
    rest,
    ownRest: opts.restClient === undefined,
    mapper: opts.mapper ?? newRESTMapper(rest),
    options: resolveClientOptions(opts),
  });
  return opts.dryRun ? newDryRunClient(client) : client;
}

export interface APIReaderOptions extends Pick<ClientOptions, "restClient" | "mapper"> {}

/** A reader that always asks the API server (never a cache): `mgr.getAPIReader()`. */
export function newAPIReader(
  config: RESTConfig,
  opts: APIReaderOptions = {},
): ClientReader & Pick<Client, "close"> {
  return newClient(config, { restClient: opts.restClient, mapper: opts.mapper });
}
