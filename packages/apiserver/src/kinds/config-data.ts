// ConfigMaps and Secrets as kube's ValidateConfigMap and ValidateSecret check them: keys are
// config keys, a Secret of a known type carries the keys its type needs, and both hold at most
// 1 MiB of data (kube's MaxSecretSize), so that one object cannot exhaust what etcd and every
// watcher hold.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

const MAX_DATA_BYTES = 1024 * 1024;

function tooLong(field: string): StatusCause {
  return {
    reason: "FieldValueTooLong",
    message: `Too long: may not be more than ${MAX_DATA_BYTES} bytes`,
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

const configKeyRe = /^[-._a-zA-Z0-9]+$/;

/** apimachinery's IsConfigMapKey. */
export function configKeyErrors(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push("must be no more than 253 characters");
  if (!configKeyRe.test(key)) {
    errs.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  }
  if (key === ".") errs.push("must not be '.'");
  else if (key === "..") errs.push("must not be '..'");
  else if (key.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

function invalidKey(field: string, key: string, detail: string): StatusCause {
  return { reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(key)}: ${detail}`, field };
}

function keyCauses(bag: string, value: unknown): StatusCause[] {
  return entries(value).flatMap(([k]) => configKeyErrors(k).map((m) => invalidKey(`${bag}[${k}]`, k, m)));
}

/** ValidateConfigMap: keys of data and binaryData, no key in both, the size of the two. */
export function validateConfigMap(obj: Obj): StatusCause[] {
  const causes = keyCauses("data", obj.data);
  const binary = new Set(entries(obj.binaryData).map(([k]) => k));
  for (const [k] of entries(obj.data)) {
    if (binary.has(k)) causes.push(invalidKey(`data[${k}]`, k, "duplicate of key present in binaryData"));
  }
  causes.push(...keyCauses("binaryData", obj.binaryData));
  let total = 0;
  for (const [, v] of entries(obj.data)) total += typeof v === "string" ? Buffer.byteLength(v) : 0;
  for (const [, v] of entries(obj.binaryData)) total += typeof v === "string" ? decodedLength(v) : 0;
  // kube reports it at the empty path, printed "[]".
  if (total > MAX_DATA_BYTES) causes.push(tooLong("[]"));
  return causes;
}

const required = (field: string): StatusCause => ({
  reason: "FieldValueRequired",
  message: "Required value",
  field,
});

/** The keys each known Secret type requires (ValidateSecret's switch on type). */
function typeCauses(obj: Obj): StatusCause[] {
  const data = (obj.data ?? {}) as Record<string, unknown>;
  const has = (k: string) => Object.hasOwn(data, k);
  const jsonKey = (k: string): StatusCause[] => {
    if (!has(k)) return [required(`data[${k}]`)];
    try {
      JSON.parse(Buffer.from(String(data[k]), "base64").toString());
      return [];
    } catch (e) {
      const why = (e as Error).message;
      return [
        {
          reason: "FieldValueInvalid",
          message: `Invalid value: "<secret contents redacted>": ${why}`,
          field: `data[${k}]`,
        },
      ];
    }
  };
  switch (obj.type) {
    case "kubernetes.io/service-account-token": {
      const annotations = ((obj.metadata as Obj | undefined)?.annotations ?? {}) as Record<string, string>;
      const key = "kubernetes.io/service-account.name";
      return annotations[key] ? [] : [required(`metadata.annotations[${key}]`)];
    }
    case "kubernetes.io/dockercfg":
      return jsonKey(".dockercfg");
    case "kubernetes.io/dockerconfigjson":
      return jsonKey(".dockerconfigjson");
    case "kubernetes.io/basic-auth":
      return has("username") || has("password")
        ? []
        : [required("data[username]"), required("data[password]")];
    case "kubernetes.io/ssh-auth":
      return data["ssh-privatekey"] ? [] : [required("data[ssh-privatekey]")];
    case "kubernetes.io/tls":
      return [
        ...(has("tls.crt") ? [] : [required("data[tls.crt]")]),
        ...(has("tls.key") ? [] : [required("data[tls.key]")]),
      ];
    default:
      return [];
  }
}

/** ValidateSecret: keys and size of data (stringData is merged in by then), then the type's keys. */
export function validateSecret(obj: Obj): StatusCause[] {
  const causes = keyCauses("data", obj.data);
  let total = 0;
  for (const [, v] of entries(obj.data)) total += typeof v === "string" ? decodedLength(v) : 0;
  if (total > MAX_DATA_BYTES) causes.push(tooLong("data"));
  causes.push(...typeCauses(obj));
  return causes;
}

/**
 * ValidateConfigMapUpdate's and ValidateSecretUpdate's rule for an object once `immutable`:
 * consumers (kubelets) stop watching it, so a change would never reach them. Go compares the
 * bags with reflect.DeepEqual, where an absent map and an empty one differ.
 */
export function immutableCauses(
  obj: Readonly<Obj>,
  old: Readonly<Obj> | undefined,
  bags: string[],
): StatusCause[] {
  if (old?.immutable !== true) return [];
  const causes: StatusCause[] = [];
  const detail = "Forbidden: field is immutable when `immutable` is set";
  const forbidden = (field: string): StatusCause => ({
    reason: "FieldValueForbidden",
    message: detail,
    field,
  });
  if (obj.immutable !== true) causes.push(forbidden("immutable"));
  for (const bag of bags) if (!sameBag(obj[bag], old[bag])) causes.push(forbidden(bag));
  return causes;
}

function sameBag(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null);
  const ea = entries(a);
  const eb = entries(b);
  return ea.length === eb.length && ea.every(([k, v]) => (b as Record<string, unknown>)[k] === v);
}

export const configMapBehaviour: KindBehaviour = {
  validate: (obj, old) => [...immutableCauses(obj, old, ["data", "binaryData"]), ...validateConfigMap(obj)],
};

export const secretBehaviour: KindBehaviour = {
  defaults(obj) {
    obj.type ??= "Opaque";
    // stringData is write-only: kube merges it into data.
    if (obj.stringData && typeof obj.stringData === "object") {
      const data = ((obj.data ?? {}) as Record<string, string>) ?? {};
      for (const [k, v] of Object.entries(obj.stringData as Record<string, string>)) {
        data[k] = Buffer.from(String(v)).toString("base64");
      }
      obj.data = data;
    }
    delete obj.stringData;
  },
  validate: (obj, old) => [...secretUpdateCauses(obj, old), ...validateSecret(obj)],
};

/** ValidateSecretUpdate: the type stays; stringData is merged into data before this runs. */
function secretUpdateCauses(obj: Readonly<Obj>, old: Readonly<Obj> | undefined): StatusCause[] {
  if (!old) return [];
  const causes: StatusCause[] = [];
  if (obj.type !== old.type)
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${JSON.stringify(obj.type ?? "")}: field is immutable`,
      field: "type",
    });
  return [...causes, ...immutableCauses(obj, old, ["data"])];
}
