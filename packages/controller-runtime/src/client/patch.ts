// Patches, as controller-runtime's client.Patch: a type and the body to send, computed when the
// patch is sent from the object given to `client.patch(obj, patch)`. `mergeFrom(original)` diffs
// `original` against that object, so the usual pattern is: read, copy, change the copy, send.
import { type KubeObject, parseAPIVersion } from "../api/index.js";
import {
  builtinPatchMeta,
  createMergePatch,
  createStrategicMergePatch,
  type JSONPatchOperation,
} from "../patch/index.js";
import type { PatchType } from "../rest/index.js";
import { OptimisticLockError, StrategicMergeUnsupportedError } from "./errors.js";
import type { DeepReadonly } from "../api/index.js";

/** A patch: its type, and the body to send for the object passed to `client.patch`. */
export interface Patch {
  /** `json`, `merge`, `strategic` or `apply`. */
  readonly type: PatchType;
  /** The body for `obj`: sent as is when a string, else as JSON. Never changes `obj`. */
  data(obj: DeepReadonly<KubeObject>): unknown;
}

export interface MergeFromOptions {
  /**
   * Carry `metadata.resourceVersion` of `original` in the patch, so the server refuses it with a
   * 409 Conflict when the object changed since `original` was read. Default: false.
   */
  optimisticLock?: boolean;
}

/** The pair to diff: with optimistic locking, the original's resourceVersion is written into the patch. */
function diffPair(
  original: DeepReadonly<KubeObject>,
  modified: DeepReadonly<KubeObject>,
  opts: MergeFromOptions,
): [unknown, unknown] {
  if (!opts.optimisticLock) return [original, modified];
  const version = original.metadata?.resourceVersion;
  if (!version) throw new OptimisticLockError(original.metadata?.name);
  const { resourceVersion: _, ...meta } = original.metadata ?? {};
  return [
    { ...original, metadata: meta },
    { ...modified, metadata: { ...modified.metadata, resourceVersion: version } },
  ];
}

/**
 * A JSON merge patch (RFC 7386) from `original` to the object passed to `client.patch`. Lists are
 * replaced whole; a field removed from the object is sent as `null`.
 */
export function mergeFrom(original: DeepReadonly<KubeObject>, opts: MergeFromOptions = {}): Patch {
  return {
    type: "merge",
    data(obj) {
      const [from, to] = diffPair(original, obj, opts);
      return createMergePatch(from, to);
    },
  };
}

/**
 * A strategic merge patch from `original` to the object passed to `client.patch`: lists with a
 * merge key (containers by name, ...) are patched by element. Built-in kinds only: the patch of a
 * custom resource fails with `StrategicMergeUnsupportedError` before anything is sent.
 */
export function strategicMergeFrom(original: DeepReadonly<KubeObject>, opts: MergeFromOptions = {}): Patch {
  return {
    type: "strategic",
    data(obj) {
      const apiVersion = obj.apiVersion ?? original.apiVersion ?? "";
      const kind = obj.kind ?? original.kind ?? "";
      const { group, version } = parseAPIVersion(apiVersion);
      const meta = builtinPatchMeta(group, version, kind);
      if (!meta) throw new StrategicMergeUnsupportedError({ group, version, kind });
      const [from, to] = diffPair(original, obj, opts);
      return createStrategicMergePatch(from, to, meta);
    },
  };
}

/** A JSON patch (RFC 6902) of these operations, whatever the object. */
export function jsonPatch(ops: readonly JSONPatchOperation[]): Patch {
  return { type: "json", data: () => ops };
}

/** A patch of `type` with a fixed body (a string is sent as is, anything else as JSON). */
export function rawPatch(type: PatchType, data: unknown): Patch {
  return { type, data: () => data };
}

/**
 * Server-side apply of the object passed to `client.patch` itself (controller-runtime's
 * `client.Apply`); needs a field owner. `client.apply(config)` is the typed way to the same.
 */
export const applyPatch: Patch = Object.freeze({
  type: "apply",
  data: (obj: DeepReadonly<KubeObject>) => obj,
});
