// Conversion at the handlers' edges: the stored objects a request reads or updates, in the
// request's version; watch lines converted in order before they are written.
import type { ResourceRequest } from "../handlers/context.js";
import { builtinView, hasBuiltinForms } from "./builtin.js";
import { apiVersionOfDef } from "../object/meta.js";
import { ApiError, internalError } from "../status.js";
import type { Obj, StoredObject } from "../storage/index.js";
import { stringifyJson } from "../object/deep-json.js";

/** The stored object as the request's version serves it. */
export async function inRequestVersion(r: ResourceRequest, stored: StoredObject): Promise<StoredObject> {
  if (!r.def.crdName) return builtinView(r.def, stored);
  const conversion = r.server.conversion;
  if (!conversion || stored.obj.apiVersion === apiVersionOfDef(r.def)) return stored;
  try {
    const [view] = await conversion.views(r.def, [stored]);
    return view;
  } catch (e) {
    throw corruptObject(r, stored, e);
  }
}

/**
 * kube 1.37 converts a custom resource while decoding it out of etcd: a conversion that fails
 * there makes the stored object corrupt, answered as an internal error naming its key and
 * revision (kube 1.26 answered the converter's bare error, a 500 without reason).
 */
function corruptObject(r: ResourceRequest, stored: StoredObject, e: unknown): ApiError {
  const inner =
    e instanceof ApiError && e.reason === "InternalError"
      ? (e.details?.causes?.[0]?.message ?? e.message)
      : (e as Error).message;
  return internalError(
    `StorageError: corrupt object, Code: 7, Key: /${r.def.group}/${r.def.plural}/${stored.key}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${stored.rv}: ${inner}`,
  );
}

/**
 * Stored objects as the request's version serves them. kube's storage decodes each item of a list
 * into the request's version on its own: one review per object, the first failure fails the list.
 */
export async function itemsInRequestVersion(
  r: ResourceRequest,
  stored: StoredObject[],
): Promise<StoredObject[]> {
  if (!r.def.crdName) return hasBuiltinForms(r.def) ? stored.map((s) => builtinView(r.def, s)) : stored;
  const conversion = r.server.conversion;
  if (!conversion) return stored;
  if (!conversion.usesWebhook(r.def)) return conversion.views(r.def, stored);
  const out: StoredObject[] = [];
  for (const s of stored) out.push((await conversion.views(r.def, [s]))[0]);
  return out;
}

/** Writes watch lines in order, converting their objects first. */
export interface WatchLineConverter {
  /** `write` receives the line (converted); `fail` an ERROR line, after which nothing is written. */
  push(line: string, write: (line: string) => void, fail: (line: string) => void): void;
}

/** A converter for a watch whose objects may need the conversion webhook; undefined when none can. */
export function watchLineConverter(r: ResourceRequest): WatchLineConverter | undefined {
  const conversion = r.server.conversion;
  if (!conversion || !r.def.crdName || !conversion.usesWebhook(r.def)) return undefined;
  const desired = apiVersionOfDef(r.def);
  let chain: Promise<void> = Promise.resolve();
  let failed = false;
  return {
    push(line, write, fail) {
      chain = chain.then(async () => {
        if (failed) return;
        const event = JSON.parse(line) as { type: string; object: Obj };
        const o = event.object;
        if (o?.kind !== r.def.kind || o.apiVersion === desired || event.type === "ERROR") {
          write(line);
          return;
        }
        try {
          const [converted] = await conversion.convert(r.def, [o]);
          write(`${stringifyJson({ type: event.type, object: converted })}\n`);
        } catch (e) {
          failed = true;
          const err = e instanceof ApiError ? e : internalError((e as Error).message);
          fail(`{"type":"ERROR","object":${JSON.stringify(err.toStatus())}}\n`);
        }
      });
    },
  };
}
