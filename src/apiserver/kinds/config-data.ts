// ConfigMaps and Secrets hold at most 1 MiB of data (kube's MaxSecretSize, for both), so that
// one object cannot exhaust what etcd and every watcher hold.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

const MAX_DATA_BYTES = 1024 * 1024;

function tooLong(field: string): StatusCause {
  return {
    reason: "FieldValueTooLong",
    message: `Too long: must have at most ${MAX_DATA_BYTES} bytes`,
    field,
  };
}

function entries(value: unknown): [string, unknown][] {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : [];
}

/** Bytes of base64 text once decoded, without decoding it. */
function decodedLength(b64: string): number {
  const padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - padding;
}

/** ValidateConfigMap's size rule: the values of data, plus binaryData's bytes. */
export function validateConfigMapSize(obj: Obj): StatusCause[] {
  let total = 0;
  for (const [, v] of entries(obj.data)) total += typeof v === "string" ? Buffer.byteLength(v) : 0;
  for (const [, v] of entries(obj.binaryData)) total += typeof v === "string" ? decodedLength(v) : 0;
  // kube reports it at the empty path, printed "[]".
  return total > MAX_DATA_BYTES ? [tooLong("[]")] : [];
}

/** ValidateSecret's size rule: the decoded bytes of data (stringData is merged in by then). */
export function validateSecretSize(obj: Obj): StatusCause[] {
  let total = 0;
  for (const [, v] of entries(obj.data)) total += typeof v === "string" ? decodedLength(v) : 0;
  return total > MAX_DATA_BYTES ? [tooLong("data")] : [];
}

export const configMapBehaviour: KindBehaviour = {
  validate: (obj) => validateConfigMapSize(obj),
};
