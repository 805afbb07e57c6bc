// Serving OpenAPI documents cheaply: each is built once per registry generation and kept as
// serialized JSON with its hash. The server owns one cache and passes its generation number.
import { stringifyJson } from "../object/deep-json.js";
import type { ResourceDefinition } from "../registry/resource.js";
import { documentHash, openAPIV2, openAPIV3GroupVersion, openAPIV3Paths } from "./openapi-documents.js";

/** A document ready to send: its JSON text and a hash usable as an ETag. */
export interface CachedDocument {
  json: string;
  hash: string;
}

export interface OpenAPICache {
  /** `/openapi/v2`. */
  v2(generation: number, defs: readonly ResourceDefinition[]): CachedDocument;
  /** `/openapi/v3`: the index of group-versions. */
  v3Index(generation: number, defs: readonly ResourceDefinition[]): CachedDocument;
  /** `/openapi/v3/apis/<group>/<version>` (`api/v1` for core); undefined if not served. */
  v3GroupVersion(
    generation: number,
    defs: readonly ResourceDefinition[],
    group: string,
    version: string,
  ): CachedDocument | undefined;
}

/** A new, empty cache. Documents of an older generation are dropped on first use. */
export function createOpenAPICache(): OpenAPICache {
  let generation = Number.NaN;
  let docs = new Map<string, CachedDocument | undefined>();
  const memo = (gen: number, key: string, build: () => unknown): CachedDocument | undefined => {
    if (gen !== generation) {
      generation = gen;
      docs = new Map();
    }
    if (!docs.has(key)) {
      const doc = build();
      docs.set(key, doc === undefined ? undefined : { json: stringifyJson(doc), hash: documentHash(doc) });
    }
    return docs.get(key);
  };
  const gv = (gen: number, defs: readonly ResourceDefinition[], group: string, version: string) =>
    memo(gen, `v3:${group}/${version}`, () => openAPIV3GroupVersion(defs, group, version));
  return {
    v2: (gen, defs) => memo(gen, "v2", () => openAPIV2(defs))!,
    v3Index: (gen, defs) =>
      memo(gen, "v3", () => openAPIV3Paths(defs, (g, v) => gv(gen, defs, g, v)?.hash ?? ""))!,
    v3GroupVersion: gv,
  };
}
