// Libraries most requests never need, loaded on the first request that does, so that a cold
// start of the server does not pay for them (@bufbuild/cel ~70 ms, the protobuf codec with
// kube's descriptors ~60 ms, yaml ~35 ms of importing on this machine). The router awaits
// `loadFor(...)` before handing a request on; the handlers, synchronous past that point, then
// take the module with `get()`, which throws an internal error if a path was not covered.
import type { IncomingMessage } from "node:http";
import { packagesOf } from "./lazy-packages.js";
import { slot } from "./lazy-slot.js";
import { yamlLib } from "./nesting.js";

// Each module after its packages (lazy-packages.ts: the bundle needs them imported first).
const after =
  <T>(module: string, load: () => Promise<T>) =>
  () =>
    packagesOf(module).then(load);
export const protobufCodec = slot(
  "the protobuf codec",
  after("./protobuf/codec.js", () => import("./protobuf/codec.js")),
);
export const celRules = slot(
  "CEL",
  after("./cel/crd-rules.js", () => import("./cel/crd-rules.js")),
);
export const celMatch = slot(
  "CEL match conditions",
  after("./cel/match-conditions.js", () => import("./cel/match-conditions.js")),
);
export const celPolicy = slot(
  "CEL admission policies",
  after("./cel/admission-policy.js", () => import("./cel/admission-policy.js")),
);
export const celMutation = slot(
  "CEL mutating admission policies",
  after("./cel/mutation.js", () => import("./cel/mutation.js")),
);

/** What a request may use of the libraries above. */
export interface LazyNeeds {
  /**
   * A write to CustomResourceDefinitions, webhook configurations or admission policies, or to a custom resource
   * whose schema has CEL rules.
   */
  cel?: boolean;
}

/**
 * Loads what a request will need: protobuf and YAML by its headers, CEL as the caller says.
 * Undefined when everything it needs is loaded already (no await, no microtask).
 */
export function loadFor(req: IncomingMessage, needs: LazyNeeds = {}): Promise<unknown> | undefined {
  const ct = req.headers["content-type"] ?? "";
  const accept = req.headers.accept ?? "";
  const waits: Promise<unknown>[] = [];
  if (!protobufCodec.loaded && (ct.includes("protobuf") || accept.includes("protobuf"))) {
    waits.push(protobufCodec.load());
  }
  if (!yamlLib.loaded && ct.includes("yaml")) waits.push(yamlLib.load());
  if (needs.cel && !celRules.loaded) waits.push(celRules.load());
  if (needs.cel && !celMatch.loaded) waits.push(celMatch.load());
  if (needs.cel && !celPolicy.loaded) waits.push(celPolicy.load());
  if (needs.cel && !celMutation.loaded) waits.push(celMutation.load());
  return waits.length > 0 ? Promise.all(waits) : undefined;
}
