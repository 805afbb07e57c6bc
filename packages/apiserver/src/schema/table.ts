// Tables: objects rendered as `kubectl get` shows them, with kube's columns for built-in kinds
// and a CRD version's additionalPrinterColumns (JSONPath) for custom resources.
import type { ListMeta, ObjectMeta } from "kubernetes-types/meta/v1.js";
import type { PrinterColumn, ResourceDefinition } from "../registry/resource.js";
import { jsonPathText, parseJSONPath } from "./json-path.js";
import { age } from "./table-format.js";
import type { Printer } from "./table-printers.js";
import { DEFAULT_PRINTER, PRINTERS } from "./table-printers.js";
import type { PartialObjectMetadata, Table, TableColumnDefinition } from "./table-types.js";

export interface TableOptions {
  /** What each row carries: the object, its metadata, or nothing. Default: `Metadata`. */
  includeObject?: "None" | "Object" | "Metadata";
  /**
   * Omit the column definitions (TableOptions.noHeaders): watch events after the first carry
   * `"columnDefinitions": null`, as kube-apiserver's nil slice encodes. Default: false.
   */
  noHeaders?: boolean;
  /** The list's metadata (`resourceVersion`, `continue`). Default: `{}`. */
  listMeta?: ListMeta;
  /** Milliseconds since the epoch that ages are measured to. Default: `Date.now()`. */
  now?: number;
}

const NAME_COLUMN: TableColumnDefinition = {
  name: "Name",
  type: "string",
  format: "name",
  description:
    "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
  priority: 0,
};

type Obj = Record<string, unknown>;

/** The Table of `objects` of the resource `def`. */
export function toTable(
  def: ResourceDefinition,
  objects: readonly unknown[],
  options: TableOptions = {},
): Table {
  const now = options.now ?? Date.now();
  const printer = def.crdName !== undefined ? crdPrinter(def.printerColumns) : builtinPrinter(def);
  const columns = printer.nameFirst === false ? printer.columns : [NAME_COLUMN, ...printer.columns];
  const include = options.includeObject ?? "Metadata";
  const rows = objects.map((o) => {
    const obj = (o ?? {}) as Obj;
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    const cells = printer.cells(obj, now);
    return {
      cells: printer.nameFirst === false ? cells : [meta.name ?? "", ...cells],
      object: include === "Object" ? obj : include === "Metadata" ? partial(meta) : null,
    };
  });
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: { ...(options.listMeta ?? {}) },
    columnDefinitions: options.noHeaders ? null : columns,
    rows,
  };
}

function partial(metadata: ObjectMeta): PartialObjectMetadata {
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata };
}

/**
 * A built-in kind's printer; else its own printerColumns when it has some; else Name and
 * Created At, kube's default table.
 */
function builtinPrinter(def: ResourceDefinition): Printer {
  const known = PRINTERS[`${def.group}/${def.kind}`];
  if (known !== undefined) return known;
  return def.printerColumns.length > 0 ? crdPrinter(def.printerColumns) : DEFAULT_PRINTER;
}

/** Columns from JSONPaths, with cells typed as kube's CRD table convertor types them. */
function crdPrinter(columns: readonly PrinterColumn[]): Printer {
  const paths = columns.map((c) => {
    try {
      return parseJSONPath(c.jsonPath);
    } catch {
      return undefined;
    }
  });
  return {
    columns: columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? "",
      description: c.description ?? "",
      priority: c.priority ?? 0,
    })),
    cells: (obj, now) =>
      columns.map((c, i) => {
        const found = paths[i]?.find(obj) ?? [];
        if (found.length === 0) return null;
        return cellFor(c.type, found[0], now);
      }),
  };
}

function cellFor(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "string":
      return jsonPathText(value);
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date":
      return typeof value === "string" ? age(value, now) : null;
    default:
      return null;
  }
}
