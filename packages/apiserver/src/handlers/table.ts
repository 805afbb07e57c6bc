// The Table form (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) that `kubectl get`
// asks for: rows built by the schema helper's `toTable` (kube's columns for built-in kinds, a
// CRD's printer columns), each carrying the object, its metadata (the default) or nothing, as
// `?includeObject=` says.
import { metaApiVersionOf } from "../http-io.js";
import { apiVersionOfDef } from "../object/meta.js";
import { toTable } from "../schema/index.js";
import { badRequest } from "../status.js";
import type { StoredObject } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import type { ListMetaOut } from "./serialize.js";
import { stringifyJson } from "../object/deep-json.js";

type IncludeObject = "None" | "Object" | "Metadata";

/** `?includeObject=`, checked as kube checks it. */
export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get("includeObject") ?? "";
  if (v === "") return "Metadata";
  if (v === "None" || v === "Object" || v === "Metadata") return v;
  // kube validates TableOptions first (ValidateTableOptions), with this wording.
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

/** The object as the request's version serves it (a CRD may store another version). */
function servedVersion(r: ResourceRequest, o: StoredObject): unknown {
  const apiVersion = apiVersionOfDef(r.def);
  return o.obj.apiVersion === apiVersion ? o.obj : { ...o.obj, apiVersion };
}

export interface TableRequest {
  /** Rows' object form. */
  includeObject: IncludeObject;
  /** Whether the column definitions are left out (watch events after the first). */
  noHeaders?: boolean;
}

/** The JSON of a Table of `objects`, with `meta` as the list's metadata. */
export function tableJson(
  r: ResourceRequest,
  objects: readonly StoredObject[],
  meta: ListMetaOut,
  opts: TableRequest = { includeObject: includeObjectOf(r.query) },
): string {
  const table = toTable(
    r.def,
    objects.map((o) => servedVersion(r, o)),
    {
      includeObject: opts.includeObject,
      noHeaders: opts.noHeaders,
      listMeta: meta,
      now: r.server.now().getTime(),
    },
  );
  const apiVersion = metaApiVersionOf(r.res);
  if (apiVersion === table.apiVersion) return stringifyJson(table);
  // Rows' metadata is PartialObjectMetadata of the Table's own version.
  const rows = table.rows.map((row) =>
    (row.object as { kind?: unknown } | null)?.kind === "PartialObjectMetadata"
      ? { ...row, object: { ...(row.object as object), apiVersion } }
      : row,
  );
  return stringifyJson({ ...table, apiVersion, rows });
}
