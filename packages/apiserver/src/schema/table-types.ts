// meta.k8s.io/v1 Table, the form `kubectl get` asks for (`Accept: ...;as=Table;g=meta.k8s.io`).
import type { ListMeta, ObjectMeta } from "kubernetes-types/meta/v1.js";

export interface TableColumnDefinition {
  name: string;
  /** `string`, `integer`, `number`, `boolean` or `date`. */
  type: string;
  /** `name` for the Name column, otherwise an OpenAPI format or "". */
  format: string;
  description: string;
  /** 0 for default columns; higher ones show with `-o wide`. */
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  /** The object (`includeObject=Object`), its PartialObjectMetadata (`Metadata`), or null (`None`). */
  object?: unknown;
}

export interface Table {
  kind: "Table";
  apiVersion: "meta.k8s.io/v1";
  metadata: ListMeta;
  /** null when headers are omitted (watch events after the first), as kube encodes it. */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

/** PartialObjectMetadata, as rows carry objects by default. */
export interface PartialObjectMetadata {
  kind: "PartialObjectMetadata";
  apiVersion: "meta.k8s.io/v1";
  metadata: ObjectMeta;
}
